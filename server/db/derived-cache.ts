// Results computed over every item of a dataset (agreement, disagreements, gold values, the
// calibration pairs and report, run figures), kept while nothing they read has changed. Triggers
// move dataset.data_version whenever labels, adjudications, scores, runs, criteria, responses or
// experts' names change (migrations 0011, 0012; reviewers' verdicts do not, so nothing kept may read
// them), from any connection or process, so a kept value is exact, never merely recent. Values are
// frozen one level deep (arrays: their items too; a Map's entries are not), so most attempts to
// change one throw instead of corrupting the next request's answer.
import type { DB } from './connection.ts';

/** Entries kept, least recently used dropped first: each may hold a list the size of a dataset. */
const CAPACITY = 8;

export interface DerivedCache {
  /** The value for `key` in the dataset, computed by `compute` unless a value of the dataset's current version is kept. */
  get<T extends object>(datasetId: number, key: string, compute: () => T): Readonly<T>;
  /** Whether any value of `key` is kept for the dataset, whatever its version (no query). */
  keeps(datasetId: number, key: string): boolean;
  /** The value kept for `key` at exactly `version`, if any (what a writer may update instead of having it recomputed). */
  peek<T extends object>(datasetId: number, key: string, version: number): Readonly<T> | undefined;
  /**
   * Marks the value of `key` kept at version `from` as current at version `to`, for a writer whose
   * own transaction moved the version from `from` to `to` and that has brought the value up to date
   * with exactly those changes (see labels/open-disagreements.ts). Nothing happens unless a value is
   * kept at `from`.
   */
  advance(datasetId: number, key: string, from: number, to: number): void;
}

export function derivedCache(db: DB, capacity = CAPACITY): DerivedCache {
  const version = db.prepare<[number], number>('SELECT data_version FROM dataset WHERE id = ?').pluck();
  const entries = new Map<string, { version: number; value: object }>();
  return {
    get<T extends object>(datasetId: number, key: string, compute: () => T): Readonly<T> {
      const current = version.get(datasetId);
      const k = `${datasetId}:${key}`;
      const hit = entries.get(k);
      entries.delete(k);
      if (hit && hit.version === current) {
        entries.set(k, hit);
        return hit.value as T;
      }
      const value = compute();
      if (current === undefined) return value;
      Object.freeze(value);
      if (Array.isArray(value)) for (const item of value) if (item && typeof item === 'object') Object.freeze(item);
      entries.set(k, { version: current, value });
      if (entries.size > capacity) entries.delete(entries.keys().next().value!);
      return value;
    },
    keeps: (datasetId: number, key: string) => entries.has(`${datasetId}:${key}`),
    peek<T extends object>(datasetId: number, key: string, at: number): Readonly<T> | undefined {
      const hit = entries.get(`${datasetId}:${key}`);
      return hit && hit.version === at ? (hit.value as T) : undefined;
    },
    advance(datasetId: number, key: string, from: number, to: number): void {
      const hit = entries.get(`${datasetId}:${key}`);
      if (hit && hit.version === from) hit.version = to;
    },
  };
}
