-- The scores of context precision runs beside their per-context verdicts (trace.values.verdicts), in a
-- narrow table kept by a trigger. The per-context report reads every score of a run: from `score` that
-- means each row's whole trace (the prompt of every verify call, some kilobytes per context), about 10 s
-- at 100,000 responses; from here a few bytes each. Scores are only ever inserted (runs resume, imports
-- skip existing rows) and deleted with their run or response, which the foreign key follows.
CREATE TABLE context_precision_score (
  run_id      INTEGER NOT NULL,
  response_id INTEGER NOT NULL,
  status      TEXT NOT NULL,
  value       REAL,
  -- the judge's verdict per retrieved context in rank order (JSON array of 0/1); null when the score has none
  verdicts    TEXT CHECK (verdicts IS NULL OR json_valid(verdicts)),
  PRIMARY KEY (run_id, response_id),
  FOREIGN KEY (run_id, response_id) REFERENCES score (run_id, response_id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

-- Which runs: metrics whose key names context precision (context_precision, ..._without_reference, Ragas's
-- llm_/non_llm_ variants); the same rule as isContextPrecisionMetric in server/calibration/context-service.ts.
CREATE TRIGGER context_precision_score_insert AFTER INSERT ON score
WHEN instr((SELECT metric_key FROM run WHERE id = new.run_id), 'context_precision') > 0
BEGIN
  INSERT OR REPLACE INTO context_precision_score (run_id, response_id, status, value, verdicts)
  VALUES (new.run_id, new.response_id, new.status, new.value,
    CASE WHEN json_type(new.trace, '$.values.verdicts') = 'array' THEN json_extract(new.trace, '$.values.verdicts') END);
END;

INSERT INTO context_precision_score (run_id, response_id, status, value, verdicts)
SELECT s.run_id, s.response_id, s.status, s.value,
  CASE WHEN json_type(s.trace, '$.values.verdicts') = 'array' THEN json_extract(s.trace, '$.values.verdicts') END
FROM score s JOIN run r ON r.id = s.run_id WHERE instr(r.metric_key, 'context_precision') > 0;
