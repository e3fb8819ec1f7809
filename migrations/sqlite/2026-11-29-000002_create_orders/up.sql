-- clientOrderRef is unique per tenant and outlives idempotency records: after a purge, a
-- late retry meets this constraint instead of creating a second order.
CREATE TABLE orders (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id BIGINT NOT NULL,
  client_order_ref BLOB NOT NULL CHECK (length(client_order_ref) BETWEEN 1 AND 64),
  sku BLOB NOT NULL CHECK (length(sku) BETWEEN 1 AND 64),
  quantity SMALLINT NOT NULL CHECK (quantity BETWEEN 1 AND 100),
  created_at TIMESTAMP NOT NULL,
  CONSTRAINT uq_orders_tenant_client_order_ref UNIQUE (tenant_id, client_order_ref)
);
