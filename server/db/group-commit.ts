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
}

/** A write or end of an answer, held: `send` makes it as it was made, `fail` answers with the error instead. */
interface Held { res: Response; send: () => void; fail: () => void }

export interface GroupCommitOptions {
  /** When the open group commits: at the end of this turn of the event loop (tests pass their own). */
  schedule?: (flush: () => void) => void;
}

export function groupCommit(db: DB, log: Logger, onRollback: () => void, { schedule = setImmediate }: GroupCommitOptions = {}): GroupCommit {
  let open = false;
  let held: Held[] = [];

  function flush(): void {
    if (!open) return;
    const answers = held;
    held = [];
    let error: unknown = null;
    try {
      db.exec('COMMIT');
    } catch (err) {
      error = err;
      // SQLite may have rolled back already (it does on some errors, a full disk among them).
      try { if (db.inTransaction) db.exec('ROLLBACK'); } catch (rollback) { log.error('db.group_rollback_failed', { message: (rollback as Error).message }); }
      onRollback();
    }
    open = false;
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
      if (open || db.inTransaction) return;
      db.exec('BEGIN IMMEDIATE');
      open = true;
      schedule(flush);
    },
    outermost: () => open && transactionDepth(db) === 0,
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
  };
}
