DROP TABLE api_idempotency;
