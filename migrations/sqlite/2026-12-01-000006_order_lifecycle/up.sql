-- An order's life: ACTIVE from its creation, CANCELLED for good by orders.cancel.v1
-- (cancelled_at and the caller's cancel_reason, UTF-8, set then). revision counts the
-- changes that concern the order: 1 at its creation, one more for each capture accepted
-- and for its cancel; the order's events carry it as their sequence.
ALTER TABLE orders ADD COLUMN status TEXT NOT NULL DEFAULT 'ACTIVE'
  CHECK (status IN ('ACTIVE', 'CANCELLED'));
ALTER TABLE orders ADD COLUMN cancelled_at TIMESTAMP NULL;
ALTER TABLE orders ADD COLUMN cancel_reason BLOB NULL
  CHECK (cancel_reason IS NULL OR length(cancel_reason) BETWEEN 1 AND 800);
ALTER TABLE orders ADD COLUMN revision BIGINT NOT NULL DEFAULT 1;

-- Events of one thing (ordering_key, e.g. orders/42) are relayed in ordering_seq order:
-- the index finds a key's earliest pending event. Rows written before have no key.
ALTER TABLE outbox ADD COLUMN ordering_key BLOB NULL
  CHECK (ordering_key IS NULL OR length(ordering_key) BETWEEN 1 AND 64);
ALTER TABLE outbox ADD COLUMN ordering_seq BIGINT NULL;
CREATE INDEX ix_outbox_ordering ON outbox (ordering_key, published_at, ordering_seq);

-- A cancel looks for an order's pending or succeeded capture.
CREATE INDEX ix_operations_order ON operations (tenant_id, order_id);
