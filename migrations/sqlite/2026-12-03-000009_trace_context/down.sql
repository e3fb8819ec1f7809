DROP TABLE IF EXISTS operation_traces;
ALTER TABLE outbox DROP COLUMN trace_context;
