-- Leased operations of any kind (docs/long-running-operations.md), not captures only: each
-- row keeps its kind's job (input) and the result member its status read shows (result),
-- as JSON objects the kind writes. amount and currency stay for the rows written before;
-- nothing writes them any more.
ALTER TABLE operations
  ADD COLUMN IF NOT EXISTS input BLOB NULL,
  ADD COLUMN IF NOT EXISTS result BLOB NULL,
  MODIFY amount INT NULL,
  MODIFY currency VARBINARY(3) NULL;

-- Captures accepted before: their job was the amount and the currency, their result the
-- payment, if any.
UPDATE operations
  SET input = JSON_OBJECT('amount', amount, 'currency', CAST(currency AS CHAR CHARACTER SET utf8mb4))
  WHERE input IS NULL;
UPDATE operations o LEFT JOIN payments p ON p.operation_id = o.id
  SET o.result = IF(p.id IS NULL, '{"payment":null}', JSON_OBJECT('payment', JSON_OBJECT(
    'paymentId', CAST(p.id AS CHAR),
    'providerChargeId', CAST(p.provider_charge_id AS CHAR CHARACTER SET utf8mb4),
    'amount', p.amount,
    'currency', CAST(p.currency AS CHAR CHARACTER SET utf8mb4))))
  WHERE o.result IS NULL;
ALTER TABLE operations MODIFY input BLOB NOT NULL, MODIFY result BLOB NOT NULL;

-- One pending or succeeded capture per order is a rule of captures: other kinds of the
-- same order (a refund of it) do not count against it.
ALTER TABLE operations DROP INDEX IF EXISTS uq_operations_active_order;
ALTER TABLE operations DROP COLUMN IF EXISTS active_order_id;
ALTER TABLE operations ADD COLUMN IF NOT EXISTS active_capture_order_id BIGINT AS
  (IF(operation_type = 'payments.capture.v1' AND state IN ('PENDING', 'SUCCEEDED'), order_id, NULL))
  PERSISTENT;
ALTER TABLE operations
  ADD UNIQUE KEY IF NOT EXISTS uq_operations_active_order (tenant_id, active_capture_order_id);
