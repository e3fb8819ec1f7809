DROP INDEX ix_operations_order;
DROP INDEX ix_outbox_ordering;
ALTER TABLE outbox DROP COLUMN ordering_seq;
ALTER TABLE outbox DROP COLUMN ordering_key;
ALTER TABLE orders DROP COLUMN revision;
ALTER TABLE orders DROP COLUMN cancel_reason;
ALTER TABLE orders DROP COLUMN cancelled_at;
ALTER TABLE orders DROP COLUMN status;
