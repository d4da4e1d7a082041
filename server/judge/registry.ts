// Which metrics a dataset can run: the built-in ones, and its custom rubric and composite metrics.
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { MetricDefinition } from './types.ts';
import { BUILTIN_METRICS } from './metrics/index.ts';
import { compositeMetric, customRubricMetric } from './metrics/custom.ts';
import { writableGuard } from '../datasets/archived.ts';
import { createAnswerRelevancy } from './metrics/answer-relevancy.ts';
import type { MetricSettings } from './metric-settings.ts';

/** A built-in metric under non-default settings (answer_relevancy with Ragas ≤0.3's 'any' rule). */
const WITH_SETTINGS: Record<string, (s: MetricSettings) => MetricDefinition | undefined> = {
  answer_relevancy: (s) => (s.noncommittal === 'any' ? ANSWER_RELEVANCY_ANY : undefined),
};
const ANSWER_RELEVANCY_ANY = createAnswerRelevancy({ rule: 'any' });

export interface MetricRow { id: number; dataset_id: number; key: string; kind: 'custom' | 'composite'; config: string; created_at: string }

export function metricRegistry(db: DB, audit: AuditQueries) {
  const writable = writableGuard(db);
  const insert = db.prepare('INSERT INTO metric (dataset_id, key, kind, config, created_by) VALUES (?, ?, ?, ?, ?)');
  const byKey = db.prepare<[number, string], MetricRow>('SELECT * FROM metric WHERE dataset_id = ? AND key = ?');
  const forDataset = db.prepare<[number], MetricRow>('SELECT * FROM metric WHERE dataset_id = ? ORDER BY key');

  function build(datasetId: number, row: MetricRow, depth = 0): MetricDefinition | undefined {
    const config = JSON.parse(row.config) as Record<string, unknown>;
    if (row.kind === 'custom') return customRubricMetric({ key: row.key, ...config } as Parameters<typeof customRubricMetric>[0]);
    if (depth > 3) return undefined;
    const components = (config.components as { metric: string; weight: number }[]).map((c) => ({ metric: get(datasetId, c.metric, depth + 1)!, weight: c.weight }));
    if (components.some((c) => !c.metric)) return undefined;
    return compositeMetric({ key: row.key, components });
  }

  function get(datasetId: number, key: string, depth = 0, settings?: MetricSettings): MetricDefinition | undefined {
    const builtin = BUILTIN_METRICS[key];
    if (builtin) return (settings && Object.hasOwn(WITH_SETTINGS, key) ? WITH_SETTINGS[key]!(settings) : undefined) ?? builtin;
    const row = byKey.get(datasetId, key);
    return row ? build(datasetId, row, depth) : undefined;
  }

  return {
    /** A metric of the dataset; `settings` (a run's recorded ones) select a built-in metric's variant. */
    get: (datasetId: number, key: string, settings?: MetricSettings) => get(datasetId, key, 0, settings),
    builtinKeys: () => Object.keys(BUILTIN_METRICS),
    custom: (datasetId: number) => forDataset.all(datasetId),

    /** Stores a custom or composite metric; returns false, storing nothing, when its config does not make a metric. */
    create(actorId: number | null, datasetId: number, key: string, kind: 'custom' | 'composite', config: Record<string, unknown>): boolean {
      let valid: MetricDefinition | undefined;
      try { valid = build(datasetId, { id: 0, dataset_id: datasetId, key, kind, config: JSON.stringify(config), created_at: '' }); } catch { valid = undefined; }
      if (!valid) return false;
      db.transaction(() => {
        writable(datasetId);
        const id = Number(insert.run(datasetId, key, kind, JSON.stringify(config), actorId).lastInsertRowid);
        audit.record({ actorId, entityType: 'metric', entityId: id, datasetId, action: 'create', after: { key, kind, ...config } });
      })();
      return true;
    },
  };
}

export type MetricRegistry = ReturnType<typeof metricRegistry>;
