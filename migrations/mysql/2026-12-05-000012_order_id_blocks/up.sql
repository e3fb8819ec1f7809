-- Orders' ids are handed out in blocks (docs/storage.md#order-ids): each server process
-- reserves a block here and gives its ids to its creates, so a batch of creates knows
-- every order's id, and so every answer, before it writes its first row. `next_id` is
-- the first id no block has taken; it starts above every order already written.
CREATE TABLE IF NOT EXISTS id_blocks (
  name VARCHAR(32) NOT NULL,
  next_id BIGINT NOT NULL,
  PRIMARY KEY (name)
) ENGINE=InnoDB;

INSERT IGNORE INTO id_blocks (name, next_id)
  SELECT 'orders', COALESCE(MAX(id), 0) + 1 FROM orders;
