// express-session's store, kept in goldset's own SQLite file so sessions survive restarts.
import session from 'express-session';
import type { DB } from '../db/connection.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export class SqliteSessionStore extends session.Store {
  private readonly q;

  constructor(db: DB) {
    super();
    this.q = {
      get: db.prepare<[string, number], { data: string }>('SELECT data FROM session WHERE sid = ? AND expires_at > ?'),
      set: db.prepare('INSERT INTO session (sid, data, expires_at) VALUES (?, ?, ?) ON CONFLICT (sid) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at'),
      // Rolling sessions touch on every request; writing only when the expiry moves by a minute saves a write per request.
      touch: db.prepare('UPDATE session SET expires_at = ? WHERE sid = ? AND expires_at < ?'),
      destroy: db.prepare('DELETE FROM session WHERE sid = ?'),
      destroyUser: db.prepare("DELETE FROM session WHERE json_extract(data, '$.userId') = ?"),
      prune: db.prepare('DELETE FROM session WHERE expires_at <= ?'),
    };
  }

  private expiry(sess: session.SessionData): number {
    const expires = sess.cookie?.expires;
    return expires ? new Date(expires).getTime() : Date.now() + DAY_MS;
  }

  override get(sid: string, cb: (err: unknown, session?: session.SessionData | null) => void): void {
    try {
      const row = this.q.get.get(sid, Date.now());
      cb(null, row ? (JSON.parse(row.data) as session.SessionData) : null);
    } catch (err) { cb(err); }
  }

  override set(sid: string, sess: session.SessionData, cb?: (err?: unknown) => void): void {
    try { this.q.set.run(sid, JSON.stringify(sess), this.expiry(sess)); cb?.(); } catch (err) { cb?.(err); }
  }

  override touch(sid: string, sess: session.SessionData, cb?: () => void): void {
    const expiry = this.expiry(sess);
    this.q.touch.run(expiry, sid, expiry - 60_000);
    cb?.();
  }

  override destroy(sid: string, cb?: (err?: unknown) => void): void {
    try { this.q.destroy.run(sid); cb?.(); } catch (err) { cb?.(err); }
  }

  /** Ends every session of a user, e.g. when an admin disables the account. */
  destroyForUser(userId: number): void {
    this.q.destroyUser.run(userId);
  }

  prune(): void {
    this.q.prune.run(Date.now());
  }
}
