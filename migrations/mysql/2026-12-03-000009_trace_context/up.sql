-- The trace of the request that wrote a row, as its W3C `traceparent` (docs/tracing.md):
-- the relay publishes an event in that trace, and a worker's attempts on an operation
-- continue it. NULL, or no row, when tracing was off. An operation's trace has a table
-- of its own, written only while tracing is on.
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS trace_context VARCHAR(55) CHARACTER SET ascii NULL;
CREATE TABLE IF NOT EXISTS operation_traces (
  operation_id BINARY(16) NOT NULL,
  trace_context VARCHAR(55) CHARACTER SET ascii NOT NULL,
  PRIMARY KEY (operation_id),
  CONSTRAINT fk_operation_traces_operation FOREIGN KEY (operation_id) REFERENCES operations (id)
) ENGINE=InnoDB;
