-- The embedded store's record table: the same columns and guarantees as the MySQL one.
-- The UNIQUE constraint is the only judge of which request runs first; keys are BLOBs,
-- compared byte for byte; CHECKs say what MySQL's column widths say.
CREATE TABLE api_idempotency (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id BIGINT NOT NULL,
  actor_id BIGINT NOT NULL,
  operation BLOB NOT NULL CHECK (length(operation) BETWEEN 1 AND 64),
  idempotency_key BLOB NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 128),
  fingerprint_version SMALLINT NOT NULL,
  request_hash BLOB NOT NULL CHECK (length(request_hash) = 32),
  state TEXT NOT NULL CHECK (state IN ('PROCESSING', 'COMPLETED')),
  response_status SMALLINT NULL,
  response_content_type TEXT NULL,
  response_location TEXT NULL,
  response_body BLOB NULL,
  created_at TIMESTAMP NOT NULL,
  completed_at TIMESTAMP NULL,
  expires_at TIMESTAMP NULL,
  CONSTRAINT uq_api_idempotency_scope_key
    UNIQUE (tenant_id, actor_id, operation, idempotency_key)
);
CREATE INDEX ix_api_idempotency_expiry ON api_idempotency (expires_at);
