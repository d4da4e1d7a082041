-- Estimation samples: uniformly random draws of responses whose gold labels the true-score estimate
-- (prediction-powered inference) rests on; every draw recorded (who, when, seed, which items). Their
-- items go to the front of every labeller's queue, in the random order they were drawn.

CREATE TABLE estimation_sample (
  id           INTEGER PRIMARY KEY,
  dataset_id   INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  -- one system's responses, or NULL for every system's
  system       TEXT,
  -- the responses it is drawn from (its frame): those of its system with id <= frame_max_id at the first
  -- draw; extensions draw from the same frame, so every draw keeps the sample uniformly random
  frame_max_id INTEGER NOT NULL,
  created_by   INTEGER REFERENCES user (id),
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX estimation_sample_dataset ON estimation_sample (dataset_id, id);

-- One draw: the first one makes the sample, later ones extend it.
CREATE TABLE estimation_draw (
  id          INTEGER PRIMARY KEY,
  sample_id   INTEGER NOT NULL REFERENCES estimation_sample (id) ON DELETE CASCADE,
  seed        INTEGER NOT NULL CHECK (seed BETWEEN 0 AND 4294967295),
  requested   INTEGER NOT NULL CHECK (requested > 0),
  drawn       INTEGER NOT NULL CHECK (drawn >= 0),
  -- how many responses it could draw from
  frame_size  INTEGER NOT NULL,
  created_by  INTEGER REFERENCES user (id),
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX estimation_draw_sample ON estimation_draw (sample_id, id);

CREATE TABLE estimation_item (
  sample_id   INTEGER NOT NULL REFERENCES estimation_sample (id) ON DELETE CASCADE,
  response_id INTEGER NOT NULL REFERENCES response (id) ON DELETE CASCADE,
  draw_id     INTEGER NOT NULL REFERENCES estimation_draw (id) ON DELETE CASCADE,
  -- the order it was drawn in, within the sample (0-based)
  position    INTEGER NOT NULL,
  PRIMARY KEY (sample_id, response_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX estimation_item_response ON estimation_item (response_id);

-- The labelling queue: sampled responses first, fewest labels first and then in the order drawn
-- (queue_rank < 0, smaller first; a partial index over sampled rows only, so labelled ones are stepped
-- over by a range), then every other response (queue_rank = 0) fewest labels first as before.
ALTER TABLE response ADD COLUMN queue_rank INTEGER NOT NULL DEFAULT 0;
DROP INDEX response_queue;
CREATE INDEX response_queue ON response (dataset_id, queue_rank, n_submitted, id);
CREATE INDEX response_sampled_queue ON response (dataset_id, n_submitted, queue_rank) WHERE queue_rank < 0;

-- A recorded calibration keeps the true-score estimate of its criterion and run at the time.
ALTER TABLE calibration ADD COLUMN estimate TEXT CHECK (estimate IS NULL OR json_valid(estimate));

-- Drawing or extending a sample changes the estimate the analysis pages keep (migration 0011).
CREATE TRIGGER data_version_estimation_item_insert AFTER INSERT ON estimation_item BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = (SELECT dataset_id FROM estimation_sample WHERE id = new.sample_id);
END;
CREATE TRIGGER data_version_estimation_item_delete AFTER DELETE ON estimation_item BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = (SELECT dataset_id FROM estimation_sample WHERE id = old.sample_id);
END;
CREATE TRIGGER data_version_estimation_sample_insert AFTER INSERT ON estimation_sample BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = new.dataset_id;
END;
CREATE TRIGGER data_version_estimation_sample_delete AFTER DELETE ON estimation_sample BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = old.dataset_id;
END;
