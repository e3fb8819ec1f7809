DROP TABLE refunds;
DROP INDEX ix_payments_order;
ALTER TABLE payments DROP COLUMN refunded;
