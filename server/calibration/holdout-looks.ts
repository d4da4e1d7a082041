// Looks at the held-out part: each held-out final check of a metric's prompts is one (migration 0013).
// A second look spends the held-out part, since prompts changed after the first look have seen its
// result; the count is kept so the figures of a held-out check can say which look they are.
import type { AppContext } from '../app-context.ts';
import type { DB } from '../db/connection.ts';
import type { RunRow } from '../judge/run-queries.ts';

export interface HoldoutLook { metric: string; look: number; total: number }

export function holdoutLookQueries(db: DB) {
  const s = {
    insert: db.prepare('INSERT INTO holdout_look (dataset_id, metric_key, criterion_id, run_id, source_run_id, created_by) VALUES (@ds, @metric, @criterion, @run, @source, @by)'),
    count: db.prepare<[number, string], number>('SELECT count(*) FROM holdout_look WHERE dataset_id = ? AND metric_key = ?').pluck(),
    ofRun: db.prepare<[number], { id: number; dataset_id: number; metric_key: string }>('SELECT id, dataset_id, metric_key FROM holdout_look WHERE run_id = ?'),
    ordinal: db.prepare<[number, string, number], number>('SELECT count(*) FROM holdout_look WHERE dataset_id = ? AND metric_key = ? AND id <= ?').pluck(),
  };
  return {
    record: (look: { ds: number; metric: string; criterion: number; run: number; source: number | null; by: number | null }) => { s.insert.run(look); },
    /** How many times the held-out part of the dataset has been looked at for the metric. */
    count: (datasetId: number, metricKey: string) => s.count.get(datasetId, metricKey) as number,
    /** Which look a held-out check run was, of how many so far; null for any other run. */
    ofRun(runId: number): HoldoutLook | null {
      const row = s.ofRun.get(runId);
      if (!row) return null;
      return { metric: row.metric_key, look: s.ordinal.get(row.dataset_id, row.metric_key, row.id) as number, total: s.count.get(row.dataset_id, row.metric_key) as number };
    },
  };
}

export function holdoutLooks(app: Pick<AppContext, 'holdoutLooks'>, run: RunRow): HoldoutLook | null {
  return app.holdoutLooks.ofRun(run.id);
}
