-- Reviewers' verdicts no longer move dataset.data_version: nothing kept by the server reads them
-- (the review queue reads them on every view), and a reviewer records one per item, so each verdict
-- made the next item's page recompute every pair of the run (about a second at 100,000 items).
DROP TRIGGER data_version_review_verdict_insert;
DROP TRIGGER data_version_review_verdict_update;
DROP TRIGGER data_version_review_verdict_delete;
