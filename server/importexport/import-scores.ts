// Judge scores from a results file (metric-named columns, e.g. a Ragas results CSV) become an
// imported run per metric, so scores produced elsewhere can be calibrated without paying again.
// Runs inside the import's transaction.
import type { DB } from '../db/connection.ts';
import { translator } from '../i18n/index.ts';

export interface ImportedRun { run: string; metric: string; run_id: number; scored: number; missing: number }

/** The run named for the file's scores was scored by goldset; the import says so with 'import.score_run_goldset' (the message: its English, for logs). */
export class ScoreImportAbort extends Error {
  constructor(readonly run: string, readonly metric: string) { super(translator('en')('import.score_run_goldset', { run, metric })); }
}

export function writeScoreRuns(db: DB, staging: string, datasetId: number, runName: string, metrics: string[], actorId: number | null): ImportedRun[] {
  const existing = db.prepare<[number, string, string], { id: number; source: string }>('SELECT id, source FROM run WHERE dataset_id = ? AND name = ? AND metric_key = ?');
  const insertRun = db.prepare(`INSERT INTO run (dataset_id, name, metric_key, source, status, created_by, started_at, finished_at)
    VALUES (?, ?, ?, 'imported', 'done', ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);
  // A metric column's empty cell is a score that was not produced: kept as "skipped", never as 0.
  // Staged rows name the response they are about (import-service.ts); the first row for a response wins.
  const insertScores = db.prepare<{ run: number; path: string }>(`
    INSERT INTO score (run_id, response_id, status, value, reason)
    SELECT @run, st.response_id,
      CASE WHEN json_type(st.scores, @path) IN ('real', 'integer') THEN 'ok' ELSE 'skipped' END,
      CASE WHEN json_type(st.scores, @path) IN ('real', 'integer') THEN json_extract(st.scores, @path) END,
      CASE WHEN json_type(st.scores, @path) IN ('real', 'integer') THEN NULL ELSE 'no_score_in_file' END
    FROM ${staging} st
    WHERE st.response_id IS NOT NULL AND st.scores IS NOT NULL AND json_type(st.scores, @path) IS NOT NULL
    ORDER BY st.seq
    ON CONFLICT (run_id, response_id) DO NOTHING`);
  const counts = db.prepare<[number], { scored: number; missing: number; total: number }>(`SELECT count(*) FILTER (WHERE status = 'ok') AS scored,
    count(*) FILTER (WHERE status <> 'ok') AS missing, count(*) AS total FROM score WHERE run_id = ?`);
  const setTotal = db.prepare<[number, number]>('UPDATE run SET n_total = ? WHERE id = ?');

  return metrics.map((metric) => {
    const found = existing.get(datasetId, runName, metric);
    if (found && found.source !== 'imported') throw new ScoreImportAbort(runName, metric);
    const runId = found ? found.id : Number(insertRun.run(datasetId, runName, metric, actorId).lastInsertRowid);
    insertScores.run({ run: runId, path: `$."${metric.replace(/"/g, '""')}"` });
    const c = counts.get(runId)!;
    setTotal.run(c.total, runId);
    return { run: runName, metric, run_id: runId, scored: c.scored, missing: c.missing };
  });
}
