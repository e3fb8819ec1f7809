ALTER TABLE shipments DROP COLUMN order_sequence;
