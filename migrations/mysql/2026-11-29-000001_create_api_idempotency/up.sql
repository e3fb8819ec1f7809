-- One row per (tenant, actor, operation, key). The composite UNIQUE index is the only
-- judge of which request runs first; every column is NOT NULL so no NULL slips past it.
-- Keys are VARBINARY: compared byte for byte, never by a collation's case or pad rules.
CREATE TABLE IF NOT EXISTS api_idempotency (
  id BIGINT NOT NULL AUTO_INCREMENT,
  tenant_id BIGINT NOT NULL,
  actor_id BIGINT NOT NULL,
  operation VARBINARY(64) NOT NULL,
  idempotency_key VARBINARY(128) NOT NULL,
  fingerprint_version SMALLINT NOT NULL,
  request_hash BINARY(32) NOT NULL,
  state VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  response_status SMALLINT NULL,
  response_content_type VARCHAR(128) NULL,
  response_location VARCHAR(512) NULL,
  response_body MEDIUMBLOB NULL,
  created_at DATETIME(6) NOT NULL,
  completed_at DATETIME(6) NULL,
  expires_at DATETIME(6) NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uq_api_idempotency_scope_key
    (tenant_id, actor_id, operation, idempotency_key),
  KEY ix_api_idempotency_expiry (expires_at)
) ENGINE=InnoDB;
