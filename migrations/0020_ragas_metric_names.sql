-- goldset's non-LLM metrics now carry Ragas's names where they give Ragas's values, and the former
-- per-character BLEU and ROUGE-L are goldset's Chinese-aware variants under their own names:
--   string_presence → string_present, levenshtein_similarity → non_llm_string_similarity,
--   non_llm_context_precision → non_llm_context_precision_with_reference (nothing retrieved now
--   scores 0, as in Ragas, where it had no score), bleu → bleu_zh, rouge_l → rouge_l_zh (the same
--   computations as before). Runs goldset scored, their calibrations and composite metrics built
--   on them follow the new names; imported runs keep the column names of their files.
CREATE TEMP TABLE metric_rename (old TEXT PRIMARY KEY, new TEXT NOT NULL) STRICT;
INSERT INTO metric_rename VALUES
  ('string_presence', 'string_present'), ('levenshtein_similarity', 'non_llm_string_similarity'),
  ('non_llm_context_precision', 'non_llm_context_precision_with_reference'), ('bleu', 'bleu_zh'), ('rouge_l', 'rouge_l_zh');

-- A run keeps its old key if the dataset has another run of that name under the new key already.
UPDATE run SET metric_key = (SELECT new FROM metric_rename WHERE old = run.metric_key)
WHERE source = 'goldset' AND metric_key IN (SELECT old FROM metric_rename)
  AND NOT EXISTS (SELECT 1 FROM run other WHERE other.dataset_id = run.dataset_id AND other.name = run.name
    AND other.metric_key = (SELECT new FROM metric_rename WHERE old = run.metric_key));

UPDATE calibration SET metric_key = (SELECT metric_key FROM run WHERE run.id = calibration.run_id)
WHERE metric_key IN (SELECT old FROM metric_rename);

UPDATE metric SET config = json_set(config, '$.components', (
  SELECT json_group_array(json_set(c.value, '$.metric', coalesce(
    (SELECT new FROM metric_rename WHERE old = json_extract(c.value, '$.metric')), json_extract(c.value, '$.metric'))))
  FROM json_each(metric.config, '$.components') c))
WHERE kind = 'composite';

DROP TABLE metric_rename;
