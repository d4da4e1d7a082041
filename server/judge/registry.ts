// Which metrics a dataset can run: the built-in ones, and its custom rubric and composite metrics.
import type { DB } from '../db/connection.ts';
import type { MetricDefinition } from './types.ts';
import { BUILTIN_METRICS } from './metrics/index.ts';
import { compositeMetric, customRubricMetric } from './metrics/custom.ts';

export interface MetricRow { id: number; dataset_id: number; key: string; kind: 'custom' | 'composite'; config: string; created_at: string }

export function metricRegistry(db: DB) {
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

  function get(datasetId: number, key: string, depth = 0): MetricDefinition | undefined {
    const builtin = BUILTIN_METRICS[key];
    if (builtin) return builtin;
    const row = byKey.get(datasetId, key);
    return row ? build(datasetId, row, depth) : undefined;
  }

  return {
    get: (datasetId: number, key: string) => get(datasetId, key),
    builtinKeys: () => Object.keys(BUILTIN_METRICS),
    custom: (datasetId: number) => forDataset.all(datasetId),
  };
}

export type MetricRegistry = ReturnType<typeof metricRegistry>;
