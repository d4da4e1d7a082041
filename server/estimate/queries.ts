// SQL for estimation samples (their draws and items) and for what the true-score estimate reads:
// a run's scores, and the gold labels of sampled items only.
import type { DB } from '../db/connection.ts';

export interface SampleRow {
  id: number; dataset_id: number; system: string | null; frame_max_id: number; created_by: number | null; creator_email: string | null; created_at: string;
  n_items: number;
}

export interface DrawRow { id: number; sample_id: number; seed: number; requested: number; drawn: number; frame_size: number; creator_email: string | null; created_at: string }

/** A sampled response with what the estimate and its bias diagnostics need to know about it. */
export interface SampledRow { response_id: number; position: number; system: string; question_id: number; answer_chars: number; n_contexts: number }

/** Added to every new sampled item's position to give its queue rank: negative, earlier draws first (migration 0014). */
export const RANK_BASE = -(2 ** 40);

export function estimateQueries(db: DB) {
  const SAMPLE = `SELECT e.*, u.email AS creator_email, (SELECT count(*) FROM estimation_item i WHERE i.sample_id = e.id) AS n_items
    FROM estimation_sample e LEFT JOIN user u ON u.id = e.created_by`;
  return {
    insertSample: db.prepare<{ ds: number; system: string | null; frame_max_id: number; by: number | null }>(
      'INSERT INTO estimation_sample (dataset_id, system, frame_max_id, created_by) VALUES (@ds, @system, @frame_max_id, @by)'),
    insertDraw: db.prepare<{ sample: number; seed: number; requested: number; drawn: number; frame_size: number; by: number | null }>(`
      INSERT INTO estimation_draw (sample_id, seed, requested, drawn, frame_size, created_by) VALUES (@sample, @seed, @requested, @drawn, @frame_size, @by)`),
    insertItem: db.prepare<{ sample: number; response: number; draw: number; position: number }>(
      'INSERT INTO estimation_item (sample_id, response_id, draw_id, position) VALUES (@sample, @response, @draw, @position)'),
    /** Puts a response at the front of the labelling queue, unless an earlier draw already did. */
    rank: db.prepare<{ id: number; rank: number }>('UPDATE response SET queue_rank = @rank WHERE id = @id AND queue_rank = 0'),
    lastRank: db.prepare<[number], number | null>('SELECT max(queue_rank) FROM response WHERE dataset_id = ? AND queue_rank < 0').pluck(),
    maxResponseId: db.prepare<[number], number | null>('SELECT max(id) FROM response WHERE dataset_id = ?').pluck(),
    /** The responses a sample may draw from, in id order (the draw's order depends on it). */
    frame: db.prepare<{ ds: number; system: string | null; max: number; sample: number }, number>(`
      SELECT r.id FROM response r WHERE r.dataset_id = @ds AND (@system IS NULL OR r.system = @system) AND r.id <= @max
        AND NOT EXISTS (SELECT 1 FROM estimation_item i WHERE i.sample_id = @sample AND i.response_id = r.id)
      ORDER BY r.id`).pluck(),
    /** Every response any prompt version or run of the dataset uses as a few-shot example. */
    exampleIds: db.prepare<{ ds: number }, number>(`
      SELECT CAST(json_extract(e.value, '$.response_id') AS INTEGER) FROM prompt_version p, json_each(p.template, '$.examples') e
        WHERE p.dataset_id = @ds AND json_type(e.value, '$.response_id') = 'integer'
      UNION SELECT CAST(json_extract(e.value, '$.response_id') AS INTEGER) FROM run r, json_each(r.prompts, '$.used') u, json_each(u.value, '$.examples') e
        WHERE r.dataset_id = @ds AND json_type(e.value, '$.response_id') = 'integer'`).pluck(),
    sampledIds: db.prepare<[number], number>(`SELECT DISTINCT i.response_id FROM estimation_item i JOIN estimation_sample e ON e.id = i.sample_id
      WHERE e.dataset_id = ?`).pluck(),
    isSampled: db.prepare<{ ds: number; id: number }, number>(`SELECT 1 FROM estimation_item i JOIN estimation_sample e ON e.id = i.sample_id
      WHERE i.response_id = @id AND e.dataset_id = @ds LIMIT 1`).pluck(),
    samples: db.prepare<[number], SampleRow>(`${SAMPLE} WHERE e.dataset_id = ? ORDER BY e.id DESC`),
    sample: db.prepare<[number], SampleRow>(`${SAMPLE} WHERE e.id = ?`),
    draws: db.prepare<[number], DrawRow>(`SELECT d.*, u.email AS creator_email FROM estimation_draw d LEFT JOIN user u ON u.id = d.created_by
      WHERE d.sample_id = ? ORDER BY d.id`),
    items: db.prepare<[number], SampledRow>(`SELECT i.response_id, i.position, r.system, r.sample_id AS question_id, length(r.answer) AS answer_chars,
        json_array_length(r.retrieved_contexts) AS n_contexts
      FROM estimation_item i JOIN response r ON r.id = i.response_id WHERE i.sample_id = ? ORDER BY i.position`),
    drawnItems: db.prepare<[number], { response_id: number; question: string; system: string }>(`SELECT i.response_id, s.question, r.system
      FROM estimation_item i JOIN response r ON r.id = i.response_id JOIN sample s ON s.id = r.sample_id WHERE i.draw_id = ? ORDER BY i.position`),
    /** Submitted values of a criterion on a sample's items only: gold elsewhere does not enter the estimate. */
    sampleLabels: db.prepare<{ sample: number; criterion: number }, { response_id: number; value: string }>(`
      SELECT a.response_id, l.value FROM estimation_item i
        JOIN annotation a ON a.response_id = i.response_id AND a.state = 'submitted'
        JOIN label l ON l.annotation_id = a.id AND l.criterion_id = @criterion AND l.context_index = -1
      WHERE i.sample_id = @sample`),
    sampleAdjudications: db.prepare<{ sample: number; criterion: number }, { response_id: number; value: string }>(`
      SELECT j.response_id, j.value FROM estimation_item i
        JOIN adjudication j ON j.response_id = i.response_id AND j.criterion_id = @criterion AND j.context_index = -1
      WHERE i.sample_id = @sample`),
    /** The metric and threshold of the latest calibration recorded for a criterion (the judge calibrated for it). */
    latestCalibrationMetric: db.prepare<[number, number], string>(
      'SELECT metric_key FROM calibration WHERE dataset_id = ? AND criterion_id = ? ORDER BY id DESC LIMIT 1').pluck(),
    latestCalibrationThreshold: db.prepare<[number, number, string], number>(
      'SELECT threshold FROM calibration WHERE dataset_id = ? AND criterion_id = ? AND metric_key = ? ORDER BY id DESC LIMIT 1').pluck(),
    keepEstimate: db.prepare<[string | null, number]>('UPDATE calibration SET estimate = ? WHERE id = ?'),
    /** A run's scores with the response's system and sample (the question, which pairs two systems' answers). */
    runScores: db.prepare<[number], { id: number; question_id: number; system: string; value: number }>(`
      SELECT sc.response_id AS id, r.sample_id AS question_id, r.system, sc.value FROM score sc JOIN response r ON r.id = sc.response_id
      WHERE sc.run_id = ? AND sc.status = 'ok' AND sc.value IS NOT NULL`),
  };
}

export type EstimateQueries = ReturnType<typeof estimateQueries>;
