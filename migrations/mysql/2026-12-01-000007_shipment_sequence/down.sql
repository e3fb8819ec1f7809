ALTER TABLE shipments DROP COLUMN IF EXISTS order_sequence;
