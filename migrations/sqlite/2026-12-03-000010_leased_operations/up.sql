-- Leased operations of any kind (docs/long-running-operations.md), not captures only: each
-- row keeps its kind's job (input) and the result member its status read shows (result),
-- as JSON objects the kind writes. amount and currency stay for the rows written before;
-- nothing writes them any more. SQLite cannot drop a NOT NULL, so the table is rebuilt:
-- the migrations' connection does not enforce foreign keys, so operation_traces, which
-- refers to the table by name, refers to the rebuilt one.
CREATE TABLE operations_next (
  id BLOB NOT NULL PRIMARY KEY CHECK (length(id) = 16),
  operation_type BLOB NOT NULL,
  tenant_id BIGINT NOT NULL,
  order_id BIGINT NOT NULL,
  amount INTEGER NULL,
  currency BLOB NULL,
  input BLOB NOT NULL,
  result BLOB NOT NULL,
  downstream_key BLOB NOT NULL,
  state TEXT NOT NULL,
  generation BIGINT NOT NULL DEFAULT 0,
  lease_owner BLOB NULL,
  lease_expires_at TIMESTAMP NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMP NOT NULL,
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  last_error TEXT NULL,
  CONSTRAINT uq_operations_downstream_key UNIQUE (downstream_key)
);

-- Captures accepted before: their job was the amount and the currency, their result the
-- payment, if any.
INSERT INTO operations_next (id, operation_type, tenant_id, order_id, amount, currency, input,
    result, downstream_key, state, generation, lease_owner, lease_expires_at, attempts,
    next_attempt_at, created_at, updated_at, last_error)
  SELECT o.id, o.operation_type, o.tenant_id, o.order_id, o.amount, o.currency,
    json_object('amount', o.amount, 'currency', CAST(o.currency AS TEXT)),
    CASE WHEN p.id IS NULL THEN '{"payment":null}'
      ELSE json_object('payment', json_object(
        'paymentId', CAST(p.id AS TEXT),
        'providerChargeId', CAST(p.provider_charge_id AS TEXT),
        'amount', p.amount,
        'currency', CAST(p.currency AS TEXT)))
    END,
    o.downstream_key, o.state, o.generation, o.lease_owner, o.lease_expires_at, o.attempts,
    o.next_attempt_at, o.created_at, o.updated_at, o.last_error
  FROM operations o LEFT JOIN payments p ON p.operation_id = o.id;
DROP TABLE operations;
ALTER TABLE operations_next RENAME TO operations;

-- One pending or succeeded capture per order is a rule of captures: other kinds of the
-- same order (a refund of it) do not count against it. The type is a BLOB: so is the
-- literal it is compared with ('payments.capture.v1').
CREATE UNIQUE INDEX uq_operations_active_order ON operations (tenant_id, order_id)
  WHERE operation_type = X'7061796d656e74732e636170747572652e7631'
    AND state IN ('PENDING', 'SUCCEEDED');
CREATE INDEX ix_operations_due ON operations (state, next_attempt_at);
CREATE INDEX ix_operations_order ON operations (tenant_id, order_id);
CREATE INDEX ix_operations_accepted ON operations (created_at, id);
