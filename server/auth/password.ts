// Password hashing with scrypt (memory-hard), stored as "scrypt$N$r$p$salt$hash" so parameters can change
// later: a hash is checked with its own parameters, and re-made at the configured cost on the next login.
import crypto from 'node:crypto';

/**
 * scrypt's cost, as log2 of N: 15 (N = 32,768 with r = 8: 32 MiB and about 0.2 s of one core per
 * hash). GOLDSET_PASSWORD_COST may raise it to 16; lower costs are for the test suites only (config.ts).
 */
export const DEFAULT_PASSWORD_COST = 15;
export const MAX_PASSWORD_COST = 16;
const R = 8, P = 1, KEYLEN = 64;
// 128 · N · r bytes at the highest cost, twice over.
const MAXMEM = 2 * 128 * 2 ** MAX_PASSWORD_COST * R;

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    crypto.scrypt(password.normalize('NFKC'), salt, KEYLEN, { N: n, r, p, maxmem: MAXMEM }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string, cost = DEFAULT_PASSWORD_COST): Promise<string> {
  const salt = crypto.randomBytes(16);
  const n = 2 ** cost;
  const key = await scrypt(password, salt, n, R, P);
  return ['scrypt', n, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

/** The salt of the checks that only spend time (an unknown email's, and the padding below): any fixed value does. */
const NO_SALT = Buffer.alloc(16);

/**
 * Checks a password against the parameters stored with its hash. `cost` is what goldset hashes at
 * now, and what every check costs, so that timing does not reveal which emails exist:
 * - an unknown email's check is a hash at `cost`;
 * - a hash made at a lower cost (before GOLDSET_PASSWORD_COST was raised, until its owner's next
 *   login makes it again) is checked, and then hashes of no use at N = n, 2n, 4n, … up to half of
 *   2^cost are made: they add up to 2^cost − n, so the whole check costs one hash at `cost`.
 * A hash made at a higher cost (the setting lowered) takes longer; README says so.
 */
export async function verifyPassword(password: string, stored: string | null, cost = DEFAULT_PASSWORD_COST): Promise<boolean> {
  const parts = (stored ?? `scrypt$${2 ** cost}$${R}$${P}$${NO_SALT.toString('base64')}$${Buffer.alloc(KEYLEN).toString('base64')}`).split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const key = await scrypt(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  if (Number(r) === R && Number(p) === P) for (let pad = Number(n); pad < 2 ** cost; pad *= 2) await scrypt(password, NO_SALT, pad, R, P);
  const expected = Buffer.from(hash, 'base64');
  return stored !== null && key.length === expected.length && crypto.timingSafeEqual(key, expected);
}

/** Whether a stored hash was made cheaper than `cost` asks for now: a login then hashes the password again. */
export function cheaperThan(stored: string, cost: number): boolean {
  const [scheme, n, r, p] = stored.split('$');
  return scheme !== 'scrypt' || Number(n) < 2 ** cost || Number(r) < R || Number(p) < P;
}

export function randomToken(bytes = 32): string {
  return crypto.randomBytes(bytes).toString('base64url');
}

export function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}
