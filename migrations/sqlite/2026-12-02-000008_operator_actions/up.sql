-- What people on call need (docs/admin.md): why an operation's last attempt failed, a
-- newest-first listing, and a record of every change an operator made. A cancelled
-- operation (state CANCELLED) frees its order as a declined one does: the partial unique
-- index covers only PENDING and SUCCEEDED.
ALTER TABLE operations ADD COLUMN last_error TEXT NULL;
CREATE INDEX ix_operations_accepted ON operations (created_at, id);

-- One row per operator write, in the same transaction as the change. Who: the token's
-- tenant and actor over HTTP, or the operator named on the command line.
CREATE TABLE audit_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  occurred_at TIMESTAMP NOT NULL,
  actor_tenant_id BIGINT NULL,
  actor_id BIGINT NULL,
  operator BLOB NULL,
  action TEXT NOT NULL,
  target_type TEXT NOT NULL,
  target_id BLOB NOT NULL,
  target_tenant_id BIGINT NOT NULL,
  state_before TEXT NOT NULL,
  state_after TEXT NOT NULL,
  request_id BLOB NOT NULL
);
CREATE INDEX ix_audit_events_tenant ON audit_events (target_tenant_id, id);
