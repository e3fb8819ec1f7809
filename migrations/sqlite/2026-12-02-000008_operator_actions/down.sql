DROP TABLE IF EXISTS audit_events;
DROP INDEX IF EXISTS ix_operations_accepted;
ALTER TABLE operations DROP COLUMN last_error;
