// Every form the app shows, sent back the way no browser sends it: each field twice, far too long, with
// a NUL or a lone surrogate, or as an odd number; and every page's query parameters the same way. The
// answer is the form again with a message (4xx), a saved change or the page, never a 500 and never an
// error in the log. The pages are found by following links from the dataset list, as the admin, over
// both example datasets, so a new form or parameter is covered when a page links to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, Client, loginAs, startExampleApp, startTestApp, type TestApp } from '../helpers.ts';

let app: TestApp;
let admin: Client;
beforeAll(async () => { ({ app, admin } = await startExampleApp()); });
afterAll(async () => { await app.close(); });

interface Form { action: string; fields: [name: string, value: string][]; page: string }
/** A page and the query parameters it is reached with or links to itself with (a filter, a page number). */
interface Page { url: string; params: Set<string> }

const attribute = (tag: string, name: string): string | undefined =>
  new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]?.replace(/&quot;/g, '"').replace(/&amp;/g, '&');
/** A path with its ids taken out: pages and forms of the same kind count once. */
const kind = (url: string): string => url.split('?')[0]!.replace(/\d+/g, 'N');
/** Links not followed: leaving, files to download, assets. */
const SKIP = /\/logout|\/export|\/download|\.(?:js|css|png|svg|csv|xlsx|jsonl)\b/;
/** Forms that end what the sweep goes on with (the session, the admin's access, the datasets) go last. */
const ENDING = /logout|delete|remove|archive|disable|revoke/;

/** The pages reachable from the dataset list (one of each kind) and the POST forms on them (one of each action and set of fields). */
async function crawl(client: Client): Promise<{ pages: Page[]; forms: Form[] }> {
  const queue = ['/datasets'];
  const seen = new Set<string>(), kinds = new Set<string>();
  const forms = new Map<string, Form>();
  const pages: Page[] = [];
  while (queue.length) {
    const url = queue.shift()!;
    if (seen.has(url) || kinds.has(kind(url))) continue;
    seen.add(url);
    kinds.add(kind(url));
    const res = await client.get(url);
    expect(res.status, `GET ${url}`).toBeLessThan(500);
    if (!(res.headers.get('content-type') ?? '').includes('text/html')) continue;
    const page: Page = { url, params: new Set([...new URLSearchParams(url.split('?')[1] ?? '').keys(), 'page']) };
    pages.push(page);
    for (const [, href] of res.text.matchAll(/href="(\/[^"#]*)"/g)) {
      const next = href!.replace(/&amp;/g, '&');
      if (kind(next) === kind(url)) for (const name of new URLSearchParams(next.split('?')[1] ?? '').keys()) page.params.add(name);
      if (!SKIP.test(next)) queue.push(next);
    }
    for (const [, inner] of res.text.matchAll(/<form\b[^>]*method="get"[^>]*>([\s\S]*?)<\/form>/gi)) {
      for (const [, name] of inner!.matchAll(/\sname="([^"]+)"/g)) page.params.add(name!);
    }
    for (const [, tag, inner] of res.text.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
      const action = attribute(tag!, 'hx-post') ?? ((attribute(tag!, 'method') ?? 'get').toLowerCase() === 'post' ? attribute(tag!, 'action') ?? url : null);
      if (action === null || action.startsWith('http')) continue;
      const fields: [string, string][] = [];
      for (const [, control] of inner!.matchAll(/<(?:input|select|textarea)\b([^>]*)>/g)) {
        const name = attribute(control!, 'name');
        if (name && name !== '_csrf') fields.push([name, attribute(control!, 'value') ?? '']);
      }
      const key = `${kind(action)} ${fields.map(([n]) => n).sort().join(',')}`;
      if (!forms.has(key)) forms.set(key, { action, fields, page: url });
    }
  }
  const ordered = [...forms.values()].sort((a, b) => Number(ENDING.test(a.action)) - Number(ENDING.test(b.action)));
  return { pages, forms: ordered.filter((f) => !/\/logout/.test(f.action)) };
}

/** Sends one request and notes it in `failures` when it is answered with a server error or logs one. */
async function answeredWithoutError(failures: string[], what: string, send: () => Promise<{ status: number }>): Promise<void> {
  const logged = app.logs.length;
  const res = await send();
  const errors = app.logs.slice(logged).filter((line) => line.includes('"level":"error"'));
  if (res.status >= 500 || errors.length) failures.push(`${what}: ${res.status} ${errors[0]?.slice(0, 200) ?? ''}`);
}

/** What a client that does not build its requests from the page may send as a value. */
const ODD_VALUES = ['x'.repeat(200_000), 'a\u0000b', '\ud800', '1e309', '-1', '1.5'];

describe('every form and every page, sent what no browser sends', () => {
  let site: { pages: Page[]; forms: Form[] };
  beforeAll(async () => { site = await crawl(admin); }, 120_000);

  it('answers each query parameter sent twice or with an odd value without a server error', { timeout: 240_000 }, async () => {
    const { pages } = site;
    // The parameters the pages use: filters, page numbers, the calibration's and the review queue's choices.
    const used = new Set(pages.flatMap((p) => [...p.params]));
    for (const name of ['page', 'q', 'criterion', 'run', 'status', 'threshold', 'part']) expect(used, name).toContain(name);
    const failures: string[] = [];
    for (const page of pages) {
      const [path, query = ''] = page.url.split('?');
      for (const name of page.params) {
        for (const values of [['1', '2'], ...ODD_VALUES.map((v) => [v.slice(0, 5_000)])]) {
          const params = new URLSearchParams(query);
          params.delete(name);
          for (const v of values) params.append(name, v);
          await answeredWithoutError(failures, `GET ${path} ${name}=${JSON.stringify(values).slice(0, 40)}`, () => admin.get(`${path}?${params}`));
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('answers each form sent back with a field twice or with an odd value without a server error, and nothing is logged as one', { timeout: 240_000 }, async () => {
    const { pages, forms } = site;
    // The sweep covers what it should: the example datasets' pages and their forms, settings and admin ones included.
    expect(pages.length).toBeGreaterThan(25);
    expect(forms.length).toBeGreaterThan(25);
    for (const path of ['/datasets', '/admin/users', '/settings/judge']) expect(forms.some((f) => f.action === path), path).toBe(true);
    expect(forms.some((f) => /\/datasets\/\d+\/(criteria|runs|releases|samples|settings|metrics|prompts)$/.test(f.action))).toBe(true);

    const failures: string[] = [];
    for (const form of forms) {
      await admin.get(form.page); // the page's own CSRF token, as a browser would have it
      for (const [name] of form.fields) {
        for (const [label, values] of [['sent twice', (shown: string) => [shown || 'a', shown || 'b']] as const,
          ...ODD_VALUES.map((v) => [JSON.stringify(v.slice(0, 12)), () => [v]] as const)]) {
          const body = new URLSearchParams({ _csrf: admin.csrf });
          for (const [other, shown] of form.fields) if (other !== name) body.append(other, shown);
          for (const v of values(form.fields.find(([n]) => n === name)![1])) body.append(name, v);
          // As a page load (the whole page again) and as htmx (the form's fragment): two different renderings.
          for (const htmx of [false, true]) {
            await answeredWithoutError(failures, `${form.action} (${form.page}) ${name} ${label}${htmx ? ', htmx' : ''}`, () => admin.request('POST', form.action,
              { body, headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(htmx ? { 'HX-Request': 'true' } : {}) } }));
          }
        }
        // The app also reads JSON bodies (for the API), so a form's route may be sent one with any type in a field.
        for (const odd of [{ a: 1 }, 5, true, [['a']]]) {
          const body = { ...Object.fromEntries(form.fields), [name]: odd, _csrf: admin.csrf };
          await answeredWithoutError(failures, `${form.action} (${form.page}) ${name} as JSON ${JSON.stringify(odd)}`, () => admin.request('POST', form.action,
            { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }));
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('says why whenever it refuses one of those forms, beside the form and in the user\'s language (Chinese here)', { timeout: 240_000 }, async () => {
    const zh = await loginAs(app, 'sweep-zh@example.com', 'admin', 'zh');
    /** The messages a refused page shows: field errors, the form's alerts, an error page's sentence (not the hidden "no answer" notice). */
    const messages = (html: string) => [...html.replace(/<div id="request-failed"[\s\S]*?<\/div>/, '')
      .matchAll(/<p class="error"[^>]*>([\s\S]*?)<\/p>|<div class="alert"[^>]*>([\s\S]*?)<\/div>|<h1>\d{3}<\/h1><p>([\s\S]*?)<\/p>/g)]
      .map((m) => (m[1] ?? m[2] ?? m[3] ?? '').replace(/<[^>]+>/g, '').trim());
    const silent: string[] = [];
    let refused = 0;
    // The ending forms too, last as in the sweep above (their targets may be gone by then: a refusal that says so in Chinese).
    for (const form of site.forms) {
      for (const [name] of form.fields) {
        for (const values of [['a', 'b'], ...ODD_VALUES.map((v) => [v])]) {
          // As a page load and as htmx (which swaps in the fragment the answer carries).
          for (const htmx of [false, true]) {
            await zh.get(form.page);
            const body = new URLSearchParams({ _csrf: zh.csrf });
            for (const [other, shown] of form.fields) if (other !== name) body.append(other, shown);
            for (const v of values) body.append(name, v);
            const res = await zh.request('POST', form.action, { body, headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(htmx ? { 'HX-Request': 'true' } : {}) } });
            if (res.status < 400) continue;
            refused++;
            const said = messages(res.text);
            const what = `${form.action} ${name}=${JSON.stringify(values[0]!.slice(0, 8))} (${res.status}${htmx ? ', htmx' : ''})`;
            if (said.length === 0) silent.push(`${what}: no message`);
            for (const m of said) if (!/[\u4e00-\u9fff]/.test(m)) silent.push(`${what}: "${m.slice(0, 80)}"`);
          }
        }
      }
    }
    expect(refused).toBeGreaterThan(100);
    expect(silent).toEqual([]);
  });

  it('says what is wrong with a field of the wrong type: sent twice, or not a text', async () => {
    await admin.get('/datasets');
    const twice = new URLSearchParams({ _csrf: admin.csrf, language: 'en' });
    twice.append('name', 'One');
    twice.append('name', 'Two');
    const sentTwice = await admin.request('POST', '/datasets', { body: twice, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(sentTwice.status).toBe(422);
    expect(sentTwice.text).toContain('This field was sent more than once');
    const object = await admin.request('POST', '/datasets', { body: JSON.stringify({ _csrf: admin.csrf, language: 'en', name: { text: 'One' } }),
      headers: { 'Content-Type': 'application/json' } });
    expect(object.status).toBe(422);
    expect(object.text).toContain('This value is not valid');
    const missing = await admin.post('/datasets', { language: 'en' });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('This field is required');
  });
});

describe('the forms before anyone has signed in, sent back with each field twice', () => {
  it('are answered with the form and a message, not a server error', async () => {
    const fresh = await startTestApp();
    try {
      const visitor = new Client(fresh.url);
      await visitor.get('/setup');
      for (const name of ['email', 'name', 'password']) {
        const body = new URLSearchParams({ _csrf: visitor.csrf });
        for (const [field, value] of Object.entries(ADMIN)) {
          body.append(field, value);
          if (field === name) body.append(field, `${value} again`);
        }
        const res = await visitor.request('POST', '/setup', { body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
        expect(res.status, name).toBe(422);
        expect(res.text, name).toContain('This field was sent more than once');
      }
      expect(fresh.logs.filter((line) => line.includes('"level":"error"'))).toEqual([]);
      expect(fresh.ctx.users.needsSetup()).toBe(true);
    } finally {
      await fresh.close();
    }
  });
});
