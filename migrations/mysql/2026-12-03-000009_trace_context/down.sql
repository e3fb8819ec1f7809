DROP TABLE IF EXISTS operation_traces;
ALTER TABLE outbox DROP COLUMN IF EXISTS trace_context;
