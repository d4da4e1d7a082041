// Opens goldset's SQLite database with the settings every connection must have.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type DB = Database.Database;

export interface OpenOptions {
  /** FULL survives power loss; NORMAL (default) survives a crash or kill of the process. */
  synchronous?: 'NORMAL' | 'FULL';
}

/** Transaction functions (db.transaction) running now, per connection opened here. */
const depths = new WeakMap<DB, { n: number }>();

/**
 * How many transaction functions made with `db.transaction` are running on this connection; -1
 * for a connection not opened by openDatabase (unknown). A transaction open with none running is
 * one begun by a plain BEGIN: the group commit's (group-commit.ts).
 */
export function transactionDepth(db: DB): number {
  return depths.get(db)?.n ?? -1;
}

export function openDatabase(file: string, options: OpenOptions = {}): DB {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  // 64 MB page cache (default 2 MB): the queue, the import and the reports touch far more than 2 MB.
  db.pragma('cache_size = -65536');
  // Counts running transaction functions (see transactionDepth). The function given to
  // better-sqlite3 is wrapped, not the one it returns, so its deferred/immediate/exclusive
  // variants count too.
  const depth = { n: 0 };
  depths.set(db, depth);
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...args: unknown[]) => unknown) => transaction(function (this: unknown, ...args: unknown[]) {
    depth.n++;
    try { return fn.apply(this, args); } finally { depth.n--; }
  })) as DB['transaction'];
  return db;
}
