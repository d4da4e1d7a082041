// Rules for accounts: first-run admin, invitations, roles, disabling, and throttled logins.
import crypto from 'node:crypto';
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { Role } from '../http/context.ts';
import type { MessageKey } from '../i18n/index.ts';
import { cheaperThan, DEFAULT_PASSWORD_COST, hashPassword, randomToken, sha256, verifyPassword } from '../auth/password.ts';
import { userQueries, type UserRow } from './queries.ts';

const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
const MAX_FAILURES_PER_EMAIL = 5;
const MAX_FAILURES_PER_IP = 30;
const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export class UserError extends Error {
  constructor(readonly key: MessageKey, readonly field = '_form') { super(key); }
}

/** Someone changed the user's role or access since the page was read; `current` is the user now. */
export class UserConflict extends Error {
  constructor(readonly current: UserRow) { super('conflict'); }
}

export type LoginResult = { ok: true; user: UserRow } | { ok: false; reason: 'invalid' | 'throttled' | 'disabled' };

export function publicUser(u: UserRow) {
  return { id: u.id, email: u.email, name: u.name, role: u.role, disabled: u.disabled === 1 };
}

/** `passwordCost`: scrypt's cost for new hashes (config.passwordCost); `now`: the clock, for tests. */
export function userService(db: DB, audit: AuditQueries, options: { passwordCost?: number; now?: () => number } = {}) {
  const q = userQueries(db);
  const now = options.now ?? Date.now;
  const cost = options.passwordCost ?? DEFAULT_PASSWORD_COST;
  const hash = (password: string): Promise<string> => hashPassword(password, cost);

  /**
   * The open invitation a link's token stands for. Looked up by the token's SHA-256 (the index
   * never sees the token), then compared in constant time.
   */
  function openInvite(token: string): { id: number; user_id: number } | undefined {
    const hash = sha256(token);
    const invite = q.inviteByHash(hash, now());
    if (!invite) return undefined;
    const a = Buffer.from(invite.token_hash, 'hex'), b = Buffer.from(hash, 'hex');
    return a.length === b.length && crypto.timingSafeEqual(a, b) ? invite : undefined;
  }

  function requireFreeEmail(email: string): void {
    if (q.byEmail(email)) throw new UserError('err.email_taken', 'email');
  }

  return {
    queries: q,
    needsSetup: () => q.none(),

    /** Creates the first admin; refused once any user exists, so the setup page cannot be replayed. */
    async createFirstAdmin(input: { email: string; name: string; password: string }): Promise<UserRow> {
      const made = await hash(input.password);
      return db.transaction(() => {
        if (!q.none()) throw new UserError('err.setup_done');
        const id = q.insert({ email: input.email, name: input.name, role: 'admin', password_hash: made });
        audit.record({ actorId: id, entityType: 'user', entityId: id, action: 'setup_admin', after: { email: input.email, role: 'admin' } });
        return q.byId(id)!;
      })();
    },

    async createUser(actorId: number | null, input: { email: string; name: string; role: Role; password: string }): Promise<UserRow> {
      const made = await hash(input.password);
      return db.transaction(() => {
        requireFreeEmail(input.email);
        const id = q.insert({ email: input.email, name: input.name, role: input.role, password_hash: made });
        audit.record({ actorId, entityType: 'user', entityId: id, action: 'create', after: { email: input.email, role: input.role } });
        return q.byId(id)!;
      })();
    },

    /**
     * Creates the account without a password and returns the one-time token for its invitation
     * link; only its SHA-256 is stored. Someone invited who has not joined yet gets a new link
     * with reissueInvite instead.
     */
    invite(actorId: number, input: { email: string; name: string; role: Role }): { user: UserRow; token: string } {
      const token = randomToken();
      return db.transaction(() => {
        const existing = q.byEmail(input.email);
        if (existing?.invited === 1 && !existing.disabled) throw new UserError('err.email_invited', 'email');
        requireFreeEmail(input.email);
        const id = q.insert({ email: input.email, name: input.name, role: input.role, password_hash: null });
        q.insertInvite(id, sha256(token), now() + INVITE_TTL_MS);
        audit.record({ actorId, entityType: 'user', entityId: id, action: 'invite', after: { email: input.email, role: input.role } });
        return { user: q.byId(id)!, token };
      })();
    },

    /** A new invitation link for someone who has not joined yet (lost or expired link); the old links stop working. */
    reissueInvite(actorId: number, userId: number): { user: UserRow; token: string } {
      const token = randomToken();
      return db.transaction(() => {
        const user = q.byId(userId);
        if (!user) throw new UserError('err.not_found');
        if (user.invited !== 1 || user.disabled) throw new UserError('err.invite_not_pending');
        q.dropInvites(userId);
        q.insertInvite(userId, sha256(token), now() + INVITE_TTL_MS);
        audit.record({ actorId, entityType: 'user', entityId: userId, action: 'reissue_invite', after: { email: user.email } });
        return { user, token };
      })();
    },

    inviteUser(token: string): UserRow | undefined {
      const invite = openInvite(token);
      return invite ? q.byId(invite.user_id) : undefined;
    },

    /** Sets the password of an invited user; refused (UserError) when the link was used or replaced meanwhile. */
    async acceptInvite(token: string, password: string): Promise<UserRow> {
      const made = await hash(password);
      return db.transaction(() => {
        const invite = openInvite(token);
        if (!invite || !q.useInvite(invite.id, now())) throw new UserError('err.invite_invalid');
        q.setPassword(invite.user_id, made);
        audit.record({ actorId: invite.user_id, entityType: 'user', entityId: invite.user_id, action: 'accept_invite' });
        return q.byId(invite.user_id)!;
      })();
    },

    /**
     * Checks a password, throttled per email and per address. The attempt is counted (as a failure)
     * before the password is checked, in the same synchronous step as the count it is checked
     * against, so parallel requests cannot all pass the count while the slow hash runs; a correct
     * password then takes back its own attempt only, never the failures of other attempts.
     */
    async login(email: string, password: string, ip: string): Promise<LoginResult> {
      const since = now() - THROTTLE_WINDOW_MS;
      if (q.failuresByEmail(email, since) >= MAX_FAILURES_PER_EMAIL || q.failuresByIp(ip, since) >= MAX_FAILURES_PER_IP) {
        return { ok: false, reason: 'throttled' };
      }
      const attempt = q.recordFailure(email, ip, now());
      const user = q.byEmail(email);
      const stored = user ? q.passwordHash(user.id) : null;
      const good = await verifyPassword(password, stored, cost);
      if (!user || !good) return { ok: false, reason: 'invalid' };
      q.forgetAttempt(attempt);
      if (user.disabled) return { ok: false, reason: 'disabled' };
      // Made with cheaper parameters than goldset uses now: made again, now that the password is known.
      if (stored !== null && cheaperThan(stored, cost)) q.replacePassword(user.id, stored, await hash(password));
      q.pruneFailures(since);
      return { ok: true, user };
    },

    /** `shown` is the role and access the page showed: a change made since then is a conflict, not overwritten. */
    update(actorId: number, userId: number, change: { role?: Role; disabled?: boolean }, shown?: { role: Role; disabled: boolean }): UserRow {
      return db.transaction(() => {
        const before = q.byId(userId);
        if (!before) throw new UserError('err.not_found');
        if (shown && (before.role !== shown.role || (before.disabled === 1) !== shown.disabled)) throw new UserConflict(before);
        const demotesAdmin = before.role === 'admin' && !before.disabled &&
          ((change.role !== undefined && change.role !== 'admin') || change.disabled === true);
        if (demotesAdmin && q.activeAdmins() <= 1) throw new UserError('err.last_admin');
        if (change.role !== undefined) q.setRole(userId, change.role);
        if (change.disabled !== undefined) q.setDisabled(userId, change.disabled);
        const after = q.byId(userId)!;
        audit.record({ actorId, entityType: 'user', entityId: userId, action: 'update', before: publicUser(before), after: publicUser(after) });
        return after;
      })();
    },
  };
}

export type UserService = ReturnType<typeof userService>;
