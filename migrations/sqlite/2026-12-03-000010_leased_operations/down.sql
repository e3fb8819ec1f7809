DROP INDEX IF EXISTS uq_operations_active_order;
CREATE UNIQUE INDEX uq_operations_active_order ON operations (tenant_id, order_id)
  WHERE state IN ('PENDING', 'SUCCEEDED');
ALTER TABLE operations DROP COLUMN input;
ALTER TABLE operations DROP COLUMN result;
