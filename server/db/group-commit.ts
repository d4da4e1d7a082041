// Group commit: the writes of the requests handled in one turn of the event loop share one
// transaction, committed once at the end of that turn, before any of that turn's answers leaves
// the process.
//
// Why: with WAL, a commit writes every page the transaction changed to the log. One save-and-next
// changes about 15 pages (the annotation and its indexes, the label and its index, the response and
// its queue index, the dataset, the expert's progress, the audit event and its indexes) and most of
// them are the same pages the previous save changed; a commit also takes and releases the write lock.
// Measured per save at 20 connections: BEGIN and COMMIT alone ~180 µs of ~1.8 ms; grouped, about 10
// saves share a COMMIT and it costs ~40 µs per save. Saves that share a commit write their shared
// pages once. With `synchronous = FULL` (power-loss safety) they also share
// the fsync, which is where the idea comes from (databases' own group commit).
//
// How it stays correct:
// - `join()` (before a request's writes) opens the group's transaction (BEGIN IMMEDIATE) unless a
//   transaction is already open, and schedules its COMMIT with setImmediate: after every request
//   whose data arrived in this turn has been handled.
// - Inside the group each better-sqlite3 transaction runs as a savepoint: a request whose own
//   transaction throws rolls back its own writes only, as it would alone.
// - Save-and-next runs without one (`withoutSavepoint`). A savepoint keeps a copy of every page it
//   changes, in memory up to 64 KiB and then in a temporary file; one save-and-next changes about 16
//   pages, just past that, so each save wrote ~30 times to that file (43 write calls per save
//   instead of 12, ~140 µs of CPU: bench/README.md). Keeping the copies in memory instead
//   (temp_store = MEMORY) would also keep there those of large writes (a recount of 100,000
//   responses in a transaction: +346 MB). Save-and-next refuses what it refuses before it changes
//   anything; a failure after that breaks the whole group, which then rolls back as a failed COMMIT does.
// - `hold` (middleware) keeps every answer written while the group is open (res.write, res.end)
//   until the COMMIT has returned: what a request read may be another request's uncommitted write,
//   so no answer of the turn is sent before the turn is durable. A kill before the COMMIT loses only
//   requests that were never answered.
// - If the COMMIT fails, the group is rolled back, every value the derived cache keeps is dropped
//   (it may have followed a write that is now gone), and every held answer becomes an error page.
import type { NextFunction, Request, Response } from 'express';
import type { DB } from './connection.ts';
import { transactionDepth } from './connection.ts';
import type { Logger } from '../log.ts';

export interface GroupCommit {
  /** Opens the group's transaction unless one is open; call before a request writes. */
  join(): void;
  /** Whether the group's transaction is open and is the only transaction in progress. */
  outermost(): boolean;
  /**
   * A number naming the open group's transaction as the last request to join it found it: it changes
   * when the transaction begins and whenever a request joins it; null while no group is open (or SQLite
   * has ended its transaction). What a request read under a mark that is still the mark when it writes
   * was read in the transaction it writes in, and no other request has joined since: the write need not
   * read it again (labels/service.ts: the archived flag the labelling routes read).
   */
  mark(): number | null;
  /**
   * Middleware: holds every answer written while the group is open until it has committed; if the
   * commit fails, `failed` answers instead (the error page).
   */
  hold(failed: (req: Request, res: Response) => void): (req: Request, res: Response, next: NextFunction) => void;
  /** Commits the open group now (also what the scheduled flush does); for shutdown and tests. */
  flush(): void;
  /**
   * Runs `write` outside any group: an open group commits first (its answers go out), so that a
   * failure of `write` is its own and reaches its caller. For writers no answer waits on, which
   * carry on after a write as if it had been kept (the judge runner). Inside a transaction function
   * it only runs `write`, which then belongs to that transaction.
   */
  alone<T>(write: () => T): T;
  /**
   * Runs `write` in the group's own transaction, without a savepoint, when the group is the only
   * transaction in progress (otherwise as a transaction of its own). For a write that checks what it
   * refuses before its first change: an error thrown before any change leaves nothing behind; an
   * error after one may have left part of the write in the group, so the whole group is rolled back
   * at its flush and every answer of the turn becomes the error page, as when the COMMIT fails.
   */
  withoutSavepoint<T>(write: () => T): T;
}

/** A write or end of an answer, held: `send` makes it as it was made, `fail` answers with the error instead. */
interface Held { res: Response; send: () => void; fail: () => void }

export interface GroupCommitOptions {
  /** When the open group commits: at the end of this turn of the event loop (tests pass their own). */
  schedule?: (flush: () => void) => void;
}

export function groupCommit(db: DB, log: Logger, onRollback: () => void, { schedule = setImmediate }: GroupCommitOptions = {}): GroupCommit {
  let open = false;
  /** Counts joins (see `mark`). */
  let joins = 0;
  let held: Held[] = [];
  /** What made a write without a savepoint fail part-way: the group cannot commit. */
  let broken: unknown = null;
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  const ownTransaction = db.transaction((write: () => unknown) => write());

  function flush(): void {
    if (!open) return;
    const answers = held;
    held = [];
    let error: unknown = null;
    try {
      if (broken !== null) throw broken;
      db.exec('COMMIT');
    } catch (err) {
      error = err;
      // SQLite may have rolled back already (it does on some errors, a full disk among them).
      try { if (db.inTransaction) db.exec('ROLLBACK'); } catch (rollback) { log.error('db.group_rollback_failed', { message: (rollback as Error).message }); }
      onRollback();
    }
    open = false;
    broken = null;
    // One answer that cannot be written (its socket gone, a bad header) must not keep the others back.
    const answer = (res: Response, write: () => void) => {
      try { write(); } catch (err) {
        log.error('db.group_answer_failed', { message: (err as Error).message });
        res.destroy();
      }
    };
    if (error === null) {
      for (const a of answers) answer(a.res, a.send);
      return;
    }
    log.error('db.group_commit_failed', { message: (error as Error).message, answers: answers.length });
    const answered = new Set<Response>();
    for (const { res, fail } of answers) {
      if (answered.has(res)) continue;
      answered.add(res);
      if (res.headersSent) { res.destroy(); continue; }
      // What described the answer that is dropped (the security headers stay).
      for (const name of res.getHeaderNames()) if (/^(content-|etag$|location$|hx-)/.test(name)) res.removeHeader(name);
      answer(res, fail);
    }
  }

  return {
    join() {
      if (open) {
        // SQLite ends a transaction itself on some errors (a full disk, an I/O error, out of memory):
        // the group's is gone, and a write now would commit on its own. Refused, and the group fails.
        if (!db.inTransaction) throw (broken ??= new Error('the group commit\'s transaction was rolled back by SQLite'));
        joins++;
        return;
      }
      if (db.inTransaction) return;
      db.exec('BEGIN IMMEDIATE');
      open = true;
      joins++;
      schedule(flush);
    },
    outermost: () => open && transactionDepth(db) === 0,
    mark: () => (open && db.inTransaction ? joins : null),
    hold: (failed) => (req, res, next) => {
      const fail = () => failed(req, res);
      // While a group is open the call is kept, to be made as it was once the group has committed;
      // `held` is what it answers meanwhile. Typed loosely on purpose: both have several overloads.
      const deferred = (original: (...a: unknown[]) => unknown, whileHeld: unknown) => function (this: Response, ...args: unknown[]) {
        if (!open) return original.apply(this, args);
        held.push({ res, fail, send: () => { original.apply(res, args); } });
        return whileHeld;
      };
      res.write = deferred(res.write as (...a: unknown[]) => unknown, true) as Response['write'];
      res.end = deferred(res.end as (...a: unknown[]) => unknown, res) as Response['end'];
      next();
    },
    flush,
    alone(write) {
      if (open && transactionDepth(db) === 0) flush();
      return write();
    },
    withoutSavepoint(write) {
      if (!open || transactionDepth(db) !== 0) return ownTransaction(write) as ReturnType<typeof write>;
      // Rows changed on this connection so far (triggers' included): whether `write` changed any.
      const before = totalChanges.get();
      try {
        return write();
      } catch (err) {
        if (totalChanges.get() !== before) broken ??= err;
        throw err;
      }
    },
  };
}
