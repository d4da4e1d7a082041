-- A dataset's settings of a built-in metric (today: answer_relevancy's non-committal rule, Ragas 0.4's
-- 'all' by default or Ragas ≤0.3's 'any'). Runs record the settings they were scored with.
CREATE TABLE metric_setting (
  dataset_id  INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  metric_key  TEXT NOT NULL,
  settings    TEXT NOT NULL CHECK (json_valid(settings)),
  -- every change carries the version it read; a stale one is refused
  version     INTEGER NOT NULL DEFAULT 1,
  updated_by  INTEGER REFERENCES user (id),
  updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (dataset_id, metric_key)
) STRICT;
