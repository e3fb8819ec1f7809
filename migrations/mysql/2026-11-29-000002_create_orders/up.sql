-- clientOrderRef is unique per tenant and outlives idempotency records: after a purge, a
-- late retry meets this index instead of creating a second order.
CREATE TABLE IF NOT EXISTS orders (
  id BIGINT NOT NULL AUTO_INCREMENT,
  tenant_id BIGINT NOT NULL,
  client_order_ref VARBINARY(64) NOT NULL,
  sku VARBINARY(64) NOT NULL,
  quantity SMALLINT NOT NULL,
  created_at DATETIME(6) NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uq_orders_tenant_client_order_ref (tenant_id, client_order_ref)
) ENGINE=InnoDB;
