ALTER TABLE operations DROP INDEX IF EXISTS uq_operations_active_order;
ALTER TABLE operations DROP COLUMN IF EXISTS active_capture_order_id;
ALTER TABLE operations ADD COLUMN IF NOT EXISTS active_order_id BIGINT AS
  (IF(state IN ('PENDING', 'SUCCEEDED'), order_id, NULL)) PERSISTENT;
ALTER TABLE operations
  ADD UNIQUE KEY IF NOT EXISTS uq_operations_active_order (tenant_id, active_order_id);
ALTER TABLE operations DROP COLUMN IF EXISTS input, DROP COLUMN IF EXISTS result;
