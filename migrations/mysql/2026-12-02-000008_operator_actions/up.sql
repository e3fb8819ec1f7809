-- What people on call need (docs/admin.md): why an operation's last attempt failed, a
-- newest-first listing, and a record of every change an operator made. A cancelled
-- operation (state CANCELLED) frees its order as a declined one does: active_order_id
-- already holds the order only while PENDING or SUCCEEDED.
ALTER TABLE operations ADD COLUMN IF NOT EXISTS last_error VARCHAR(32) NULL;
CREATE INDEX IF NOT EXISTS ix_operations_accepted ON operations (created_at, id);

-- One row per operator write, in the same transaction as the change. Who: the token's
-- tenant and actor over HTTP, or the operator named on the command line.
CREATE TABLE IF NOT EXISTS audit_events (
  id BIGINT NOT NULL AUTO_INCREMENT,
  occurred_at DATETIME(6) NOT NULL,
  actor_tenant_id BIGINT NULL,
  actor_id BIGINT NULL,
  operator VARBINARY(128) NULL,
  action VARCHAR(32) NOT NULL,
  target_type VARCHAR(32) NOT NULL,
  target_id VARBINARY(255) NOT NULL,
  target_tenant_id BIGINT NOT NULL,
  state_before VARCHAR(16) NOT NULL,
  state_after VARCHAR(16) NOT NULL,
  request_id VARBINARY(64) NOT NULL,
  PRIMARY KEY (id),
  KEY ix_audit_events_tenant (target_tenant_id, id)
) ENGINE=InnoDB;
