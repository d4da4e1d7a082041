// Group commit (server/db/group-commit.ts): the writes of requests handled in one turn share one
// COMMIT, and no answer of that turn leaves before it. These tests hold the flush in their hand (the
// `schedule` option) so that "the same turn" is certain: two real HTTP requests are handled, their
// answers held, then the group commits — or fails to.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, transactionDepth, type DB } from '../../server/db/connection.ts';
import { groupCommit, type GroupCommit } from '../../server/db/group-commit.ts';
import { createLogger } from '../../server/log.ts';

let dir: string;
let db: DB;
let other: Database.Database;
let group: GroupCommit;
let flushLater: (() => void) | null;
let rolledBack: number;
let logs: string[];
let server: Server;
let url: string;
let handled: (() => void)[];

const rows = () => other.prepare('SELECT v FROM item ORDER BY v').pluck().all();

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-group-'));
  const file = path.join(dir, 'g.db');
  db = openDatabase(file);
  // A deferred foreign key is checked at the outermost COMMIT only: the way to make a COMMIT fail.
  db.exec(`CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TABLE item (v TEXT NOT NULL, parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)`);
  other = new Database(file, { readonly: true });
  flushLater = null;
  rolledBack = 0;
  logs = [];
  handled = [];
  group = groupCommit(db, createLogger('debug', (line) => logs.push(line)), () => { rolledBack++; }, { schedule: (flush) => { flushLater = flush; } });
  const insert = db.prepare('INSERT INTO item (v, parent) VALUES (?, ?)');
  const app = express();
  app.use(group.hold((_req, res) => { res.status(500).type('text').send('not saved'); }));
  app.post('/write/:v', (req, res) => {
    group.join();
    db.transaction(() => insert.run(req.params.v, null))();
    res.type('text').send(`saved ${req.params.v}`);
    handled.shift()?.();
  });
  // A write the COMMIT refuses: its parent does not exist.
  app.post('/orphan', (_req, res) => {
    group.join();
    db.transaction(() => insert.run('orphan', 42))();
    res.type('text').send('saved orphan');
    handled.shift()?.();
  });
  // A request whose own transaction fails: only its writes go.
  app.post('/half/:v', (req, res) => {
    group.join();
    try {
      db.transaction(() => { insert.run(req.params.v, null); throw new Error('refused'); })();
    } catch {
      res.status(422).type('text').send('refused');
    }
    handled.shift()?.();
  });
  // Writes without a savepoint of their own (withoutSavepoint): refused before any change, or failing after one.
  app.post('/unsaved/:how', (req, res) => {
    group.join();
    try {
      group.withoutSavepoint(() => {
        if (req.params.how === 'refused') throw new Error('refused');
        insert.run(req.params.how, null);
        if (req.params.how === 'broken') throw new Error('failed after a change');
      });
      res.type('text').send(`saved ${req.params.how}`);
    } catch (err) {
      res.status(req.params.how === 'refused' ? 422 : 500).type('text').send((err as Error).message);
    }
    handled.shift()?.();
  });
  app.get('/count', (_req, res) => {
    res.type('text').send(String(db.prepare('SELECT count(*) FROM item').pluck().get()));
    handled.shift()?.();
  });
  server = await new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  other.close();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Sends the requests and resolves once the server has handled all of them (their answers may be held). */
async function send(requests: [method: string, path: string][]) {
  const all = requests.map(() => new Promise<void>((resolve) => handled.push(resolve)));
  const answers = requests.map(([method, p]) => fetch(url + p, { method }).then(async (r) => ({ status: r.status, text: await r.text() })));
  await Promise.all(all);
  return answers;
}

/** Whether a promise has settled by now (after the event loop had a chance to deliver it). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => { done = true; }, () => { done = true; });
  await new Promise((resolve) => setTimeout(resolve, 50));
  return done;
}

describe('group commit', () => {
  it('holds every answer of the group until one COMMIT has made all of its writes durable', async () => {
    const execs: string[] = [];
    const exec = db.exec.bind(db);
    db.exec = ((sql: string) => { execs.push(sql); return exec(sql); }) as DB['exec'];
    const [a, b] = await send([['POST', '/write/a'], ['POST', '/write/b']]);
    expect(execs).toEqual(['BEGIN IMMEDIATE']); // the second request joined the open group
    expect(rows()).toEqual([]); // nothing committed yet: another connection sees neither write
    expect(await settled(a!)).toBe(false);
    expect(await settled(b!)).toBe(false);
    flushLater!();
    expect(execs).toEqual(['BEGIN IMMEDIATE', 'COMMIT']);
    expect(await a).toEqual({ status: 200, text: 'saved a' });
    expect(await b).toEqual({ status: 200, text: 'saved b' });
    expect(rows()).toEqual(['a', 'b']);
  });

  it('holds a read made inside the group too: it may show another request\'s uncommitted write', async () => {
    const [w, r] = await send([['POST', '/write/a'], ['GET', '/count']]);
    expect(await settled(r!)).toBe(false);
    flushLater!();
    expect(await r).toEqual({ status: 200, text: '1' });
    expect((await w)!.status).toBe(200);
  });

  it('answers every request of a group whose COMMIT fails with the error instead, keeps none of its writes, and drops what was kept', async () => {
    const [a, orphan, count] = await send([['POST', '/write/a'], ['POST', '/orphan'], ['GET', '/count']]);
    flushLater!();
    expect(await a).toEqual({ status: 500, text: 'not saved' });
    expect(await orphan).toEqual({ status: 500, text: 'not saved' });
    expect(await count).toEqual({ status: 500, text: 'not saved' }); // it had counted 2 rows that never were
    expect(rows()).toEqual([]);
    expect(db.inTransaction).toBe(false);
    expect(rolledBack).toBe(1);
    expect(logs.some((l) => l.includes('db.group_commit_failed'))).toBe(true);
    // The next group works as before.
    const [next] = await send([['POST', '/write/c']]);
    flushLater!();
    expect((await next)!.status).toBe(200);
    expect(rows()).toEqual(['c']);
  });

  it('answers the others when one client has gone before the COMMIT (its write is kept, as a handled request\'s is)', async () => {
    const gone = new AbortController();
    const handledBoth = [new Promise<void>((resolve) => handled.push(resolve)), new Promise<void>((resolve) => handled.push(resolve))];
    const left = fetch(`${url}/write/a`, { method: 'POST', signal: gone.signal }).catch((err: Error) => err.name);
    const stays = fetch(`${url}/write/b`, { method: 'POST' }).then(async (r) => ({ status: r.status, text: await r.text() }));
    await Promise.all(handledBoth);
    gone.abort();
    expect(await left).toBe('AbortError');
    await new Promise((resolve) => setTimeout(resolve, 50)); // the server sees the socket close
    flushLater!();
    expect(await stays).toEqual({ status: 200, text: 'saved b' });
    expect(rows()).toEqual(['a', 'b']);
  });

  it('rolls back only the writes of a request whose own transaction fails', async () => {
    const [a, half, b] = await send([['POST', '/write/a'], ['POST', '/half/x'], ['POST', '/write/b']]);
    flushLater!();
    expect((await a)!.status).toBe(200);
    expect(await half).toEqual({ status: 422, text: 'refused' });
    expect((await b)!.status).toBe(200);
    expect(rows()).toEqual(['a', 'b']);
  });

  it('commits the open group before a write that must stand alone, whose failure then is its own', async () => {
    const [a] = await send([['POST', '/write/a']]);
    // A background writer (the judge runner) whose write fails: the group is not dragged down with it.
    expect(() => group.alone(() => db.transaction(() => db.prepare("INSERT INTO item (v, parent) VALUES ('orphan', 42)").run())()))
      .toThrow(/FOREIGN KEY/);
    expect(await a).toEqual({ status: 200, text: 'saved a' });
    expect(rows()).toEqual(['a']);
    expect(db.inTransaction).toBe(false);
    flushLater!(); // the scheduled flush finds nothing left to do
    expect(rows()).toEqual(['a']);
  });

  it('runs a write without a savepoint in the group\'s own transaction; a refusal before any change leaves the others to commit', async () => {
    const statements: string[] = [];
    const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as { run: (...a: unknown[]) => unknown };
    const run = proto.run;
    proto.run = function (this: { source: string }, ...a: unknown[]) { statements.push(this.source); return run.apply(this, a); };
    try {
      const [a, refused, b] = await send([['POST', '/unsaved/a'], ['POST', '/unsaved/refused'], ['POST', '/write/b']]);
      flushLater!();
      expect(await a).toEqual({ status: 200, text: 'saved a' });
      expect(await refused).toEqual({ status: 422, text: 'refused' });
      expect((await b)!.status).toBe(200);
      expect(rows()).toEqual(['a', 'b']);
      // /write/b's transaction was a savepoint of the group; the writes without one made none.
      expect(statements.filter((sql) => sql.startsWith('SAVEPOINT'))).toHaveLength(1);
    } finally {
      proto.run = run;
    }
  });

  it('rolls the whole group back when a write without a savepoint fails after a change, and answers every request with the error', async () => {
    const [a, broken, count] = await send([['POST', '/write/a'], ['POST', '/unsaved/broken'], ['GET', '/count']]);
    flushLater!();
    expect(await a).toEqual({ status: 500, text: 'not saved' });
    expect(await broken).toEqual({ status: 500, text: 'not saved' });
    expect(await count).toEqual({ status: 500, text: 'not saved' });
    expect(rows()).toEqual([]);
    expect(db.inTransaction).toBe(false);
    expect(rolledBack).toBe(1);
    expect(logs.some((l) => l.includes('db.group_commit_failed') && l.includes('failed after a change'))).toBe(true);
    // The next group commits as before, and outside a group the write is a transaction of its own.
    const [next] = await send([['POST', '/unsaved/c']]);
    flushLater!();
    expect((await next)!.status).toBe(200);
    expect(() => group.withoutSavepoint(() => { db.prepare("INSERT INTO item (v) VALUES ('d')").run(); throw new Error('alone'); })).toThrow('alone');
    expect(rows()).toEqual(['c']);
    expect(db.inTransaction).toBe(false);
  });

  it('refuses to join a group whose transaction SQLite has ended (a full disk): no write commits on its own, every answer is the error', async () => {
    const [a] = await send([['POST', '/write/a']]);
    db.exec('ROLLBACK'); // what SQLite does itself on SQLITE_FULL, SQLITE_IOERR or SQLITE_NOMEM in the middle of a group
    expect(() => group.join()).toThrow(/rolled back by SQLite/);
    flushLater!();
    expect(await a).toEqual({ status: 500, text: 'not saved' });
    expect(rows()).toEqual([]);
    expect(rolledBack).toBe(1);
    // The next group works as before.
    const [b] = await send([['POST', '/write/b']]);
    flushLater!();
    expect((await b)!.status).toBe(200);
    expect(rows()).toEqual(['b']);
  });

  it('answers at once when no group is open, and does not open one inside another transaction', async () => {
    const [count] = await send([['GET', '/count']]);
    expect(flushLater).toBeNull();
    expect(await count).toEqual({ status: 200, text: '0' });
    db.transaction(() => {
      group.join();
      expect(group.outermost()).toBe(false);
    })();
    expect(flushLater).toBeNull();
  });

  it('tells a transaction nested in the group from one nested in another transaction', () => {
    expect(transactionDepth(db)).toBe(0);
    group.join();
    expect(group.outermost()).toBe(true);
    db.transaction(() => {
      expect(transactionDepth(db)).toBe(1);
      expect(group.outermost()).toBe(false);
      db.transaction(() => expect(transactionDepth(db)).toBe(2)).immediate();
    })();
    expect(group.outermost()).toBe(true);
    group.flush();
    expect(group.outermost()).toBe(false);
    expect(transactionDepth(new Database(':memory:'))).toBe(-1);
  });

  it('marks the open group\'s transaction anew at its BEGIN and at each join, and marks nothing without one', () => {
    expect(group.mark()).toBeNull();
    db.transaction(() => {
      group.join(); // someone else's transaction: no group
      expect(group.mark()).toBeNull();
    })();
    group.join();
    const first = group.mark();
    expect(first).not.toBeNull();
    db.prepare("INSERT INTO item (v) VALUES ('a')").run();
    expect(group.mark()).toBe(first); // a request's own reads and writes keep its mark
    group.join(); // another request joins: what the first read may have changed since
    const second = group.mark();
    expect(second).not.toBe(first);
    group.flush();
    expect(group.mark()).toBeNull();
    group.join();
    expect([first, second]).not.toContain(group.mark()); // a new transaction, never an earlier one's mark
    db.exec('ROLLBACK'); // SQLite ending the group's transaction itself
    expect(group.mark()).toBeNull();
    flushLater!();
  });
});
