-- Runs can be archived: hidden from lists and default pickers, still readable (and still moving
-- data_version through the run triggers of 0011, which is harmless: archiving is rare).
ALTER TABLE run ADD COLUMN archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1));

-- Each held-out final check is a look at the held-out part of a dataset for one metric's prompts;
-- a second look spends it (the prompts may now be tuned to it), so every look is counted.
CREATE TABLE holdout_look (
  id             INTEGER PRIMARY KEY,
  dataset_id     INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  metric_key     TEXT NOT NULL,
  criterion_id   INTEGER NOT NULL REFERENCES criterion (id),
  run_id         INTEGER NOT NULL UNIQUE REFERENCES run (id) ON DELETE CASCADE,
  source_run_id  INTEGER REFERENCES run (id) ON DELETE SET NULL,
  created_by     INTEGER REFERENCES user (id),
  created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX holdout_look_metric ON holdout_look (dataset_id, metric_key, id);
