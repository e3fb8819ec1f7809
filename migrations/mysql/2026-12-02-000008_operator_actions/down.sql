DROP TABLE IF EXISTS audit_events;
DROP INDEX IF EXISTS ix_operations_accepted ON operations;
ALTER TABLE operations DROP COLUMN IF EXISTS last_error;
