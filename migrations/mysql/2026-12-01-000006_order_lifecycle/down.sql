ALTER TABLE operations DROP INDEX IF EXISTS ix_operations_order;
ALTER TABLE outbox
  DROP INDEX IF EXISTS ix_outbox_ordering,
  DROP COLUMN IF EXISTS ordering_seq,
  DROP COLUMN IF EXISTS ordering_key;
ALTER TABLE orders
  DROP COLUMN IF EXISTS revision,
  DROP COLUMN IF EXISTS cancel_reason,
  DROP COLUMN IF EXISTS cancelled_at,
  DROP COLUMN IF EXISTS status;
