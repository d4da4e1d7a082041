// API tokens for programs (CI jobs) that push responses: shown once, stored as a hash, revocable.
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { CurrentUser } from '../http/context.ts';
import { randomToken, sha256 } from '../auth/password.ts';

export interface TokenRow { id: number; user_id: number; name: string; prefix: string; created_at: string; last_used_at: string | null; revoked_at: string | null }

export function tokenService(db: DB, audit: AuditQueries) {
  const s = {
    insert: db.prepare('INSERT INTO api_token (user_id, name, token_hash, prefix) VALUES (?, ?, ?, ?)'),
    forUser: db.prepare<[number], TokenRow>('SELECT id, user_id, name, prefix, created_at, last_used_at, revoked_at FROM api_token WHERE user_id = ? ORDER BY revoked_at IS NOT NULL, id DESC'),
    byHash: db.prepare<[string], { id: number; user_id: number }>('SELECT id, user_id FROM api_token WHERE token_hash = ? AND revoked_at IS NULL'),
    used: db.prepare<[number]>("UPDATE api_token SET last_used_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?"),
    revoke: db.prepare<[number, number]>("UPDATE api_token SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ? AND user_id = ? AND revoked_at IS NULL"),
    user: db.prepare<[number], CurrentUser & { disabled: number }>('SELECT id, email, name, role, locale, disabled FROM user WHERE id = ?'),
  };
  return {
    /** Returns the token text; it is never shown or retrievable again. */
    create(userId: number, name: string): string {
      const prefix = randomToken(6).replace(/[-_]/g, 'x').slice(0, 8);
      const token = `gs_${prefix}_${randomToken(32)}`;
      db.transaction(() => {
        const id = Number(s.insert.run(userId, name, sha256(token), prefix).lastInsertRowid);
        audit.record({ actorId: userId, entityType: 'api_token', entityId: id, action: 'create', after: { name, prefix } });
      })();
      return token;
    },
    forUser: (userId: number) => s.forUser.all(userId),
    revoke(userId: number, id: number): boolean {
      return db.transaction(() => {
        const done = s.revoke.run(id, userId).changes > 0;
        if (done) audit.record({ actorId: userId, entityType: 'api_token', entityId: id, action: 'revoke' });
        return done;
      })();
    },
    /** The user a bearer token acts for, or null for a missing, unknown, revoked or disabled one. */
    authenticate(token: string): CurrentUser | null {
      if (!/^gs_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{20,}$/.test(token)) return null;
      const row = s.byHash.get(sha256(token));
      if (!row) return null;
      const user = s.user.get(row.user_id);
      if (!user || user.disabled) return null;
      s.used.run(row.id);
      return { id: user.id, email: user.email, name: user.name, role: user.role, locale: user.locale };
    },
  };
}

export type TokenService = ReturnType<typeof tokenService>;
