-- An order's life: ACTIVE from its creation, CANCELLED for good by orders.cancel.v1
-- (cancelled_at and the caller's cancel_reason, UTF-8, set then). revision counts the
-- changes that concern the order: 1 at its creation, one more for each capture accepted
-- and for its cancel. A cancel and a capture both write the row, so they never both
-- commit, on one server or across Galera nodes. The order's events carry the revision as
-- their sequence.
ALTER TABLE orders
  ADD COLUMN IF NOT EXISTS status VARCHAR(16) NOT NULL DEFAULT 'ACTIVE',
  ADD COLUMN IF NOT EXISTS cancelled_at DATETIME(6) NULL,
  ADD COLUMN IF NOT EXISTS cancel_reason VARBINARY(800) NULL,
  ADD COLUMN IF NOT EXISTS revision BIGINT NOT NULL DEFAULT 1;

-- Events of one thing (ordering_key, e.g. orders/42) are relayed in ordering_seq order:
-- the index finds a key's earliest pending event. Rows written before have no key.
ALTER TABLE outbox
  ADD COLUMN IF NOT EXISTS ordering_key VARBINARY(64) NULL,
  ADD COLUMN IF NOT EXISTS ordering_seq BIGINT NULL,
  ADD INDEX IF NOT EXISTS ix_outbox_ordering (ordering_key, published_at, ordering_seq);

-- A cancel looks for an order's pending or succeeded capture.
ALTER TABLE operations ADD INDEX IF NOT EXISTS ix_operations_order (tenant_id, order_id);
