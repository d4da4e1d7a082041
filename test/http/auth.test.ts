// Accounts: first-run setup, login, roles, CSRF, throttling, invitations, security headers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, Client, loginAs, setupAdmin, startTestApp, type TestApp } from '../helpers.ts';

let app: TestApp;
beforeEach(async () => { app = await startTestApp(); });
afterEach(async () => { await app.close(); });

describe('first run', () => {
  it('sends every page to the setup form until an admin exists', async () => {
    const c = new Client(app.url);
    for (const path of ['/', '/datasets', '/login', '/admin/users']) {
      const res = await c.get(path);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/setup');
    }
    expect((await c.get('/setup')).text).toContain('Create the administrator account');
  });

  it('creates the admin, logs them in, and never offers setup again', async () => {
    const admin = await setupAdmin(app);
    expect((await admin.get('/datasets')).status).toBe(200);
    const stranger = new Client(app.url);
    await stranger.get('/login');
    const replay = await stranger.post('/setup', { email: 'evil@example.com', name: '', password: 'another password' });
    expect(replay.status).toBe(303);
    expect(app.ctx.users.queries.byEmail('evil@example.com')).toBeUndefined();
    expect(app.ctx.users.queries.count()).toBe(1);
  });

  it('refuses a short password with a message beside the field, in Chinese for a Chinese browser', async () => {
    const c = new Client(app.url, 'zh-CN,zh;q=0.9');
    await c.get('/setup');
    const res = await c.post('/setup', { email: 'a@b.co', name: '', password: 'short' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('密码至少需要 10 个字符');
    expect(app.ctx.users.queries.count()).toBe(0);
  });
});

describe('login and sessions', () => {
  it('logs in with the right password, issuing a new session id, and out again', async () => {
    await setupAdmin(app);
    const c = new Client(app.url);
    await c.get('/login');
    const before = c.session;
    const res = await c.post('/login', { email: ADMIN.email, password: ADMIN.password });
    expect(res.status).toBe(303);
    expect(c.session).not.toBe(before);
    expect(c.session).not.toBe('');
    expect((await c.get('/datasets')).status).toBe(200);
    await c.post('/logout', {});
    expect((await c.get('/datasets')).status).toBe(303);
  });

  it('sets HttpOnly SameSite cookies and security headers', async () => {
    const c = new Client(app.url);
    const res = await c.get('/setup');
    // Before signing in only the CSRF nonce is set (no session is stored for visitors; see secrets.test.ts).
    const cookie = res.headers.getSetCookie().find((x) => x.startsWith('goldset.csrf='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });

  it('refuses a wrong password and throttles after five failures, even with the right one', async () => {
    await setupAdmin(app);
    const c = new Client(app.url);
    await c.get('/login');
    for (let i = 0; i < 5; i++) expect((await c.post('/login', { email: ADMIN.email, password: 'wrong password!' })).status).toBe(401);
    const res = await c.post('/login', { email: ADMIN.email, password: ADMIN.password });
    expect(res.status).toBe(429);
    expect(res.text).toContain('Too many failed attempts');
    expect(app.logs.some((l) => l.includes('login.refused'))).toBe(true);
  });

  it('never writes a password into the logs', async () => {
    await setupAdmin(app);
    const c = new Client(app.url);
    await c.get('/login');
    await c.post('/login', { email: ADMIN.email, password: 'wrong password!' });
    expect(app.logs.join('\n')).not.toContain('wrong password!');
    expect(app.logs.join('\n')).not.toContain(ADMIN.password);
  });

  it('ends the sessions of a user an admin disables', async () => {
    const admin = await setupAdmin(app);
    const expert = await loginAs(app, 'e@example.com', 'expert');
    expect((await expert.get('/datasets')).status).toBe(200);
    const id = app.ctx.users.queries.byEmail('e@example.com')!.id;
    await admin.get('/admin/users');
    expect((await admin.post(`/admin/users/${id}`, { role: 'expert', disabled: '1', was_role: 'expert', was_disabled: '0' })).status).toBe(303);
    expect((await expert.get('/datasets')).status).toBe(303);
  });
});

describe('CSRF', () => {
  it('refuses a form without the token and changes nothing', async () => {
    const admin = await setupAdmin(app);
    const res = await admin.post('/datasets', { name: 'Forged', language: 'en', description: '', domain: '' }, { csrf: null });
    expect(res.status).toBe(403);
    expect(app.ctx.datasets.byName('Forged')).toBeUndefined();
    expect(app.logs.some((l) => l.includes('csrf.refused'))).toBe(true);
  });

  it('refuses a token from another session', async () => {
    const admin = await setupAdmin(app);
    const other = new Client(app.url);
    await other.get('/login');
    const res = await admin.post('/datasets', { name: 'Forged', language: 'en', description: '', domain: '' }, { csrf: other.csrf });
    expect(res.status).toBe(403);
    expect(app.ctx.datasets.byName('Forged')).toBeUndefined();
  });

  it('accepts the token in the X-CSRF-Token header, as htmx sends it', async () => {
    const admin = await setupAdmin(app);
    const res = await admin.post('/datasets', { name: 'Via header', language: 'en', description: '', domain: '' },
      { csrf: null, headers: { 'X-CSRF-Token': admin.csrf, 'HX-Request': 'true' } });
    expect(res.status).toBe(204);
    expect(res.headers.get('hx-redirect')).toMatch(/^\/datasets\/\d+$/);
  });
});

describe('roles', () => {
  it('lets a viewer read but not write, and logs the refusal', async () => {
    const admin = await setupAdmin(app);
    await admin.post('/datasets', { name: 'Readable', language: 'en', description: '', domain: '' });
    const viewer = await loginAs(app, 'v@example.com', 'viewer');
    const id = app.ctx.datasets.byName('Readable')!.id;
    expect((await viewer.get(`/datasets/${id}`)).status).toBe(200);
    const res = await viewer.post(`/datasets/${id}/samples`, { question: 'Can I write?', ground_truth: '' });
    expect(res.status).toBe(403);
    expect(app.ctx.samples.queries.list({ datasetId: id }, { limit: 10, offset: 0 }).total).toBe(0);
    expect(app.logs.some((l) => l.includes('authz.refused') && l.includes('"role":"viewer"'))).toBe(true);
  });

  it('keeps user administration to admins', async () => {
    await setupAdmin(app);
    const expert = await loginAs(app, 'e@example.com', 'expert');
    expect((await expert.get('/admin/users')).status).toBe(403);
    expect((await expert.get('/audit')).status).toBe(403);
    expect((await expert.post('/admin/users', { email: 'x@example.com', name: '', role: 'admin' })).status).toBe(403);
    expect(app.ctx.users.queries.byEmail('x@example.com')).toBeUndefined();
  });

  it('redirects a visitor who is not logged in to the login page', async () => {
    await setupAdmin(app);
    const res = await new Client(app.url).get('/datasets');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login?next=%2Fdatasets');
  });

  it('refuses to demote the last active admin', async () => {
    const admin = await setupAdmin(app);
    await admin.get('/admin/users');
    const id = app.ctx.users.queries.byEmail(ADMIN.email)!.id;
    const res = await admin.post(`/admin/users/${id}`, { role: 'viewer', was_role: 'admin', was_disabled: '0' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('at least one active administrator');
    expect(app.ctx.users.queries.byId(id)!.role).toBe('admin');
  });

  it('refuses a change of a user another admin changed since the page was opened, saving nothing', async () => {
    const ada = await setupAdmin(app);
    const bo = await loginAs(app, 'bo@example.com', 'admin');
    await loginAs(app, 'cy@example.com', 'expert');
    const id = app.ctx.users.queries.byEmail('cy@example.com')!.id;
    const shown = (html: string) => new RegExp(`action="/admin/users/${id}" id="user-${id}" class="inline-form">.*?name="was_role" value="(\\w+)".*?name="was_disabled" value="(\\d)"`, 's').exec(html)!.slice(1);
    const adaSees = shown((await ada.get('/admin/users')).text);
    const boSees = shown((await bo.get('/admin/users')).text);
    expect(adaSees).toEqual(['expert', '0']);
    expect(boSees).toEqual(adaSees);
    // Ada makes Cy an admin; Bo, from the page as it was, disables Cy (his row still says "expert").
    expect((await ada.post(`/admin/users/${id}`, { role: 'admin', was_role: adaSees[0]!, was_disabled: adaSees[1]! })).status).toBe(303);
    const late = await bo.post(`/admin/users/${id}`, { role: 'expert', disabled: '1', was_role: boSees[0]!, was_disabled: boSees[1]! });
    expect(late.status).toBe(409);
    expect(late.text).toContain('Another admin changed cy@example.com since you opened this page: now Admin, Active. Nothing was saved');
    expect(app.ctx.users.queries.byId(id)).toMatchObject({ role: 'admin', disabled: 0 });
    expect(shown(late.text)).toEqual(['admin', '0']); // the page now shows Cy as he is
  });
});

describe('invitations', () => {
  it('creates an account from a one-time link that works once', async () => {
    const admin = await setupAdmin(app);
    await admin.get('/admin/users');
    const res = await admin.post('/admin/users', { email: 'new@example.com', name: 'New', role: 'expert' });
    const link = /value="(http[^"]+\/invite\/[^"]+)"/.exec(res.text)![1]!;
    const path = new URL(link).pathname;
    const invitee = new Client(app.url);
    expect((await invitee.get(path)).text).toContain('new@example.com');
    expect((await invitee.post(path, { password: 'a brand new password' })).status).toBe(303);
    expect((await invitee.get('/datasets')).status).toBe(200);
    expect((await new Client(app.url).get(path)).status).toBe(404);
    const user = app.ctx.users.queries.byEmail('new@example.com')!;
    expect(user.role).toBe('expert');
    expect(user.invited).toBe(0);
    expect(app.ctx.users.queries.passwordHash(user.id)).toMatch(/^scrypt\$/);
    // The hash is read only to check a login: the row every request loads does not carry it.
    expect(Object.keys(user)).not.toContain('password_hash');
  });
});

describe('language', () => {
  it('follows Accept-Language and lets a user switch', async () => {
    const admin = await setupAdmin(app, 'zh-CN');
    expect((await admin.get('/datasets')).text).toContain('评测集');
    await admin.post('/locale', { locale: 'en', back: '/datasets' });
    const res = await admin.get('/datasets');
    expect(res.text).toContain('<html lang="en"');
    expect(res.text).toContain('New dataset');
  });
});
