// The session-signing secret: from configuration, or generated once and kept in the database.
import crypto from 'node:crypto';
import type { DB } from '../db/connection.ts';

export function sessionSecret(db: DB, configured: string | undefined): string {
  if (configured) return configured;
  const existing = db.prepare("SELECT value FROM setting WHERE key = 'session_secret'").pluck().get() as string | undefined;
  if (existing) return existing;
  const secret = crypto.randomBytes(48).toString('base64url');
  db.prepare("INSERT OR IGNORE INTO setting (key, value) VALUES ('session_secret', ?)").run(secret);
  return db.prepare("SELECT value FROM setting WHERE key = 'session_secret'").pluck().get() as string;
}
