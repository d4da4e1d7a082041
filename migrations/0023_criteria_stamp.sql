-- Every labelling request reads its dataset's criteria, which change rarely: the server keeps each
-- dataset's list (criteria/queries.ts, forDatasetRow) under `criteria_stamp`, which every change of
-- the dataset's criteria sets to a new random value, from any connection or process. Random, not
-- counted up: a list may be read inside a transaction that later rolls back (the group commit's), and
-- a counter rolled back with it would be counted up again to the same value for other criteria.
-- Shifted to 53 bits, which a JavaScript number holds exactly.
ALTER TABLE dataset ADD COLUMN criteria_stamp INTEGER NOT NULL DEFAULT 0;

DROP TRIGGER data_version_criterion_insert;
DROP TRIGGER data_version_criterion_update;
DROP TRIGGER data_version_criterion_delete;
CREATE TRIGGER data_version_criterion_insert AFTER INSERT ON criterion BEGIN
  UPDATE dataset SET data_version = data_version + 1, criteria_stamp = random() >> 11 WHERE id = new.dataset_id;
END;
CREATE TRIGGER data_version_criterion_update AFTER UPDATE ON criterion BEGIN
  UPDATE dataset SET data_version = data_version + 1, criteria_stamp = random() >> 11 WHERE id IN (old.dataset_id, new.dataset_id);
END;
CREATE TRIGGER data_version_criterion_delete AFTER DELETE ON criterion BEGIN
  UPDATE dataset SET data_version = data_version + 1, criteria_stamp = random() >> 11 WHERE id = old.dataset_id;
END;
