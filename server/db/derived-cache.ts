// Results computed over every item of a dataset (agreement, disagreements, gold values, the
// calibration pairs and report, run figures), kept while nothing they read has changed. Triggers
// move dataset.data_version whenever labels, adjudications, scores, runs, criteria, responses or
// experts' names change (migrations 0011, 0012; reviewers' verdicts do not, so nothing kept may read
// them), from any connection or process, so a kept value is exact, never merely recent. Values are
// frozen one level deep (arrays: their items too; a Map's entries are not), so most attempts to
// change one throw instead of corrupting the next request's answer.
//
// Following a write: during active labelling every view would be a first view, so a kept value may
// say how to bring itself up to date with a write that names the responses it changed (`follow`).
// A writer that knows exactly which responses its transaction touches (the label service) calls
// `track` inside the transaction before any change and `done` last inside it: every kept value of
// the dataset at the version before the write that can follow reads what it needs of the touched
// responses there, and once the transaction has committed it is updated and marked current at the
// version after it. A value that cannot follow stays at the old version and is computed again when
// asked. A write that names no response (handing out an item reserves it with a draft, which
// nothing kept reads) moves every kept value of the dataset along unchanged. Any other change (an
// import, sqlite3, another process) leaves a version gap no kept value covers.
import type { DB } from './connection.ts';

/**
 * Entries kept, least recently used dropped first: each may hold a list the size of a dataset. One
 * calibration page view keeps 7 (open disagreements, systems, gold, pairs, report, charts, true
 * score), the review beside it 2 more, the per-context pages and agreement more again: with fewer
 * entries an adjudicator moving between them would recompute on every page. Measured at 100,000
 * items: agreement ~49 MB, pairs 10–14 MB, gold 3.6 MB, the review's comparisons 6.5 MB, reports
 * and charts under 1 MB (they share the pairs).
 */
const CAPACITY = 16;

/**
 * What a write knows of a response it touched from its own statements, exactly as the database holds it
 * once the write is done, so that a follow need not read it again. Every fact is optional: a write
 * says what it happened to read, and a follow reads what it is not told.
 */
export interface Touched {
  /** How many submitted annotations the response has (counted, not the queue's running count). */
  submitted?: number;
}

/**
 * How a kept value follows a write that touched `touched` (response ids of its dataset; `known`:
 * what the write told of some of them, see Touched). Called inside the write's transaction, after
 * the write: read there what the value needs, and return what to do once it has committed (update
 * the value in place and return it, or return a new one), or null when the value cannot follow this
 * write (it is then computed again when next asked).
 */
export type Follow<T> = (value: T, touched: readonly number[], known: ReadonlyMap<number, Touched>) => (() => T) | null;

/**
 * The follow of a value that reads nothing a label write changes (no label, annotation, adjudication
 * or response's labelling count: e.g. scores, runs, responses' texts and systems): it stays as it is.
 */
export function unchangedByLabels<T>(value: T): () => T {
  return () => value;
}

/** A write in progress (see `track`). */
export interface TrackedWrite {
  /**
   * Names a response the write changes, with what the write knows of it (Touched) as it will be once
   * the write is done; a later touch of the same response replaces what an earlier one told.
   */
  touch(responseId: number, known?: Touched): void;
  /** Call last inside the transaction; returns what to do once it has committed. */
  done(): () => void;
}

export interface DerivedCache {
  /**
   * The value for `key` in the dataset, computed by `compute` unless a value of the dataset's
   * current version is kept; `follow` (see Follow) lets the kept value follow tracked writes.
   */
  get<T extends object>(datasetId: number, key: string, compute: () => T, follow?: Follow<T>): Readonly<T>;
  /** The value kept for `key` at exactly `version`, if any (for tests and benches: no version query). */
  peek<T extends object>(datasetId: number, key: string, version: number): Readonly<T> | undefined;
  /**
   * Starts tracking a write to the dataset: call inside its transaction, before any change. With
   * `nested` (the transaction is part of an outer one, which may yet roll back) nothing follows.
   */
  track(datasetId: number, nested?: boolean): TrackedWrite;
  /**
   * Follows a write made on another connection (the labelling thread's, label-thread.ts) that moved the
   * dataset from version `from` to `to` touching `touched`: the kept values at `from` follow it as they
   * would a write of this connection, when the dataset is at `to` here (read in one transaction with
   * what they read). False when it is not (yet) at `to`: nothing followed, the caller may follow a longer
   * run of writes later; true when followed or when nothing is kept at `from`.
   */
  followWrite(datasetId: number, from: number, to: number, touched: ReadonlyArray<readonly [number, Touched | undefined]>): boolean;
  /** Drops every kept value: after a rollback of writes some of them may have followed (group-commit.ts). */
  clear(): void;
}

/** A tracked write as made (recordingCache): the dataset's version before and after it, and what it touched. */
export interface RecordedWrite { datasetId: number; from: number; to: number; touched: [number, Touched | undefined][] }

interface Entry { datasetId: number; version: number; value: object; follow: Follow<object> | undefined }

const IDLE: TrackedWrite = { touch: () => {}, done: () => () => {} };

function freeze(value: object): void {
  Object.freeze(value);
  if (Array.isArray(value)) for (const item of value) if (item && typeof item === 'object') Object.freeze(item);
}

export function derivedCache(db: DB, capacity = CAPACITY): DerivedCache {
  const version = db.prepare<[number], number>('SELECT data_version FROM dataset WHERE id = ?').pluck();
  const entries = new Map<string, Entry>();
  const ofDataset = (datasetId: number) => [...entries].filter(([, e]) => e.datasetId === datasetId);

  /** Inside the write's transaction (or a read at its end): how each value kept at `from` follows it. */
  function plan(datasetId: number, from: number, touched: ReadonlyMap<number, Touched | undefined>): [Entry, (() => object) | null][] {
    const ids = [...touched.keys()];
    const known = new Map<number, Touched>();
    for (const [id, facts] of touched) if (facts) known.set(id, facts);
    const plans: [Entry, (() => object) | null][] = [];
    for (const [, e] of ofDataset(datasetId)) {
      if (e.version !== from) continue;
      if (ids.length === 0) plans.push([e, null]);
      else if (e.follow) {
        const apply = e.follow(e.value, ids, known);
        if (apply) plans.push([e, apply]);
      }
    }
    return plans;
  }
  /** Once committed: the planned values updated and marked current at `to`, unless replaced or moved meanwhile. */
  function carry(plans: [Entry, (() => object) | null][], from: number, to: number): void {
    for (const [e, apply] of plans) {
      if (e.version !== from || ![...entries.values()].includes(e)) continue;
      if (apply) {
        const value = apply();
        if (value !== e.value) freeze(value);
        e.value = value;
      }
      e.version = to;
    }
  }
  const inReadTransaction = db.transaction((read: () => boolean) => read());

  return {
    get<T extends object>(datasetId: number, key: string, compute: () => T, follow?: Follow<T>): Readonly<T> {
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
      freeze(value);
      entries.set(k, { datasetId, version: current, value, follow: follow as Follow<object> | undefined });
      if (entries.size > capacity) entries.delete(entries.keys().next().value!);
      return value;
    },
    peek<T extends object>(datasetId: number, key: string, at: number): Readonly<T> | undefined {
      const hit = entries.get(`${datasetId}:${key}`);
      return hit && hit.version === at ? (hit.value as T) : undefined;
    },
    track(datasetId: number, nested = false): TrackedWrite {
      // Nothing kept (nobody looked since the last change): nothing to follow, no query.
      if (nested || ofDataset(datasetId).length === 0) return IDLE;
      const from = version.get(datasetId);
      if (from === undefined) return IDLE;
      const touched = new Map<number, Touched | undefined>();
      return {
        touch: (responseId, known) => void touched.set(responseId, known),
        done() {
          const to = version.get(datasetId)!;
          const plans = plan(datasetId, from, touched);
          // Still kept at `from` once committed: nothing replaced or moved it since the transaction began.
          return () => carry(plans, from, to);
        },
      };
    },
    followWrite(datasetId, from, to, touched) {
      if (!ofDataset(datasetId).some(([, e]) => e.version === from)) return true;
      let plans: [Entry, (() => object) | null][] = [];
      const readIfAtTo = (): boolean => {
        if (version.get(datasetId) !== to) return false;
        plans = plan(datasetId, from, new Map(touched));
        return true;
      };
      if (!(db.inTransaction ? readIfAtTo() : inReadTransaction(readIfAtTo) as boolean)) return false;
      carry(plans, from, to);
      return true;
    },
    clear: () => entries.clear(),
  };
}

/**
 * The kept values of a connection whose tracked writes another connection's cache follows (the labelling
 * thread's, label-thread.ts): every tracked write is recorded with its versions and what it touched,
 * for `drain` to hand over once committed; `onClear` is told of a rollback (group-commit.ts clears the
 * cache then), whose recorded writes never happened.
 */
export function recordingCache(db: DB, onClear: () => void): DerivedCache & { drain(): RecordedWrite[] } {
  const inner = derivedCache(db);
  const version = db.prepare<[number], number>('SELECT data_version FROM dataset WHERE id = ?').pluck();
  let writes: RecordedWrite[] = [];
  return {
    ...inner,
    track(datasetId: number, nested = false): TrackedWrite {
      const from = nested ? undefined : version.get(datasetId);
      if (from === undefined) return IDLE;
      const touched = new Map<number, Touched | undefined>();
      return {
        touch: (responseId, known) => void touched.set(responseId, known),
        done() {
          const write = { datasetId, from, to: version.get(datasetId)!, touched: [...touched] };
          return () => void writes.push(write);
        },
      };
    },
    clear() { inner.clear(); writes = []; onClear(); },
    drain() { const out = writes; writes = []; return out; },
  };
}
