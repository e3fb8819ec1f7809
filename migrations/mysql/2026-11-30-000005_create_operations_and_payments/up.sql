-- Long-running operations (contract §7): one row per accepted capture, worked by one
-- leaseholder at a time. generation counts owners; every worker write is conditional on
-- it. active_order_id is the order while a capture of it is pending or succeeded, else
-- NULL: its unique key lets one such capture exist per order (NULLs never collide).
CREATE TABLE IF NOT EXISTS operations (
  id BINARY(16) NOT NULL,
  operation_type VARBINARY(64) NOT NULL,
  tenant_id BIGINT NOT NULL,
  order_id BIGINT NOT NULL,
  amount INT NOT NULL,
  currency VARBINARY(3) NOT NULL,
  downstream_key VARBINARY(64) NOT NULL,
  state VARCHAR(16) NOT NULL,
  generation BIGINT NOT NULL DEFAULT 0,
  lease_owner VARBINARY(64) NULL,
  lease_expires_at DATETIME(6) NULL,
  attempts INT NOT NULL DEFAULT 0,
  next_attempt_at DATETIME(6) NOT NULL,
  created_at DATETIME(6) NOT NULL,
  updated_at DATETIME(6) NOT NULL,
  active_order_id BIGINT AS (IF(state IN ('PENDING', 'SUCCEEDED'), order_id, NULL)) PERSISTENT,
  PRIMARY KEY (id),
  UNIQUE KEY uq_operations_downstream_key (downstream_key),
  UNIQUE KEY uq_operations_active_order (tenant_id, active_order_id),
  KEY ix_operations_due (state, next_attempt_at)
) ENGINE=InnoDB;

-- The business write of a successful capture: at most one per operation.
CREATE TABLE IF NOT EXISTS payments (
  id BIGINT NOT NULL AUTO_INCREMENT,
  operation_id BINARY(16) NOT NULL,
  tenant_id BIGINT NOT NULL,
  order_id BIGINT NOT NULL,
  provider_charge_id VARBINARY(128) NOT NULL,
  amount INT NOT NULL,
  currency VARBINARY(3) NOT NULL,
  created_at DATETIME(6) NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uq_payments_operation (operation_id)
) ENGINE=InnoDB;
