-- The transactional outbox: one row per event, written in the transaction that made the
-- event (an order's creation), published to NATS JetStream afterwards by the relay.
-- published_at stays NULL until the broker acknowledged the event; attempts counts failed
-- publishes. The index serves the relay's claim (pending rows in id order) and the purge
-- (published rows by age).
CREATE TABLE IF NOT EXISTS outbox (
  id BIGINT NOT NULL AUTO_INCREMENT,
  event_id BINARY(16) NOT NULL,
  event_type VARBINARY(64) NOT NULL,
  tenant_id BIGINT NOT NULL,
  subject VARBINARY(255) NOT NULL,
  payload BLOB NOT NULL,
  created_at DATETIME(6) NOT NULL,
  published_at DATETIME(6) NULL,
  attempts INT NOT NULL DEFAULT 0,
  PRIMARY KEY (id),
  UNIQUE KEY uq_outbox_event_id (event_id),
  KEY ix_outbox_published_at (published_at, id)
) ENGINE=InnoDB;
