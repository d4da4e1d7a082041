// Applies migrations/NNNN_name.sql in order, each together with its version record in one transaction.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DB } from './connection.ts';
import { questionKey } from '../samples/key.ts';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

export class MigrationError extends Error {
  constructor(readonly file: string, override readonly cause: unknown) {
    super(`migration ${file} failed: ${cause instanceof Error ? cause.message : String(cause)}. ` +
      'The database was left as it was before this migration.');
  }
}

interface Migration { version: number; name: string; file: string }

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const migrations = fs.readdirSync(dir)
    .map((file) => {
      const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
      return match ? { version: Number(match[1]), name: match[2]!, file } : null;
    })
    .filter((m): m is Migration => m !== null)
    .sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migrations must be numbered 0001, 0002, …; found ${m.file}`);
  });
  return migrations;
}

/** Brings the database to the newest schema; returns the versions it applied. */
export function migrate(db: DB, dir = MIGRATIONS_DIR): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migration (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL,
    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))) STRICT`);
  // Functions a migration may call to recompute derived columns with the app's own definition.
  db.function('goldset_question_key', { deterministic: true }, (q: unknown) => questionKey(String(q)));
  const applied = new Set(db.prepare('SELECT version FROM schema_migration').pluck().all() as number[]);
  const record = db.prepare('INSERT INTO schema_migration (version, name) VALUES (?, ?)');
  const done: number[] = [];
  for (const m of listMigrations(dir)) {
    if (applied.has(m.version)) continue;
    const sql = fs.readFileSync(path.join(dir, m.file), 'utf8');
    try {
      db.transaction(() => {
        db.exec(sql);
        record.run(m.version, m.name);
        db.pragma(`user_version = ${m.version}`);
      })();
    } catch (err) {
      throw new MigrationError(m.file, err);
    }
    done.push(m.version);
  }
  return done;
}
