-- A dataset's samples newest first (the samples page without filters): without this index SQLite
-- reads the whole dataset through another index and sorts it, ~0.1 s per page at 100,000 samples.
CREATE INDEX sample_dataset_id ON sample (dataset_id, id);
