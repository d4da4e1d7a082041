// Runs in a worker thread with its own connection: copies the write-ahead log into the database
// file every `intervalMs`. PASSIVE never waits for readers or writers, so requests do not notice.
// Plain JavaScript, so the thread starts without loading tsx (TypeScript workers start from
// server/worker-boot.mjs instead).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** @type {{ file: string, intervalMs: number }} */
const { file, intervalMs } = workerData;
const db = new Database(file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');

const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort?.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
}, intervalMs);

parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
