// Settings of built-in metrics, per dataset: answer_relevancy's non-committal rule ('all', Ragas 0.4's
// and the default; 'any', Ragas ≤0.3's). A run resolves them when it is created (the dataset's, or
// the CLI's override) and records them, so it is scored, and its calibrations judged, with those.
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import { writableGuard } from '../datasets/archived.ts';

export type MetricSettings = Record<string, string>;

/** Each metric's settings: the values allowed, the first being the default. */
export const METRIC_SETTINGS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  answer_relevancy: { noncommittal: ['all', 'any'] },
};

export function hasSettings(metricKey: string): boolean {
  return Object.hasOwn(METRIC_SETTINGS, metricKey);
}

/** The defaults overlaid with `given`; throws on a name or value the metric does not have. */
export function resolveSettings(metricKey: string, ...given: (MetricSettings | undefined)[]): MetricSettings {
  const spec = Object.hasOwn(METRIC_SETTINGS, metricKey) ? METRIC_SETTINGS[metricKey]! : {};
  const out: MetricSettings = Object.fromEntries(Object.entries(spec).map(([name, values]) => [name, values[0]!]));
  for (const g of given) {
    for (const [name, value] of Object.entries(g ?? {})) {
      const allowed = spec[name];
      if (!allowed) throw new RangeError(`${metricKey} has no setting ${name}`);
      if (!allowed.includes(value)) throw new RangeError(`${metricKey} setting ${name} takes ${allowed.join(' or ')}, got ${value}`);
      out[name] = value;
    }
  }
  return out;
}

export function metricSettingsStore(db: DB, audit: AuditQueries) {
  const writable = writableGuard(db);
  const s = {
    get: db.prepare<[number, string], { settings: string; version: number }>('SELECT settings, version FROM metric_setting WHERE dataset_id = ? AND metric_key = ?'),
    insert: db.prepare(`INSERT INTO metric_setting (dataset_id, metric_key, settings, updated_by) VALUES (?, ?, ?, ?)
      ON CONFLICT (dataset_id, metric_key) DO NOTHING`),
    update: db.prepare(`UPDATE metric_setting SET settings = ?, version = version + 1, updated_by = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
      WHERE dataset_id = ? AND metric_key = ? AND version = ?`),
  };
  return {
    /** The dataset's settings of a metric (defaults where none are stored) and the version to send back with a change (0: none stored). */
    get(datasetId: number, metricKey: string): { settings: MetricSettings; version: number } {
      const row = s.get.get(datasetId, metricKey);
      return { settings: resolveSettings(metricKey, row ? JSON.parse(row.settings) as MetricSettings : undefined), version: row?.version ?? 0 };
    },
    /** Stores new settings if `version` is still the stored one; false when someone changed them meanwhile. */
    save(actorId: number | null, datasetId: number, metricKey: string, settings: MetricSettings, version: number): boolean {
      writable(datasetId);
      const value = resolveSettings(metricKey, settings);
      return db.transaction(() => {
        const before = s.get.get(datasetId, metricKey);
        const changed = version === 0
          ? s.insert.run(datasetId, metricKey, JSON.stringify(value), actorId).changes
          : s.update.run(JSON.stringify(value), actorId, datasetId, metricKey, version).changes;
        if (changed === 0) return false;
        audit.record({ actorId, entityType: 'metric', entityId: null, datasetId, action: 'settings',
          before: before ? { metric: metricKey, ...JSON.parse(before.settings) as MetricSettings } : undefined, after: { metric: metricKey, ...value } });
        return true;
      })();
    },
  };
}

export type MetricSettingsStore = ReturnType<typeof metricSettingsStore>;
