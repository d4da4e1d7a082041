// express-session's store, kept in goldset's own SQLite file so sessions survive restarts.
//
// The table stays bounded: only signed-in users' sessions are stored (a visitor who has not signed
// in gets cookies, never a row), each user keeps at most SESSIONS_PER_USER of them (the ones used
// least recently are dropped when another is started), and expired ones are deleted when a new one
// starts as well as every hour by the server.
import session from 'express-session';
import type { DB } from '../db/connection.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Browsers and devices one person may be signed in on at once. */
export const SESSIONS_PER_USER = 10;

export class SqliteSessionStore extends session.Store {
  private readonly q;

  constructor(db: DB) {
    super();
    this.q = {
      get: db.prepare<[string, number], { data: string }>('SELECT data FROM session WHERE sid = ? AND expires_at > ?'),
      exists: db.prepare<[string]>('SELECT 1 FROM session WHERE sid = ?').pluck(),
      set: db.prepare(`INSERT INTO session (sid, data, expires_at, user_id) VALUES (?, ?, ?, ?)
        ON CONFLICT (sid) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at, user_id = excluded.user_id`),
      // Rolling sessions touch on every request; writing only when the expiry moves by a minute saves a write per request.
      touch: db.prepare('UPDATE session SET expires_at = ? WHERE sid = ? AND expires_at < ?'),
      destroy: db.prepare('DELETE FROM session WHERE sid = ?'),
      destroyUser: db.prepare('DELETE FROM session WHERE user_id = ?'),
      keepNewest: db.prepare<[number, number, number]>(`DELETE FROM session WHERE user_id = ? AND sid NOT IN
        (SELECT sid FROM session WHERE user_id = ? ORDER BY expires_at DESC LIMIT ?)`),
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
    try {
      const userId = sess.userId;
      // Nothing but a sign-in is worth a row; a session that lost its user is gone.
      if (userId === undefined) {
        this.q.destroy.run(sid);
        return cb?.();
      }
      const started = this.q.exists.get(sid) === undefined;
      this.q.set.run(sid, JSON.stringify(sess), this.expiry(sess), userId);
      if (started) {
        this.q.keepNewest.run(userId, userId, SESSIONS_PER_USER);
        this.prune();
      }
      cb?.();
    } catch (err) { cb?.(err); }
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
