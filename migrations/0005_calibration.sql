-- Calibration: recorded reports (what the CI gate reads), reviewers' verdicts on judge/expert disagreements.

-- A calibration as recorded: one criterion against one metric's scores from one run, on a part of the holdout split.
CREATE TABLE calibration (
  id           INTEGER PRIMARY KEY,
  dataset_id   INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  criterion_id INTEGER NOT NULL REFERENCES criterion (id) ON DELETE CASCADE,
  run_id       INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
  metric_key   TEXT NOT NULL,
  part         TEXT NOT NULL CHECK (part IN ('all', 'calibration', 'held_out')),
  threshold    REAL NOT NULL,
  -- the figure the gate compares with its minimum: kappa for binary/categorical/ordinal on the same scale, else Spearman's rho
  strength     REAL,
  strength_name TEXT NOT NULL,
  report       TEXT NOT NULL CHECK (json_valid(report)),
  item_ids     TEXT NOT NULL CHECK (json_valid(item_ids)),
  created_by   INTEGER REFERENCES user (id),
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX calibration_metric ON calibration (dataset_id, metric_key, id);

-- A reviewer's verdict on one item where judge and experts disagree.
CREATE TABLE review_verdict (
  id           INTEGER PRIMARY KEY,
  dataset_id   INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  run_id       INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
  response_id  INTEGER NOT NULL REFERENCES response (id) ON DELETE CASCADE,
  criterion_id INTEGER NOT NULL REFERENCES criterion (id) ON DELETE CASCADE,
  verdict      TEXT NOT NULL CHECK (verdict IN ('judge_right', 'expert_right', 'ambiguous')),
  note         TEXT NOT NULL DEFAULT '',
  reviewer_id  INTEGER NOT NULL REFERENCES user (id),
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (run_id, response_id, criterion_id)
) STRICT;
CREATE INDEX review_verdict_run ON review_verdict (run_id, criterion_id);
