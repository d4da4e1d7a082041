// The server's write-ahead log is copied into the database file by a worker thread, not inside
// request commits: the app's own connection no longer checkpoints, yet the log does not pile up.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
});
