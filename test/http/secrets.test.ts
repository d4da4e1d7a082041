// Authentication and secrets: the login throttle under parallel requests, sessions stored only for
// signed-in users (and bounded), CSRF for visitors without a session, invitations (hashed at rest,
// reissued, accepted once), the judge key bound to its URL, and a log that never holds a secret.
import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { SESSIONS_PER_USER } from '../../server/http/session-store.ts';
import { ADMIN, Client, setupAdmin, startTestApp, type TestApp } from '../helpers.ts';

let app: TestApp;
beforeEach(async () => { app = await startTestApp(); });
afterEach(async () => { await app.close(); });

const sessions = () => app.ctx.db.prepare('SELECT count(*) FROM session').pluck().get() as number;
const failures = (email: string) => app.ctx.db.prepare('SELECT count(*) FROM login_failure WHERE email = ?').pluck().get(email) as number;

async function loginPage(): Promise<Client> {
  const c = new Client(app.url);
  await c.get('/login');
  return c;
}

describe('login throttle', () => {
  // At a real instance's password cost (about 0.2 s a hash), so that the attempts in parallel are all
  // in flight while the hashes run, which is what the throttle must hold against.
  beforeEach(async () => {
    await app.close();
    app = await startTestApp({ GOLDSET_PASSWORD_COST: '15' });
  });

  it('checks at most five passwords per email however many arrive in parallel', async () => {
    await setupAdmin(app);
    const c = await loginPage();
    const results = await Promise.all(Array.from({ length: 30 }, () => c.post('/login', { email: ADMIN.email, password: 'wrong password!' })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
    expect((await c.post('/login', { email: ADMIN.email, password: ADMIN.password })).status).toBe(429);
  });

  it('lets a correct password take back only its own attempt, never the failures of others', async () => {
    await setupAdmin(app);
    const c = await loginPage();
    for (let i = 0; i < 3; i++) await c.post('/login', { email: ADMIN.email, password: 'wrong password!' });
    const mixed = await Promise.all([
      c.post('/login', { email: ADMIN.email, password: 'wrong password!' }),
      new Client(app.url).get('/login').then(async () => c.post('/login', { email: ADMIN.email, password: ADMIN.password })),
    ]);
    expect(mixed.map((r) => r.status).sort()).toEqual([303, 401]);
    expect(failures(ADMIN.email)).toBe(4);
    const d = await loginPage();
    expect((await d.post('/login', { email: ADMIN.email, password: 'still wrong!!' })).status).toBe(401);
    expect((await d.post('/login', { email: ADMIN.email, password: ADMIN.password })).status).toBe(429);
  });
});

describe('sessions', () => {
  it('stores no session for visitors who do not sign in, however many pages they open', async () => {
    await setupAdmin(app);
    expect(sessions()).toBe(1);
    for (let i = 0; i < 50; i++) {
      const res = await new Client(app.url).get('/login');
      expect(res.headers.getSetCookie().some((c) => c.startsWith('goldset.sid='))).toBe(false);
    }
    expect(sessions()).toBe(1);
    const zh = new Client(app.url);
    await zh.get('/login');
    await zh.post('/locale', { locale: 'zh', back: '/login' });
    expect((await zh.get('/login')).text).toContain('登录');
    expect(sessions()).toBe(1);
  });

  it('keeps a user\'s newest sessions only, and drops expired ones', async () => {
    await setupAdmin(app);
    app.ctx.db.prepare("INSERT INTO session (sid, data, expires_at, user_id) VALUES ('old', '{\"userId\":1}', 1, 1)").run();
    for (let i = 0; i < SESSIONS_PER_USER + 3; i++) {
      const c = await loginPage();
      expect((await c.post('/login', { email: ADMIN.email, password: ADMIN.password })).status).toBe(303);
    }
    expect(sessions()).toBe(SESSIONS_PER_USER);
    expect(app.ctx.db.prepare("SELECT count(*) FROM session WHERE sid = 'old'").pluck().get()).toBe(0);
  });

  it('sets HttpOnly SameSite cookies: the CSRF nonce for visitors, the session after signing in', async () => {
    await setupAdmin(app);
    const res = await new Client(app.url).get('/login');
    const nonce = res.headers.getSetCookie().find((x) => x.startsWith('goldset.csrf='))!;
    expect(nonce).toMatch(/HttpOnly/i);
    expect(nonce).toMatch(/SameSite=Lax/i);
    const c = await loginPage();
    const login = await c.post('/login', { email: ADMIN.email, password: ADMIN.password });
    const sid = login.headers.getSetCookie().find((x) => x.startsWith('goldset.sid='))!;
    expect(sid).toMatch(/HttpOnly/i);
    expect(sid).toMatch(/SameSite=Lax/i);
  });

  it('refuses a visitor\'s form without its signed token, or with another visitor\'s token', async () => {
    await setupAdmin(app);
    const a = await loginPage();
    const b = await loginPage();
    expect((await a.post('/login', { email: ADMIN.email, password: ADMIN.password }, { csrf: null })).status).toBe(403);
    expect((await a.post('/login', { email: ADMIN.email, password: ADMIN.password }, { csrf: b.csrf })).status).toBe(403);
    const forged = crypto.createHmac('sha256', 'guess').update(`csrf:${a.cookies.get('goldset.csrf')}`).digest('base64url');
    expect((await a.post('/login', { email: ADMIN.email, password: ADMIN.password }, { csrf: forged })).status).toBe(403);
    expect((await a.post('/login', { email: ADMIN.email, password: ADMIN.password })).status).toBe(303);
  });
});

describe('invitations', () => {
  async function invite(admin: Client, email: string): Promise<{ path: string; page: string }> {
    await admin.get('/admin/users');
    const res = await admin.post('/admin/users', { email, name: '', role: 'expert' });
    const link = /id="invite-link" readOnly value="([^"]+)"|id="invite-link"[^>]*value="([^"]+)"/.exec(res.text)!;
    return { path: new URL(link[1] ?? link[2]!).pathname, page: res.text };
  }

  it('keeps only the SHA-256 of the link\'s token, shows the link once with a copy button, never cached', async () => {
    const admin = await setupAdmin(app);
    const { path, page } = await invite(admin, 'new@example.com');
    const token = path.split('/').pop()!;
    expect(page).toMatch(/<button type="button" class="btn small" data-copy="invite-link"[^>]*hidden/);
    const stored = app.ctx.db.prepare('SELECT token_hash FROM invite').pluck().all() as string[];
    expect(stored).toEqual([crypto.createHash('sha256').update(token).digest('hex')]);
    expect((await admin.get('/admin/users')).text).not.toContain(token);
  });

  it('lets an admin reissue a lost link: the old one stops working, the new one works once', async () => {
    const admin = await setupAdmin(app);
    const first = await invite(admin, 'new@example.com');
    const again = await admin.post('/admin/users', { email: 'new@example.com', name: '', role: 'expert' });
    expect(again.status).toBe(422);
    expect(again.text).toContain('invited but has not joined yet');
    const id = app.ctx.users.queries.byEmail('new@example.com')!.id;
    const users = await admin.get('/admin/users');
    expect(users.text).toContain(`action="/admin/users/${id}/invite"`);
    const res = await admin.post(`/admin/users/${id}/invite`, {});
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const second = new URL(/id="invite-link"[^>]*value="([^"]+)"/.exec(res.text)![1]!).pathname;
    expect(second).not.toBe(first.path);
    expect((await new Client(app.url).get(first.path)).status).toBe(404);
    const invitee = new Client(app.url);
    expect((await invitee.get(second)).status).toBe(200);
    expect((await invitee.post(second, { password: 'a brand new password' })).status).toBe(303);
    expect((await admin.post(`/admin/users/${id}/invite`, {})).status).toBe(422);
  });

  it('answers two simultaneous accepts of one link with one account and a 409, never a 500', async () => {
    // At a real instance's password cost (about 0.2 s a hash): both accepts find the link open and are
    // hashing when the first one's transaction uses it. At the test cost the first could be done before
    // the second is read, which is then an ordinary 404.
    await app.close();
    app = await startTestApp({ GOLDSET_PASSWORD_COST: '15' });
    const admin = await setupAdmin(app);
    const { path } = await invite(admin, 'twice@example.com');
    const a = new Client(app.url), b = new Client(app.url);
    await a.get(path);
    await b.get(path);
    const results = await Promise.all([a.post(path, { password: 'first long password' }), b.post(path, { password: 'second long password' })]);
    expect(results.map((r) => r.status).sort()).toEqual([303, 409]);
    expect(results.find((r) => r.status === 409)!.text).toContain('invalid, used or expired');
    expect(app.logs.some((l) => l.includes('"level":"error"'))).toBe(false);
  });
});

describe('the judge key and credentials in the base URL', () => {
  const KEY = 'sk-stored-key-for-endpoint-a-0001';
  let a: FakeOpenAI, b: FakeOpenAI;
  beforeAll(async () => { a = await startFakeOpenAI({ apiKey: KEY }); b = await startFakeOpenAI(); });
  afterAll(async () => { await a.close(); await b.close(); });
  // The form as the page shows it now, its version included (a save over another version is a conflict).
  const form = (baseURL: string, apiKey = '') => ({ preset: 'custom', base_url: baseURL, api_key: apiKey, chat_model: 'fake-chat', embedding_model: 'fake-embed',
    temperature: '0', timeout_ms: '5000', max_concurrency: '4', structured_output: 'json_schema', price_prompt: '0', price_completion: '0',
    version: String(app.ctx.judgeSettings.public().version) });

  it('sends the stored key only to the URL it was saved with; a new URL needs the key again', async () => {
    const admin = await setupAdmin(app);
    await admin.get('/settings/judge');
    expect((await admin.post('/settings/judge', form(a.baseURL, KEY))).status).toBe(303);
    b.reset();
    const test = await admin.post('/settings/judge/test', form(b.baseURL), { headers: { 'HX-Request': 'true' } });
    expect(test.text).toContain('The stored key was not sent');
    expect(b.requests.length).toBeGreaterThan(0);
    for (const r of b.requests) expect(JSON.stringify(r.headers)).not.toContain(KEY);
    const sameUrl = await admin.post('/settings/judge/test', form(a.baseURL), { headers: { 'HX-Request': 'true' } });
    expect(sameUrl.text).toContain('Connected: fake-chat answered.');
    const moved = await admin.post('/settings/judge', form(b.baseURL));
    expect(moved.status).toBe(422);
    expect(moved.text).toContain('Enter the key for the new address');
    expect(app.ctx.judgeSettings.effective()!.base_url).toBe(a.baseURL);
    expect((await admin.post('/settings/judge', form(b.baseURL, 'sk-key-for-b-000000'))).status).toBe(303);
    expect(app.ctx.judgeSettings.effective()).toMatchObject({ base_url: b.baseURL, api_key: 'sk-key-for-b-000000' });
  });

  it('redacts credentials in the base URL on the settings page and in the audit log, and keeps them when the form comes back unchanged', async () => {
    const admin = await setupAdmin(app);
    const url = b.baseURL.replace('http://', 'http://judge:hunter2secret@') + '?api-key=url-key-0001&tenant=hr';
    await admin.get('/settings/judge');
    expect((await admin.post('/settings/judge', form(url))).status).toBe(303);
    const page = await admin.get('/settings/judge');
    expect(page.text).not.toContain('hunter2secret');
    expect(page.text).not.toContain('url-key-0001');
    expect(page.text).toContain('tenant=hr');
    const shown = /id="f-base_url"[^>]* name="base_url" type="url" required value="([^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, '&');
    expect((await admin.post('/settings/judge', form(shown))).status).toBe(303);
    expect(app.ctx.judgeSettings.effective()!.base_url).toBe(url);
    const audit = (app.ctx.db.prepare('SELECT before, after FROM audit_event').all() as { before: string; after: string }[]).map((e) => `${e.before}${e.after}`).join('');
    expect(audit).toContain('[redacted]');
    expect(audit).not.toContain('hunter2secret');
    expect(audit).not.toContain('url-key-0001');
  });
});

describe('logs', () => {
  it('hold no password, key, token, URL credential or invitation link through the main flows', async () => {
    const fake = await startFakeOpenAI({ apiKey: 'sk-judge-key-in-logs-0001' });
    try {
      const secrets: string[] = [ADMIN.password, 'wrong password for logs', 'sk-judge-key-in-logs-0001', 'hunter2secret', 'url-key-0002'];
      const admin = await setupAdmin(app);
      const stranger = await loginPage();
      await stranger.post('/login', { email: ADMIN.email, password: 'wrong password for logs' });
      await admin.get('/admin/users');
      const invited = await admin.post('/admin/users', { email: 'logs@example.com', name: '', role: 'expert' });
      const link = new URL(/id="invite-link"[^>]*value="([^"]+)"/.exec(invited.text)![1]!).pathname;
      secrets.push(link.split('/').pop()!);
      const invitee = new Client(app.url);
      await invitee.get(link);
      expect((await invitee.post(link, { password: 'invitee password 123' }, { csrf: null })).status).toBe(403); // csrf.refused logs the path
      await new Client(app.url).get('/invite/not-a-real-invitation-token-0001');
      secrets.push('not-a-real-invitation-token-0001', 'invitee password 123');
      const id = app.ctx.users.queries.byEmail('logs@example.com')!.id;
      const reissued = await admin.post(`/admin/users/${id}/invite`, {});
      const second = new URL(/id="invite-link"[^>]*value="([^"]+)"/.exec(reissued.text)![1]!).pathname;
      secrets.push(second.split('/').pop()!);
      await invitee.get(second);
      expect((await invitee.post(second, { password: 'invitee password 123' })).status).toBe(303);
      await admin.get('/settings/judge');
      const url = fake.baseURL.replace('http://', 'http://judge:hunter2secret@') + '?api-key=url-key-0002';
      const settings = { preset: 'custom', base_url: url, api_key: 'sk-judge-key-in-logs-0001', chat_model: 'fake-chat', embedding_model: '',
        temperature: '0', timeout_ms: '5000', max_concurrency: '2', structured_output: 'json_schema', price_prompt: '0', price_completion: '0' };
      await admin.post('/settings/judge', settings);
      await admin.post('/settings/judge/test', settings, { headers: { 'HX-Request': 'true' } });
      await admin.post('/settings/judge/test', { ...settings, api_key: 'sk-wrong-key-in-logs-0001' }, { headers: { 'HX-Request': 'true' } });
      secrets.push('sk-wrong-key-in-logs-0001');
      await admin.get('/tokens');
      const created = await admin.post('/tokens', { name: 'ci' });
      const token = /id="new-token"[^>]*value="([^"]+)"/.exec(created.text)![1]!;
      // The secret part after gs_<prefix>_ (it may itself hold '_': base64url).
      secrets.push(token, token.split('_').slice(2).join('_'));
      await fetch(`${app.url}/api/v1/datasets`, { headers: { Authorization: `Bearer ${token}` } });
      await fetch(`${app.url}/api/v1/datasets`, { headers: { Authorization: `Bearer ${token}x` } });
      await fetch(`${app.url}/api/v1/datasets/1/responses`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: '{"password": "body password 0001", "x": [' });
      secrets.push('body password 0001', admin.session.split('.')[0]!.slice(4, 30), admin.csrf);
      const logs = app.logs.join('\n');
      expect(logs).toContain('csrf.refused');
      expect(logs).toContain('/invite/[redacted]');
      for (const secret of secrets) expect(logs, secret).not.toContain(secret);
    } finally {
      await fake.close();
    }
  });
});
