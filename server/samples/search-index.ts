// Fills the trigram index for samples added in bulk, in small transactions between requests, so an
// import commits without waiting for the index and the app stays responsive while it is built.
// Until the indexer reaches a row, search finds it by scanning (see migrations/0007 and queries.ts).
import type { DB } from '../db/connection.ts';
import type { Logger } from '../log.ts';

/** Rows per background transaction: about 20 ms of work, so requests wait at most that long. */
const BACKGROUND_BATCH = 500;

export function searchIndexer(db: DB, log: Logger) {
  const mark = db.prepare('SELECT indexed_upto FROM search_index_state').pluck();
  const batchEnd = db.prepare<[number, number]>('SELECT max(id) FROM (SELECT id FROM sample WHERE id > ? ORDER BY id LIMIT ?)').pluck();
  const add = db.prepare<[number, number]>(`INSERT INTO sample_fts (rowid, question, ground_truth, notes)
    SELECT id, question, ground_truth, notes FROM sample WHERE id > ? AND id <= ? ORDER BY id`);
  const advance = db.prepare<[number]>('UPDATE search_index_state SET indexed_upto = ?');
  const pendingCount = db.prepare<[number]>('SELECT count(*) FROM sample WHERE id > ?').pluck();

  /** Indexes the next `size` unindexed rows; false when there were none. */
  const step = db.transaction((size: number): boolean => {
    const from = mark.get() as number;
    const to = batchEnd.get(from, size) as number | null;
    if (to === null) return false;
    add.run(from, to);
    advance.run(to);
    return true;
  });

  let running = false;
  let idle: Promise<void> = Promise.resolve();

  return {
    /** Samples the trigram index does not hold yet. */
    pending: (): number => pendingCount.get(mark.get() as number) as number,

    /** Starts indexing in the background (a no-op when it runs already); `idle()` resolves when it is done. */
    schedule(): void {
      if (running) return;
      running = true;
      idle = new Promise<void>((resolve) => {
        const tick = () => {
          try {
            if (db.open && step(BACKGROUND_BATCH)) { setImmediate(tick); return; }
          } catch (err) {
            // The rows stay searchable by scan; the next schedule (e.g. the next start) retries.
            log.error('search_index.failed', { error: err instanceof Error ? err.message : String(err) });
          }
          running = false;
          resolve();
        };
        setImmediate(tick);
      });
    },

    idle: (): Promise<void> => idle,

    /** Indexes everything now, in larger transactions (the CLI, before it exits). */
    catchUp(): void {
      while (step(10_000));
    },
  };
}

export type SearchIndexer = ReturnType<typeof searchIndexer>;
