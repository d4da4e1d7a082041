// Password hashes: scrypt at the configured cost, checked with the parameters stored beside each hash,
// made again at the configured cost when someone logs in with a cheaper one, and never cheaper than
// the default outside the test suites.
import crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cheaperThan, DEFAULT_PASSWORD_COST, hashPassword, verifyPassword } from '../../server/auth/password.ts';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { userService } from '../../server/users/service.ts';
import { openTestContext, type TestContext } from '../helpers.ts';

let t: TestContext | undefined;
afterEach(async () => { vi.restoreAllMocks(); await t?.close(); t = undefined; });

describe('password hashes', () => {
  it('are scrypt with N = 32,768, r = 8, p = 1 by default, each with its own salt', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(DEFAULT_PASSWORD_COST).toBe(15);
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('correct horse battery', null)).toBe(false);
    // NFKC: a full-width letter typed on a Chinese keyboard is the same password.
    expect(await verifyPassword('ｃorrect horse battery', a)).toBe(true);
  });

  it('are checked with the parameters stored with them, whatever the cost is now', async () => {
    const cheap = await hashPassword('a long enough password', 10);
    expect(cheap.split('$')[1]).toBe('1024');
    expect(await verifyPassword('a long enough password', cheap, 15)).toBe(true);
    expect(cheaperThan(cheap, 15)).toBe(true);
    expect(cheaperThan(cheap, 10)).toBe(false);
    expect(cheaperThan('bcrypt$whatever', 10)).toBe(true);
  });

  it('take the same scrypt work to check, whether the email is unknown or its hash was made at a lower cost', async () => {
    const right = 'a long enough password';
    const cheap = await hashPassword(right, 10);
    const current = await hashPassword(right, 12);
    const scrypt = vi.spyOn(crypto, 'scrypt');
    /** N · r · p of every scrypt call one check makes (what its time is proportional to), and its answer. */
    const check = async (password: string, stored: string | null) => {
      scrypt.mockClear();
      const ok = await verifyPassword(password, stored, 12);
      const work = scrypt.mock.calls.reduce((sum, call) => {
        const { N, r, p } = call[3] as crypto.ScryptOptions;
        return sum + N! * r! * p!;
      }, 0);
      return { ok, work };
    };
    const unknown = await check(right, null);
    expect(unknown).toEqual({ ok: false, work: 2 ** 12 * 8 });
    expect(await check(right, current)).toEqual({ ok: true, work: unknown.work });
    expect(await check('a wrong password', current)).toEqual({ ok: false, work: unknown.work });
    // Made at 2^10 before the cost was raised to 2^12: checked at 2^10, then 2^10 + 2^11 of no use.
    expect(await check(right, cheap)).toEqual({ ok: true, work: unknown.work });
    expect(await check('a wrong password', cheap)).toEqual({ ok: false, work: unknown.work });
    expect(scrypt.mock.calls.map((call) => (call[3] as crypto.ScryptOptions).N)).toEqual([1024, 1024, 2048]);
  });

  it('are never cheaper than the default outside the test suites, nor above 16', () => {
    expect(loadConfig({}).passwordCost).toBe(15);
    expect(loadConfig({ GOLDSET_PASSWORD_COST: '16' }).passwordCost).toBe(16);
    expect(() => loadConfig({ GOLDSET_PASSWORD_COST: '10' })).toThrow(/GOLDSET_PASSWORD_COST: below 15 makes passwords cheaper to guess/);
    expect(() => loadConfig({ GOLDSET_PASSWORD_COST: '12', NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ GOLDSET_PASSWORD_COST: '17' })).toThrow(ConfigError);
    expect(() => loadConfig({ GOLDSET_PASSWORD_COST: '9', NODE_ENV: 'test' })).toThrow(ConfigError);
    expect(loadConfig({ GOLDSET_PASSWORD_COST: '10', NODE_ENV: 'test' }).passwordCost).toBe(10);
  });

  it('are made again at the configured cost when their owner logs in, and only then', async () => {
    t = openTestContext();
    const cheap = userService(t.db, t.ctx.audit, { passwordCost: 10 });
    const user = await cheap.createUser(null, { email: 'li@example.com', name: 'Li', role: 'expert', password: 'a long enough password' });
    const stored = (): string => t!.ctx.users.queries.passwordHash(user.id)!;
    const first = stored();
    expect(first.split('$')[1]).toBe('1024');

    const now = userService(t.db, t.ctx.audit, { passwordCost: 11 });
    expect((await now.login('li@example.com', 'a wrong password', '127.0.0.1')).ok).toBe(false);
    expect(stored()).toBe(first);
    expect((await now.login('li@example.com', 'a long enough password', '127.0.0.1')).ok).toBe(true);
    const second = stored();
    expect(second.split('$')[1]).toBe('2048');
    expect((await now.login('li@example.com', 'a long enough password', '127.0.0.1')).ok).toBe(true);
    expect(stored()).toBe(second);
  });

  it('made again never overwrite a password set meanwhile', async () => {
    t = openTestContext();
    const user = await t.ctx.users.createUser(null, { email: 'li@example.com', name: 'Li', role: 'expert', password: 'a long enough password' });
    const q = t.ctx.users.queries;
    const was = q.passwordHash(user.id)!;
    q.setPassword(user.id, await hashPassword('another long password', 10));
    expect(q.replacePassword(user.id, was, await hashPassword('a long enough password', 11)).changes).toBe(0);
    expect(await verifyPassword('another long password', q.passwordHash(user.id))).toBe(true);
  });
});
