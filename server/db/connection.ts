// Opens goldset's SQLite database with the settings every connection must have.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type DB = Database.Database;

export interface OpenOptions {
  /** FULL survives power loss; NORMAL (default) survives a crash or kill of the process. */
  synchronous?: 'NORMAL' | 'FULL';
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
  return db;
}
