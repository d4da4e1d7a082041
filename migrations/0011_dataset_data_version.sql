-- A counter per dataset that moves whenever anything the analysis pages read changes: expert
-- annotations and labels, adjudications, judge scores and runs, reviewers' verdicts, criteria,
-- responses, and the experts' names. The agreement, review and calibration pages compute over every
-- item of a dataset (about a second at 100,000 items); the server keeps their results while the
-- counter stands still (server/db/derived-cache.ts).
ALTER TABLE dataset ADD COLUMN data_version INTEGER NOT NULL DEFAULT 0;

-- Responses already update their dataset row for its response count: the counter moves in the same statement.
DROP TRIGGER response_count_insert;
DROP TRIGGER response_count_delete;
CREATE TRIGGER response_count_insert AFTER INSERT ON response BEGIN
  UPDATE dataset SET n_responses = n_responses + 1, data_version = data_version + 1 WHERE id = new.dataset_id;
END;
CREATE TRIGGER response_count_delete AFTER DELETE ON response BEGIN
  UPDATE dataset SET n_responses = n_responses - 1, data_version = data_version + 1 WHERE id = old.dataset_id;
END;

-- A row's dataset, directly or through its parent. A label, adjudication or score deleted by a
-- cascade finds no parent; the parent's own trigger has moved the counter then.
CREATE TRIGGER data_version_annotation_insert AFTER INSERT ON annotation BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = new.dataset_id;
END;
CREATE TRIGGER data_version_annotation_update AFTER UPDATE ON annotation BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = new.dataset_id;
END;
CREATE TRIGGER data_version_annotation_delete AFTER DELETE ON annotation BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = old.dataset_id;
END;
CREATE TRIGGER data_version_label_insert AFTER INSERT ON label BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = (SELECT dataset_id FROM annotation WHERE id = new.annotation_id);
END;
CREATE TRIGGER data_version_label_update AFTER UPDATE ON label BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = (SELECT dataset_id FROM annotation WHERE id = new.annotation_id);
END;
CREATE TRIGGER data_version_label_delete AFTER DELETE ON label BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = (SELECT dataset_id FROM annotation WHERE id = old.annotation_id);
END;
CREATE TRIGGER data_version_adjudication_insert AFTER INSERT ON adjudication BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = (SELECT dataset_id FROM response WHERE id = new.response_id);
END;
CREATE TRIGGER data_version_adjudication_update AFTER UPDATE ON adjudication BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = (SELECT dataset_id FROM response WHERE id = new.response_id);
END;
CREATE TRIGGER data_version_adjudication_delete AFTER DELETE ON adjudication BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = (SELECT dataset_id FROM response WHERE id = old.response_id);
END;
CREATE TRIGGER data_version_score_insert AFTER INSERT ON score BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = (SELECT dataset_id FROM run WHERE id = new.run_id);
END;
CREATE TRIGGER data_version_score_update AFTER UPDATE ON score BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = (SELECT dataset_id FROM run WHERE id = new.run_id);
END;
CREATE TRIGGER data_version_score_delete AFTER DELETE ON score BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = (SELECT dataset_id FROM run WHERE id = old.run_id);
END;
CREATE TRIGGER data_version_run_insert AFTER INSERT ON run BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = new.dataset_id;
END;
CREATE TRIGGER data_version_run_update AFTER UPDATE ON run BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = new.dataset_id;
END;
CREATE TRIGGER data_version_run_delete AFTER DELETE ON run BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = old.dataset_id;
END;
CREATE TRIGGER data_version_review_verdict_insert AFTER INSERT ON review_verdict BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = new.dataset_id;
END;
CREATE TRIGGER data_version_review_verdict_update AFTER UPDATE ON review_verdict BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = new.dataset_id;
END;
CREATE TRIGGER data_version_review_verdict_delete AFTER DELETE ON review_verdict BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = old.dataset_id;
END;
CREATE TRIGGER data_version_criterion_insert AFTER INSERT ON criterion BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = new.dataset_id;
END;
CREATE TRIGGER data_version_criterion_update AFTER UPDATE ON criterion BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = new.dataset_id;
END;
CREATE TRIGGER data_version_criterion_delete AFTER DELETE ON criterion BEGIN
  UPDATE dataset SET data_version = data_version + 1 WHERE id = old.dataset_id;
END;
-- Pages show experts by name and email, and leave out disabled ones.
CREATE TRIGGER data_version_user_update AFTER UPDATE OF email, name, disabled ON user BEGIN
  UPDATE dataset SET data_version = data_version + 1;
END;
