-- A running count of each expert's submitted annotations per dataset. The labelling progress bar
-- shows it with every item, and counting the expert's annotations each time took longer the more
-- they had labelled. Triggers keep it, so every writer (the workspace, imports) keeps it right.

CREATE TABLE annotator_progress (
  dataset_id   INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  annotator_id INTEGER NOT NULL REFERENCES user (id),
  n_submitted  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (dataset_id, annotator_id)
) STRICT, WITHOUT ROWID;

INSERT INTO annotator_progress (dataset_id, annotator_id, n_submitted)
  SELECT dataset_id, annotator_id, count(*) FROM annotation WHERE state = 'submitted' GROUP BY dataset_id, annotator_id;

CREATE TRIGGER annotator_progress_insert AFTER INSERT ON annotation WHEN new.state = 'submitted' BEGIN
  INSERT INTO annotator_progress (dataset_id, annotator_id, n_submitted) VALUES (new.dataset_id, new.annotator_id, 1)
    ON CONFLICT (dataset_id, annotator_id) DO UPDATE SET n_submitted = n_submitted + 1;
END;

-- An annotation's dataset and annotator never change; its state may, in either direction.
CREATE TRIGGER annotator_progress_submit AFTER UPDATE OF state ON annotation
  WHEN old.state <> 'submitted' AND new.state = 'submitted' BEGIN
  INSERT INTO annotator_progress (dataset_id, annotator_id, n_submitted) VALUES (new.dataset_id, new.annotator_id, 1)
    ON CONFLICT (dataset_id, annotator_id) DO UPDATE SET n_submitted = n_submitted + 1;
END;

CREATE TRIGGER annotator_progress_unsubmit AFTER UPDATE OF state ON annotation
  WHEN old.state = 'submitted' AND new.state <> 'submitted' BEGIN
  UPDATE annotator_progress SET n_submitted = n_submitted - 1 WHERE dataset_id = old.dataset_id AND annotator_id = old.annotator_id;
END;

CREATE TRIGGER annotator_progress_delete AFTER DELETE ON annotation WHEN old.state = 'submitted' BEGIN
  UPDATE annotator_progress SET n_submitted = n_submitted - 1 WHERE dataset_id = old.dataset_id AND annotator_id = old.annotator_id;
END;
