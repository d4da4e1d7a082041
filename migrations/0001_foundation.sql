-- Foundation: accounts, sessions, datasets, samples with revisions and full-text search, audit log.

CREATE TABLE setting (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE user (
  id            INTEGER PRIMARY KEY,
  email         TEXT NOT NULL COLLATE NOCASE UNIQUE,
  name          TEXT NOT NULL DEFAULT '',
  role          TEXT NOT NULL CHECK (role IN ('admin', 'expert', 'viewer')),
  password_hash TEXT,
  disabled      INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
  locale        TEXT CHECK (locale IN ('en', 'zh')),
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

-- An invitation is a one-time link an admin hands to a new user; only its hash is stored.
CREATE TABLE invite (
  id         INTEGER PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES user (id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER
) STRICT;

CREATE TABLE session (
  sid        TEXT PRIMARY KEY,
  data       TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX session_expires ON session (expires_at);

CREATE TABLE login_failure (
  id    INTEGER PRIMARY KEY,
  email TEXT NOT NULL COLLATE NOCASE,
  ip    TEXT NOT NULL,
  at    INTEGER NOT NULL
) STRICT;
CREATE INDEX login_failure_email ON login_failure (email, at);
CREATE INDEX login_failure_ip ON login_failure (ip, at);

CREATE TABLE dataset (
  id           INTEGER PRIMARY KEY,
  name         TEXT NOT NULL COLLATE NOCASE UNIQUE,
  description  TEXT NOT NULL DEFAULT '',
  language     TEXT NOT NULL CHECK (language IN ('zh', 'en')),
  domain       TEXT NOT NULL DEFAULT '',
  archived     INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
  holdout_seed INTEGER NOT NULL,
  created_by   INTEGER REFERENCES user (id),
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

CREATE TABLE sample (
  id                 INTEGER PRIMARY KEY,
  dataset_id         INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  -- question with whitespace folded: what makes two rows "the same question" on import
  question_key       TEXT NOT NULL,
  question           TEXT NOT NULL,
  ground_truth       TEXT NOT NULL DEFAULT '',
  reference_contexts TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(reference_contexts) AND json_type(reference_contexts) = 'array'),
  tags               TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags) AND json_type(tags) = 'array'),
  source             TEXT NOT NULL DEFAULT '',
  notes              TEXT NOT NULL DEFAULT '',
  status             TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'in_review', 'approved')),
  author_id          INTEGER REFERENCES user (id),
  approved_by        INTEGER REFERENCES user (id),
  approved_at        TEXT,
  version            INTEGER NOT NULL DEFAULT 1,
  created_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (dataset_id, question_key)
) STRICT;
CREATE INDEX sample_dataset_status ON sample (dataset_id, status, id);
CREATE INDEX sample_dataset_author ON sample (dataset_id, author_id, id);

-- Tags are denormalised into their own table so that filtering by tag uses an index.
CREATE TABLE sample_tag (
  sample_id INTEGER NOT NULL REFERENCES sample (id) ON DELETE CASCADE,
  tag       TEXT NOT NULL,
  PRIMARY KEY (tag, sample_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX sample_tag_sample ON sample_tag (sample_id);

-- Every superseded state of a sample: the current state lives in `sample`, older ones here.
CREATE TABLE sample_revision (
  id         INTEGER PRIMARY KEY,
  sample_id  INTEGER NOT NULL REFERENCES sample (id) ON DELETE CASCADE,
  version    INTEGER NOT NULL,
  snapshot   TEXT NOT NULL CHECK (json_valid(snapshot)),
  edited_by  INTEGER REFERENCES user (id),
  edited_at  TEXT NOT NULL,
  UNIQUE (sample_id, version)
) STRICT;

-- Trigram full-text index: substring search that works for Chinese as well as English.
CREATE VIRTUAL TABLE sample_fts USING fts5 (
  question, ground_truth, notes,
  content = 'sample', content_rowid = 'id', tokenize = 'trigram'
);
CREATE TRIGGER sample_fts_insert AFTER INSERT ON sample BEGIN
  INSERT INTO sample_fts (rowid, question, ground_truth, notes) VALUES (new.id, new.question, new.ground_truth, new.notes);
END;
CREATE TRIGGER sample_fts_delete AFTER DELETE ON sample BEGIN
  INSERT INTO sample_fts (sample_fts, rowid, question, ground_truth, notes) VALUES ('delete', old.id, old.question, old.ground_truth, old.notes);
END;
CREATE TRIGGER sample_fts_update AFTER UPDATE OF question, ground_truth, notes ON sample BEGIN
  INSERT INTO sample_fts (sample_fts, rowid, question, ground_truth, notes) VALUES ('delete', old.id, old.question, old.ground_truth, old.notes);
  INSERT INTO sample_fts (rowid, question, ground_truth, notes) VALUES (new.id, new.question, new.ground_truth, new.notes);
END;

-- Rows of an upload waiting to be committed in one transaction (all-or-nothing imports).
CREATE TABLE import_staging (
  import_id TEXT NOT NULL,
  line      INTEGER NOT NULL,
  payload   TEXT NOT NULL,
  PRIMARY KEY (import_id, line)
) STRICT, WITHOUT ROWID;

CREATE TABLE audit_event (
  id          INTEGER PRIMARY KEY,
  at          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  actor_id    INTEGER REFERENCES user (id),
  entity_type TEXT NOT NULL,
  entity_id   INTEGER,
  dataset_id  INTEGER,
  action      TEXT NOT NULL,
  before      TEXT CHECK (before IS NULL OR json_valid(before)),
  after       TEXT CHECK (after IS NULL OR json_valid(after))
) STRICT;
CREATE INDEX audit_entity ON audit_event (entity_type, entity_id, id);
CREATE INDEX audit_dataset ON audit_event (dataset_id, id);

-- The audit log is append-only, enforced by the database itself.
CREATE TRIGGER audit_event_no_update BEFORE UPDATE ON audit_event BEGIN
  SELECT RAISE(ABORT, 'audit_event is append-only');
END;
CREATE TRIGGER audit_event_no_delete BEFORE DELETE ON audit_event BEGIN
  SELECT RAISE(ABORT, 'audit_event is append-only');
END;
