-- The order's revision in the event that last wrote a shipment: an event of the order
-- with a lower one is older and changes nothing. States: REQUESTED, CANCELLED, and
-- SHIPPED, which whoever ships sets.
ALTER TABLE shipments ADD COLUMN IF NOT EXISTS order_sequence BIGINT NOT NULL DEFAULT 1;
