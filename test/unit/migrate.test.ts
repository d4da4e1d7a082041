import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/connection.ts';
import { listMigrations, migrate, MigrationError } from '../../server/db/migrate.ts';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-mig-'));
}

describe('migrations', () => {
  it('applies the shipped migrations once, with WAL and foreign keys on', () => {
    const db = openDatabase(path.join(tempDir(), 'a.db'));
    const applied = migrate(db);
    expect(applied).toEqual(listMigrations().map((m) => m.version));
    expect(migrate(db)).toEqual([]);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('user_version', { simple: true })).toBe(applied.at(-1));
  });

  it('leaves the database as it was when a migration fails, and names the file', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, '0001_good.sql'), 'CREATE TABLE a (id INTEGER PRIMARY KEY) STRICT;');
    fs.writeFileSync(path.join(dir, '0002_bad.sql'), 'CREATE TABLE b (id INTEGER PRIMARY KEY) STRICT;\nINSERT INTO nowhere VALUES (1);');
    const db = openDatabase(path.join(dir, 'x.db'));
    let error: unknown;
    try { migrate(db, dir); } catch (e) { error = e; }
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toContain('0002_bad.sql');
    expect((error as Error).message).toContain('no such table: nowhere');
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(['a', 'schema_migration']);
    expect(db.prepare('SELECT version FROM schema_migration').pluck().all()).toEqual([1]);
  });

  it('refuses migrations that skip a number', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, '0001_a.sql'), 'SELECT 1;');
    fs.writeFileSync(path.join(dir, '0003_c.sql'), 'SELECT 1;');
    expect(() => listMigrations(dir)).toThrow(/0003_c.sql/);
  });
});
