-- Long-running operations (contract §7): one row per accepted capture, worked by one
-- leaseholder at a time. generation counts owners; every worker write is conditional on
-- it. The partial unique index lets one pending or succeeded capture exist per order.
CREATE TABLE operations (
  id BLOB NOT NULL PRIMARY KEY CHECK (length(id) = 16),
  operation_type BLOB NOT NULL,
  tenant_id BIGINT NOT NULL,
  order_id BIGINT NOT NULL,
  amount INTEGER NOT NULL CHECK (amount BETWEEN 1 AND 10000000),
  currency BLOB NOT NULL CHECK (length(currency) = 3),
  downstream_key BLOB NOT NULL,
  state TEXT NOT NULL,
  generation BIGINT NOT NULL DEFAULT 0,
  lease_owner BLOB NULL,
  lease_expires_at TIMESTAMP NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMP NOT NULL,
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  CONSTRAINT uq_operations_downstream_key UNIQUE (downstream_key)
);
CREATE UNIQUE INDEX uq_operations_active_order ON operations (tenant_id, order_id)
  WHERE state IN ('PENDING', 'SUCCEEDED');
CREATE INDEX ix_operations_due ON operations (state, next_attempt_at);

-- The business write of a successful capture: at most one per operation.
CREATE TABLE payments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  operation_id BLOB NOT NULL,
  tenant_id BIGINT NOT NULL,
  order_id BIGINT NOT NULL,
  provider_charge_id BLOB NOT NULL,
  amount INTEGER NOT NULL,
  currency BLOB NOT NULL,
  created_at TIMESTAMP NOT NULL,
  CONSTRAINT uq_payments_operation UNIQUE (operation_id)
);
