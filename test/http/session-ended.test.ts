// A request htmx makes from a page after the sign-in ended is answered into the page's sign-in notice
// (HX-Retarget #session-notice), not into its target, in the person's language; a page load gets the
// message as before. GET /session/csrf gives the current sign-in's form token, to a signed-in session only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAs, setupAdmin, startTestApp, type TestApp } from '../helpers.ts';
import { translator } from '../../server/i18n/index.ts';

let app: TestApp;
beforeAll(async () => { app = await startTestApp(); await setupAdmin(app); });
afterAll(async () => { await app.close(); });

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

describe('a refusal for want of a current sign-in', () => {
  for (const locale of ['en', 'zh'] as const) {
    const t = translator(locale);
    it(`goes into the sign-in notice for htmx, and stays a message for a page load (${locale})`, async () => {
      const expert = await loginAs(app, `ended-${locale}@example.com`, 'expert', locale);
      const token = expert.csrf;
      app.ctx.db.prepare('DELETE FROM session WHERE user_id = (SELECT id FROM user WHERE email = ?)').run(`ended-${locale}@example.com`);
      const send = (htmx: boolean) => expert.request('POST', '/datasets', {
        body: new URLSearchParams({ _csrf: token, name: 'x', language: 'en' }),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(htmx ? { 'HX-Request': 'true' } : {}) },
      });
      const fragment = await send(true);
      expect(fragment.status).toBe(403);
      expect(fragment.headers.get('hx-retarget')).toBe('#session-notice');
      expect(fragment.headers.get('hx-reswap')).toBe('innerHTML');
      expect(fragment.text).toContain(`<p data-resumed="${escapeHtml(t('session.resumed'))}">${escapeHtml(t('session.ended'))}</p>`);
      expect(fragment.text).toContain(`<a href="/login" target="_blank" rel="noopener">${escapeHtml(t('session.sign_in'))}</a>`);
      const plain = await send(false);
      expect(plain.status).toBe(403);
      expect(plain.headers.get('hx-retarget')).toBeNull();
      expect(plain.headers.get('content-type')).toContain('text/html');
      expect(plain.text).toContain(`<h1>403</h1><p>${escapeHtml(t('err.csrf'))}</p>`);
      expect(app.ctx.datasets.list(false).some((d) => d.name === 'x')).toBe(false);
    });
  }

  it('answers an htmx GET (a filter, a poll) with the notice too, saying nothing was lost, where a page load is sent to sign in', async () => {
    const viewer = await loginAs(app, 'poll@example.com', 'viewer', 'zh');
    app.ctx.db.prepare("DELETE FROM session WHERE user_id = (SELECT id FROM user WHERE email = 'poll@example.com')").run();
    const fragment = await viewer.request('GET', '/datasets?q=a', { headers: { 'HX-Request': 'true' } });
    expect(fragment.status).toBe(401);
    expect(fragment.headers.get('hx-retarget')).toBe('#session-notice');
    const t = translator('zh');
    expect(fragment.text).toContain(`<p data-resumed="${escapeHtml(t('session.resumed_view'))}">${escapeHtml(t('session.ended_view'))}</p>`);
    const page = await viewer.request('GET', '/datasets?q=a');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login?next=%2Fdatasets%3Fq%3Da');
  });

  it('says a page is older than the sign-in, without offering to sign in, when the person is signed in with another token', async () => {
    const expert = await loginAs(app, 'older@example.com', 'expert');
    const res = await expert.request('POST', '/datasets', {
      body: new URLSearchParams({ _csrf: 'a token of an earlier sign-in', name: 'y', language: 'en' }),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'HX-Request': 'true' },
    });
    expect(res.status).toBe(403);
    expect(res.text).toContain(escapeHtml(translator('en')('session.outdated')));
    expect(res.text).not.toContain('href="/login"');
  });
});

describe('GET /session/csrf', () => {
  it('gives the signed-in session\'s form token (the one its pages carry), never cached; 401 to nobody', async () => {
    const expert = await loginAs(app, 'token@example.com', 'expert');
    const res = await expert.get('/session/csrf');
    expect(res.status).toBe(200);
    expect(res.text).toBe(expert.csrf);
    expect(res.headers.get('cache-control')).toBe('no-store');
    app.ctx.db.prepare("DELETE FROM session WHERE user_id = (SELECT id FROM user WHERE email = 'token@example.com')").run();
    const after = await expert.get('/session/csrf');
    expect(after.status).toBe(401);
    expect(after.headers.get('cache-control')).toBe('no-store');
    expect(after.text).not.toContain(expert.csrf);
  });
});
