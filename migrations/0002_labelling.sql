-- Responses of systems under test, criteria, expert labels, adjudications, labelling queues, API tokens.

ALTER TABLE dataset ADD COLUMN overlap INTEGER NOT NULL DEFAULT 1 CHECK (overlap BETWEEN 1 AND 5);
-- Label slots filled so far: sum over responses of min(submitted annotations, overlap).
ALTER TABLE dataset ADD COLUMN slots_filled INTEGER NOT NULL DEFAULT 0;

-- Who may label / adjudicate in a dataset. With no labellers listed, every expert may label.
CREATE TABLE dataset_member (
  dataset_id      INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  user_id         INTEGER NOT NULL REFERENCES user (id),
  can_label       INTEGER NOT NULL DEFAULT 1 CHECK (can_label IN (0, 1)),
  can_adjudicate  INTEGER NOT NULL DEFAULT 0 CHECK (can_adjudicate IN (0, 1)),
  PRIMARY KEY (dataset_id, user_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE response (
  id                 INTEGER PRIMARY KEY,
  sample_id          INTEGER NOT NULL REFERENCES sample (id) ON DELETE CASCADE,
  dataset_id         INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  system             TEXT NOT NULL DEFAULT '',
  answer             TEXT NOT NULL,
  retrieved_contexts TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(retrieved_contexts) AND json_type(retrieved_contexts) = 'array'),
  metadata           TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
  -- sha256 of system, answer and contexts: the same response is never stored twice for a sample
  content_hash       TEXT NOT NULL,
  n_submitted        INTEGER NOT NULL DEFAULT 0,
  created_by         INTEGER REFERENCES user (id),
  created_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (sample_id, content_hash)
) STRICT;
CREATE INDEX response_queue ON response (dataset_id, n_submitted, id);
CREATE INDEX response_sample ON response (sample_id);

CREATE TABLE criterion (
  id          INTEGER PRIMARY KEY,
  dataset_id  INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  name        TEXT NOT NULL COLLATE NOCASE,
  kind        TEXT NOT NULL CHECK (kind IN ('binary', 'categorical', 'ordinal', 'numeric')),
  target      TEXT NOT NULL CHECK (target IN ('response', 'context')),
  -- binary/categorical: [{"value": "...", "label": "..."}]; key i+1 picks option i
  options     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(options) AND json_type(options) = 'array'),
  scale_min   INTEGER,
  scale_max   INTEGER,
  guidelines  TEXT NOT NULL DEFAULT '',
  position    INTEGER NOT NULL DEFAULT 0,
  archived    INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (dataset_id, name),
  CHECK (kind <> 'ordinal' OR (scale_min IS NOT NULL AND scale_max IS NOT NULL AND scale_min < scale_max))
) STRICT;

-- One expert's work on one response: the values for every criterion live in `label`.
CREATE TABLE annotation (
  id               INTEGER PRIMARY KEY,
  response_id      INTEGER NOT NULL REFERENCES response (id) ON DELETE CASCADE,
  dataset_id       INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  annotator_id     INTEGER NOT NULL REFERENCES user (id),
  state            TEXT NOT NULL CHECK (state IN ('draft', 'submitted')),
  rationale        TEXT NOT NULL DEFAULT '',
  corrected_answer TEXT NOT NULL DEFAULT '',
  version          INTEGER NOT NULL DEFAULT 1,
  created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  submitted_at     TEXT,
  UNIQUE (response_id, annotator_id)
) STRICT;
CREATE INDEX annotation_annotator ON annotation (annotator_id, dataset_id, state);

CREATE TABLE label (
  annotation_id  INTEGER NOT NULL REFERENCES annotation (id) ON DELETE CASCADE,
  criterion_id   INTEGER NOT NULL REFERENCES criterion (id),
  -- -1 for a criterion about the whole response; otherwise the rank (0-based) of the retrieved context
  context_index  INTEGER NOT NULL DEFAULT -1 CHECK (context_index >= -1),
  value          TEXT NOT NULL,
  PRIMARY KEY (annotation_id, criterion_id, context_index)
) STRICT, WITHOUT ROWID;
CREATE INDEX label_criterion ON label (criterion_id);

CREATE TABLE adjudication (
  id             INTEGER PRIMARY KEY,
  response_id    INTEGER NOT NULL REFERENCES response (id) ON DELETE CASCADE,
  criterion_id   INTEGER NOT NULL REFERENCES criterion (id),
  context_index  INTEGER NOT NULL DEFAULT -1 CHECK (context_index >= -1),
  value          TEXT NOT NULL,
  reason         TEXT NOT NULL,
  adjudicator_id INTEGER NOT NULL REFERENCES user (id),
  version        INTEGER NOT NULL DEFAULT 1,
  created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (response_id, criterion_id, context_index)
) STRICT;

-- A label can never point at a context the response does not have.
CREATE TRIGGER label_context_in_range BEFORE INSERT ON label
WHEN new.context_index >= 0 AND new.context_index >= (
  SELECT json_array_length(r.retrieved_contexts) FROM annotation a JOIN response r ON r.id = a.response_id WHERE a.id = new.annotation_id)
BEGIN
  SELECT RAISE(ABORT, 'label context_index out of range');
END;

CREATE TABLE api_token (
  id           INTEGER PRIMARY KEY,
  user_id      INTEGER NOT NULL REFERENCES user (id),
  name         TEXT NOT NULL,
  token_hash   TEXT NOT NULL UNIQUE,
  prefix       TEXT NOT NULL,
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  last_used_at TEXT,
  revoked_at   TEXT
) STRICT;
CREATE INDEX api_token_user ON api_token (user_id);
