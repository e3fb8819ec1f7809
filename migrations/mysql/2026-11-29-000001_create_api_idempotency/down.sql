DROP TABLE IF EXISTS api_idempotency;
