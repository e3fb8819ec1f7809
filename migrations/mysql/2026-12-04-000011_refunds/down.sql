DROP TABLE IF EXISTS refunds;
ALTER TABLE payments DROP INDEX IF EXISTS ix_payments_order;
ALTER TABLE payments DROP COLUMN IF EXISTS refunded;
