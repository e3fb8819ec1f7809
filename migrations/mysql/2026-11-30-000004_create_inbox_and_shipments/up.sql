-- The inbox: one row per (consumer, event) it has applied, written in the same
-- transaction as the consumer's own write, so a redelivered event changes nothing.
CREATE TABLE IF NOT EXISTS inbox (
  consumer VARBINARY(64) NOT NULL,
  event_id BINARY(16) NOT NULL,
  received_at DATETIME(6) NOT NULL,
  PRIMARY KEY (consumer, event_id)
) ENGINE=InnoDB;

-- The shipments consumer's own table: one shipment per order, whatever the deliveries.
CREATE TABLE IF NOT EXISTS shipments (
  id BIGINT NOT NULL AUTO_INCREMENT,
  order_id BIGINT NOT NULL,
  tenant_id BIGINT NOT NULL,
  sku VARBINARY(64) NOT NULL,
  quantity SMALLINT NOT NULL,
  state VARCHAR(16) NOT NULL,
  event_id BINARY(16) NOT NULL,
  created_at DATETIME(6) NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uq_shipments_order_id (order_id)
) ENGINE=InnoDB;
