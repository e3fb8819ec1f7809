DROP TABLE payments;
DROP TABLE operations;
