// Moves SQLite's WAL checkpoints out of request handling. By default the connection that commits
// past 1,000 pages of log copies them into the database file inside that commit, so every ~70th
// label save paid for everyone's writes and a large import paid for its own twice. The server
// instead turns the automatic checkpoint off on its connection and lets a worker thread, with its
// own connection, checkpoint once a second. If the worker cannot run, the automatic checkpoint is
// switched back on.
import { Worker } from 'node:worker_threads';
import type { DB } from './connection.ts';
import type { Logger } from '../log.ts';

/** SQLite's default: checkpoint when the log passes this many pages. */
const AUTO_CHECKPOINT_PAGES = 1000;

export interface Checkpointer { stop(): Promise<void> }

export function startCheckpointer(db: DB, log: Logger, intervalMs = 1000): Checkpointer {
  if (db.memory) return { stop: async () => {} };
  db.pragma('wal_autocheckpoint = 0');
  const fallBack = (reason: string) => {
    if (!db.open) return;
    db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    log.error('db.checkpointer_failed', { reason });
  };
  const worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), { workerData: { file: db.name, intervalMs } });
  worker.unref();
  let running = true, stopping = false;
  worker.on('message', (m: { error?: string }) => { if (m.error) log.warn('db.checkpoint_failed', { error: m.error }); });
  worker.on('error', (err) => fallBack(err.message));
  worker.on('exit', (code) => {
    running = false;
    if (!stopping) fallBack(`checkpoint worker exited (${code})`);
  });
  return {
    async stop() {
      stopping = true;
      if (!running) return;
      worker.ref(); // keep the process alive until the worker has closed its connection
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      await exited;
    },
  };
}
