-- The inbox: one row per (consumer, event) it has applied, written in the same
-- transaction as the consumer's own write, so a redelivered event changes nothing.
CREATE TABLE inbox (
  consumer BLOB NOT NULL CHECK (length(consumer) BETWEEN 1 AND 64),
  event_id BLOB NOT NULL CHECK (length(event_id) = 16),
  received_at TIMESTAMP NOT NULL,
  PRIMARY KEY (consumer, event_id)
);

-- The shipments consumer's own table: one shipment per order, whatever the deliveries.
CREATE TABLE shipments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id BIGINT NOT NULL,
  tenant_id BIGINT NOT NULL,
  sku BLOB NOT NULL CHECK (length(sku) BETWEEN 1 AND 64),
  quantity SMALLINT NOT NULL,
  state TEXT NOT NULL,
  event_id BLOB NOT NULL CHECK (length(event_id) = 16),
  created_at TIMESTAMP NOT NULL,
  CONSTRAINT uq_shipments_order_id UNIQUE (order_id)
);
