-- Refunds (docs/long-running-operations.md#refunds). A payment keeps what its order's
-- refunds that are not declined add up to: an acceptance raises it only while it stays
-- within the amount, in one conditional UPDATE of the payment's row, found by its order.
ALTER TABLE payments ADD COLUMN IF NOT EXISTS refunded INT NOT NULL DEFAULT 0;
ALTER TABLE payments ADD INDEX IF NOT EXISTS ix_payments_order (tenant_id, order_id);

-- The business write of a successful refund: at most one per operation.
CREATE TABLE IF NOT EXISTS refunds (
  id BIGINT NOT NULL AUTO_INCREMENT,
  operation_id BINARY(16) NOT NULL,
  tenant_id BIGINT NOT NULL,
  order_id BIGINT NOT NULL,
  provider_refund_id VARBINARY(128) NOT NULL,
  amount INT NOT NULL,
  currency VARBINARY(3) NOT NULL,
  created_at DATETIME(6) NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uq_refunds_operation (operation_id),
  KEY ix_refunds_order (tenant_id, order_id)
) ENGINE=InnoDB;
