// The server's write-ahead log is copied into the database file by a worker thread, not inside
// request commits: the app's own connection no longer checkpoints, yet the log does not pile up.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/connection.ts';
import { startCheckpointer } from '../../server/db/checkpointer.ts';
import { createLogger } from '../../server/log.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('background checkpoints', () => {
  it('turns automatic checkpoints off on the app connection and checkpoints from a worker', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-ckpt-'));
    const file = path.join(dir, 'c.db');
    const db = openDatabase(file);
    const lines: string[] = [];
    const checkpointer = startCheckpointer(db, createLogger('info', (l) => lines.push(l)), 50);
    try {
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      db.exec('CREATE TABLE t (x TEXT)');
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      db.transaction(() => { for (let i = 0; i < 2000; i++) insert.run('x'.repeat(1000)); })();
      // Only the worker can have moved those ~2 MB from the log into the database file.
      let size = 0;
      for (let i = 0; i < 200 && size < 2_000_000; i++) { await sleep(50); size = fs.statSync(file).size; }
      expect(size).toBeGreaterThan(2_000_000);
      expect(lines.filter((l) => l.includes('failed'))).toEqual([]);
    } finally {
      await checkpointer.stop();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('switches automatic checkpoints back on when the worker cannot run', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-ckpt-'));
    const db = openDatabase(path.join(dir, 'c.db'));
    const lines: string[] = [];
    fs.rmSync(dir, { recursive: true, force: true }); // the worker's own connection cannot open the file any more
    startCheckpointer(db, createLogger('info', (l) => lines.push(l)), 50);
    for (let i = 0; i < 200 && db.pragma('wal_autocheckpoint', { simple: true }) === 0; i++) await sleep(50);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(lines.join('\n')).toContain('db.checkpointer_failed');
    db.close();
  });

  it('loses no committed row when the process is killed while the log is not yet copied', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-ckpt-'));
    const file = path.join(dir, 'k.db');
    // A child commits 500 rows one by one with checkpoints left to a worker that runs only every
    // 10 minutes, says so, and is killed at once.
    const script = `
      import { writeSync } from 'node:fs';
      import { openDatabase } from './server/db/connection.ts';
      import { startCheckpointer } from './server/db/checkpointer.ts';
      import { createLogger } from './server/log.ts';
      const db = openDatabase(${JSON.stringify(file)});
      startCheckpointer(db, createLogger('silent'), 600000);
      db.exec('CREATE TABLE t (n INTEGER)');
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      for (let i = 0; i < 500; i++) insert.run(i);
      writeSync(1, 'committed'); // synchronous: the kill must not beat it
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: path.resolve(import.meta.dirname, '../..'), encoding: 'utf8' });
    expect(child.stdout, child.stderr).toContain('committed');
    expect(child.signal).toBe('SIGKILL');
    expect(fs.existsSync(file + '-wal')).toBe(true);
    const db = openDatabase(file);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(500);
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
