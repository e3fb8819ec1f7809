-- Refunds (docs/long-running-operations.md#refunds). A payment keeps what its order's
-- refunds that are not declined add up to: an acceptance raises it only while it stays
-- within the amount, in one conditional UPDATE of the payment's row, found by its order.
ALTER TABLE payments ADD COLUMN refunded INTEGER NOT NULL DEFAULT 0;
CREATE INDEX ix_payments_order ON payments (tenant_id, order_id);

-- The business write of a successful refund: at most one per operation.
CREATE TABLE refunds (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  operation_id BLOB NOT NULL,
  tenant_id BIGINT NOT NULL,
  order_id BIGINT NOT NULL,
  provider_refund_id BLOB NOT NULL,
  amount INTEGER NOT NULL,
  currency BLOB NOT NULL,
  created_at TIMESTAMP NOT NULL,
  CONSTRAINT uq_refunds_operation UNIQUE (operation_id)
);
CREATE INDEX ix_refunds_order ON refunds (tenant_id, order_id);
