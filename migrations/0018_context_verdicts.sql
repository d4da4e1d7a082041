-- Reviewers' verdicts on single retrieved contexts: where the judge's verdict on a context (the verify
-- step of context_precision) and the experts' gold value of a per-context criterion differ. Kept apart
-- from review_verdict, whose key is one response. Like review_verdict since 0012, a verdict does not
-- move dataset.data_version: nothing kept by the server reads them. `version` is what a verdict form
-- carries, so two reviewers never overwrite each other silently.
CREATE TABLE context_verdict (
  id            INTEGER PRIMARY KEY,
  dataset_id    INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  run_id        INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
  response_id   INTEGER NOT NULL REFERENCES response (id) ON DELETE CASCADE,
  criterion_id  INTEGER NOT NULL REFERENCES criterion (id) ON DELETE CASCADE,
  context_index INTEGER NOT NULL CHECK (context_index >= 0),
  verdict       TEXT NOT NULL CHECK (verdict IN ('judge_right', 'expert_right', 'ambiguous')),
  note          TEXT NOT NULL DEFAULT '',
  reviewer_id   INTEGER NOT NULL REFERENCES user (id),
  version       INTEGER NOT NULL DEFAULT 1,
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (run_id, criterion_id, response_id, context_index)
) STRICT;
