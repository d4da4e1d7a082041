// SQL for users, invitations and login throttling.
import type { DB } from '../db/connection.ts';
import type { Role } from '../http/context.ts';
import type { Locale } from '../i18n/index.ts';

export interface UserRow {
  id: number;
  email: string;
  name: string;
  role: Role;
  /** 1 while the user has no password yet (invited, not yet joined). The hash itself is read only to check a login. */
  invited: 0 | 1;
  disabled: 0 | 1;
  locale: Locale | null;
  created_at: string;
}

/** Every column but the password hash, which only a login check reads (passwordHash below). */
const USER = 'id, email, name, role, password_hash IS NULL AS invited, disabled, locale, created_at';

export function userQueries(db: DB) {
  const s = {
    count: db.prepare('SELECT count(*) FROM user').pluck(),
    // Asked on every request before setup is known done: one row looked at, however many users there are.
    none: db.prepare('SELECT NOT EXISTS (SELECT 1 FROM user)').pluck(),
    byId: db.prepare<[number], UserRow>(`SELECT ${USER} FROM user WHERE id = ?`),
    byEmail: db.prepare<[string], UserRow>(`SELECT ${USER} FROM user WHERE email = ?`),
    passwordHash: db.prepare<[number], string | null>('SELECT password_hash FROM user WHERE id = ?').pluck(),
    all: db.prepare<[], UserRow>(`SELECT ${USER} FROM user ORDER BY disabled, email`),
    insert: db.prepare<{ email: string; name: string; role: Role; password_hash: string | null }>(
      'INSERT INTO user (email, name, role, password_hash) VALUES (@email, @name, @role, @password_hash)'),
    setRole: db.prepare<[Role, number]>('UPDATE user SET role = ? WHERE id = ?'),
    setDisabled: db.prepare<[0 | 1, number]>('UPDATE user SET disabled = ? WHERE id = ?'),
    setPassword: db.prepare<[string, number]>('UPDATE user SET password_hash = ? WHERE id = ?'),
    replacePassword: db.prepare<[string, number, string]>('UPDATE user SET password_hash = ? WHERE id = ? AND password_hash = ?'),
    setLocale: db.prepare<[Locale, number]>('UPDATE user SET locale = ? WHERE id = ?'),
    activeAdmins: db.prepare("SELECT count(*) FROM user WHERE role = 'admin' AND disabled = 0").pluck(),
    insertInvite: db.prepare<[number, string, number]>('INSERT INTO invite (user_id, token_hash, expires_at) VALUES (?, ?, ?)'),
    inviteByHash: db.prepare<[string, number], { id: number; user_id: number; token_hash: string }>(
      'SELECT id, user_id, token_hash FROM invite WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?'),
    dropInvites: db.prepare<[number]>('DELETE FROM invite WHERE user_id = ? AND used_at IS NULL'),
    useInvite: db.prepare<[number, number]>('UPDATE invite SET used_at = ? WHERE id = ? AND used_at IS NULL'),
    recordFailure: db.prepare<[string, string, number]>('INSERT INTO login_failure (email, ip, at) VALUES (?, ?, ?)'),
    failuresByEmail: db.prepare<[string, number]>('SELECT count(*) FROM login_failure WHERE email = ? AND at > ?').pluck(),
    failuresByIp: db.prepare<[string, number]>('SELECT count(*) FROM login_failure WHERE ip = ? AND at > ?').pluck(),
    forgetAttempt: db.prepare<[number]>('DELETE FROM login_failure WHERE id = ?'),
    pruneFailures: db.prepare<[number]>('DELETE FROM login_failure WHERE at <= ?'),
  };
  return {
    count: () => s.count.get() as number,
    /** Whether there is no user yet (the first admin is still to be created). */
    none: () => s.none.get() === 1,
    byId: (id: number) => s.byId.get(id),
    byEmail: (email: string) => s.byEmail.get(email),
    passwordHash: (id: number) => s.passwordHash.get(id) ?? null,
    all: () => s.all.all(),
    insert: (u: { email: string; name: string; role: Role; password_hash: string | null }) => Number(s.insert.run(u).lastInsertRowid),
    setRole: (id: number, role: Role) => s.setRole.run(role, id),
    setDisabled: (id: number, disabled: boolean) => s.setDisabled.run(disabled ? 1 : 0, id),
    setPassword: (id: number, hash: string) => s.setPassword.run(hash, id),
    /** Only while the hash is still `was`: a password set meanwhile is never overwritten. */
    replacePassword: (id: number, was: string, hash: string) => s.replacePassword.run(hash, id, was),
    setLocale: (id: number, locale: Locale) => s.setLocale.run(locale, id),
    activeAdmins: () => s.activeAdmins.get() as number,
    insertInvite: (userId: number, tokenHash: string, expiresAt: number) => s.insertInvite.run(userId, tokenHash, expiresAt),
    inviteByHash: (hash: string, now: number) => s.inviteByHash.get(hash, now),
    /** Marks the invitation used; false when it was used meanwhile (two accepts at once). */
    useInvite: (id: number, now: number) => s.useInvite.run(now, id).changes > 0,
    /** Ends the open invitations of a user: a reissued link replaces them. */
    dropInvites: (userId: number) => s.dropInvites.run(userId),
    /** Counts an attempt as a failure; returns its id, so a correct password can take back exactly this one. */
    recordFailure: (email: string, ip: string, now: number) => Number(s.recordFailure.run(email, ip, now).lastInsertRowid),
    failuresByEmail: (email: string, since: number) => s.failuresByEmail.get(email, since) as number,
    failuresByIp: (ip: string, since: number) => s.failuresByIp.get(ip, since) as number,
    forgetAttempt: (id: number) => s.forgetAttempt.run(id),
    pruneFailures: (before: number) => s.pruneFailures.run(before),
  };
}

export type UserQueries = ReturnType<typeof userQueries>;
