-- The transactional outbox: one row per event, written in the transaction that made the
-- event (an order's creation), published to NATS JetStream afterwards by the relay.
-- published_at stays NULL until the broker acknowledged the event; attempts counts failed
-- publishes.
CREATE TABLE outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id BLOB NOT NULL CHECK (length(event_id) = 16),
  event_type BLOB NOT NULL CHECK (length(event_type) BETWEEN 1 AND 64),
  tenant_id BIGINT NOT NULL,
  subject BLOB NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
  payload BLOB NOT NULL,
  created_at TIMESTAMP NOT NULL,
  published_at TIMESTAMP NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  CONSTRAINT uq_outbox_event_id UNIQUE (event_id)
);
CREATE INDEX ix_outbox_published_at ON outbox (published_at, id);
