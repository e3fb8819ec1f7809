-- The trace of the request that wrote a row, as its W3C `traceparent` (docs/tracing.md):
-- the relay publishes an event in that trace, and a worker's attempts on an operation
-- continue it. NULL, or no row, when tracing was off. An operation's trace has a table
-- of its own, written only while tracing is on.
ALTER TABLE outbox ADD COLUMN trace_context TEXT NULL CHECK (length(trace_context) <= 55);
CREATE TABLE operation_traces (
  operation_id BLOB NOT NULL PRIMARY KEY REFERENCES operations (id),
  trace_context TEXT NOT NULL CHECK (length(trace_context) <= 55)
);
