-- Eval-set releases: a dataset's approved samples (optionally with their responses and gold labels)
-- frozen under a tag. A release's records are its canonical serialisation, one JSON line each, in
-- order (README, "Releases"); its hash is the SHA-256 of those lines. Nothing of a release ever
-- changes, enforced here as the audit log's append-only rule is: no UPDATE at all, no record added
-- after the release is made, and DELETE only of a whole release whose deletion is under way.

CREATE TABLE release (
  id             INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: a deleted release's id names nothing else
  dataset_id     INTEGER NOT NULL REFERENCES dataset (id),
  tag            TEXT NOT NULL,
  hash           TEXT NOT NULL CHECK (length(hash) = 64),
  with_responses INTEGER NOT NULL CHECK (with_responses IN (0, 1)),
  n_samples      INTEGER NOT NULL,
  n_responses    INTEGER NOT NULL,
  -- every record: the header line, criteria, samples, responses
  n_records      INTEGER NOT NULL CHECK (n_records >= 1),
  -- the longest text an export cell of it holds (a spreadsheet cell holds at most 32,767 characters)
  longest_text   INTEGER NOT NULL,
  note           TEXT NOT NULL DEFAULT '',
  -- as they were when it was made: its goldset-jsonl export names them, and must not change later
  dataset_name   TEXT NOT NULL,
  language       TEXT NOT NULL,
  author_email   TEXT,
  created_by     INTEGER REFERENCES user (id),
  created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (dataset_id, tag)
) STRICT;

CREATE TABLE release_record (
  release_id  INTEGER NOT NULL REFERENCES release (id),
  position    INTEGER NOT NULL CHECK (position >= 0),
  kind        TEXT NOT NULL CHECK (kind IN ('release', 'criterion', 'sample', 'response')),
  -- the sample and response it was made from; no foreign key: a release outlives them
  sample_id   INTEGER,
  response_id INTEGER,
  -- what matches it across releases when ids do not: question key, + answer hash for a response, criterion name
  item_key    TEXT NOT NULL,
  body        TEXT NOT NULL,
  PRIMARY KEY (release_id, position)
) STRICT;
CREATE INDEX release_record_sample ON release_record (release_id, sample_id) WHERE sample_id IS NOT NULL;
CREATE INDEX release_record_response ON release_record (release_id, response_id) WHERE response_id IS NOT NULL;

-- A release being deleted, inside the deleting transaction only (it removes its row again at the end).
CREATE TABLE release_deletion (
  release_id INTEGER PRIMARY KEY
) STRICT;

CREATE TRIGGER release_no_update BEFORE UPDATE ON release BEGIN
  SELECT RAISE(ABORT, 'a release never changes');
END;
CREATE TRIGGER release_no_delete BEFORE DELETE ON release
WHEN NOT EXISTS (SELECT 1 FROM release_deletion WHERE release_id = old.id) BEGIN
  SELECT RAISE(ABORT, 'a release is deleted only as a whole');
END;
CREATE TRIGGER release_record_no_update BEFORE UPDATE ON release_record BEGIN
  SELECT RAISE(ABORT, 'a release never changes');
END;
CREATE TRIGGER release_record_no_delete BEFORE DELETE ON release_record
WHEN NOT EXISTS (SELECT 1 FROM release_deletion WHERE release_id = old.release_id) BEGIN
  SELECT RAISE(ABORT, 'a release is deleted only as a whole');
END;
-- Records fill positions 0 … n_records − 1 while the release is made; with the primary key, nothing can be added afterwards.
CREATE TRIGGER release_record_complete BEFORE INSERT ON release_record
WHEN new.position >= coalesce((SELECT n_records FROM release WHERE id = new.release_id), 0) BEGIN
  SELECT RAISE(ABORT, 'a release is complete when it is made');
END;
