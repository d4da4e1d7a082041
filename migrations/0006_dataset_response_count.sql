-- A running count of each dataset's responses: the labelling progress bar reads it on every item
-- instead of counting 100,000 rows each time.
ALTER TABLE dataset ADD COLUMN n_responses INTEGER NOT NULL DEFAULT 0;
UPDATE dataset SET n_responses = (SELECT count(*) FROM response r WHERE r.dataset_id = dataset.id);
CREATE TRIGGER response_count_insert AFTER INSERT ON response BEGIN
  UPDATE dataset SET n_responses = n_responses + 1 WHERE id = new.dataset_id;
END;
CREATE TRIGGER response_count_delete AFTER DELETE ON response BEGIN
  UPDATE dataset SET n_responses = n_responses - 1 WHERE id = old.dataset_id;
END;
