DROP TABLE shipments;
DROP TABLE inbox;
