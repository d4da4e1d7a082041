-- Faster imports.
--
-- 1. Question keys become a 22-character digest of the folded question (server/samples/key.ts),
--    computed here by the function the migration runner registers. The unique index over
--    (dataset_id, question_key) then holds short keys instead of whole questions.
UPDATE sample SET question_key = goldset_question_key(question);

-- 2. The trigram index is filled in the background for rows added in bulk. Invariant: every
--    sample with id <= indexed_upto is in sample_fts with its current text, no other sample is.
--    Search matches rows above indexed_upto by scanning them (server/samples/queries.ts).
--    An import sets `deferring` for the length of its transaction so that its rows are left to
--    the background indexer (server/samples/search-index.ts).
CREATE TABLE search_index_state (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  indexed_upto INTEGER NOT NULL,
  deferring    INTEGER NOT NULL DEFAULT 0 CHECK (deferring IN (0, 1))
) STRICT;
INSERT INTO search_index_state (id, indexed_upto) SELECT 1, coalesce(max(id), 0) FROM sample;

DROP TRIGGER sample_fts_insert;
DROP TRIGGER sample_fts_delete;
DROP TRIGGER sample_fts_update;
-- A row at or below the mark (an id reused after a delete) is always indexed at once; the row
-- right after the mark is indexed at once and moves the mark, unless an import is deferring.
CREATE TRIGGER sample_fts_insert AFTER INSERT ON sample
  WHEN new.id <= (SELECT indexed_upto + 1 - deferring FROM search_index_state) BEGIN
  INSERT INTO sample_fts (rowid, question, ground_truth, notes) VALUES (new.id, new.question, new.ground_truth, new.notes);
  UPDATE search_index_state SET indexed_upto = new.id WHERE indexed_upto < new.id;
END;
CREATE TRIGGER sample_fts_delete AFTER DELETE ON sample
  WHEN old.id <= (SELECT indexed_upto FROM search_index_state) BEGIN
  INSERT INTO sample_fts (sample_fts, rowid, question, ground_truth, notes) VALUES ('delete', old.id, old.question, old.ground_truth, old.notes);
END;
CREATE TRIGGER sample_fts_update AFTER UPDATE OF question, ground_truth, notes ON sample
  WHEN old.id <= (SELECT indexed_upto FROM search_index_state) BEGIN
  INSERT INTO sample_fts (sample_fts, rowid, question, ground_truth, notes) VALUES ('delete', old.id, old.question, old.ground_truth, old.notes);
  INSERT INTO sample_fts (rowid, question, ground_truth, notes) VALUES (new.id, new.question, new.ground_truth, new.notes);
END;

-- 3. Imports stage their rows in a per-import TEMP table now (no write-ahead log traffic).
DROP TABLE import_staging;
