-- A version on each thing two people can edit that had none, so that every shared write carries the
-- version it was based on and a stale one is refused instead of silently overwriting: a criterion
-- (guidelines, options), a dataset's settings and labelling assignment, a reviewer's verdict.
ALTER TABLE criterion ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE dataset ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE review_verdict ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
