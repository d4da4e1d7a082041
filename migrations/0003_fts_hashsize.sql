-- Bigger in-memory term table for the trigram index: imports flush and merge far fewer segments.
INSERT INTO sample_fts (sample_fts, rank) VALUES ('hashsize', 16777216);
