// The JSON API: bearer tokens (created in the UI, shown once, revocable) and pushing responses.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loginAs, setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';

let app: TestApp;
let admin: Client;
let datasetId: number;
let token: string;

beforeEach(async () => {
  app = await startTestApp();
  admin = await setupAdmin(app);
  const res = await admin.post('/datasets', { name: 'API', language: 'en', description: '', domain: '' });
  datasetId = Number(res.headers.get('location')!.split('/').pop());
  await admin.get('/tokens');
  const created = await admin.post('/tokens', { name: 'nightly CI' });
  token = /id="new-token"[^>]*value="([^"]+)"/.exec(created.text)![1]!;
});
afterEach(async () => { await app.close(); });

function push(body: unknown, auth = `Bearer ${token}`, raw?: string) {
  return fetch(`${app.url}/api/v1/datasets/${datasetId}/responses`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: auth } : {}) },
    body: raw ?? JSON.stringify(body),
  });
}

const ROWS = [
  { user_input: 'How do I request leave?', response: 'In the OA system.', retrieved_contexts: ['Leave policy'], system: 'rag-v2', reference: 'Submit it in the OA system.' },
  { question: 'Which department is Zhang Wei in?', answer: 'HR', contexts: ['Zhang Wei, Teaching & Research'], system: 'rag-v2' },
];

describe('API tokens', () => {
  it('shows a new token once and stores only its hash', async () => {
    expect(token).toMatch(/^gs_[A-Za-z0-9]{8}_/);
    const stored = app.ctx.db.prepare('SELECT token_hash FROM api_token').pluck().get() as string;
    expect(stored).not.toContain(token.slice(12));
    const page = await admin.get('/tokens');
    expect(page.text).not.toContain(token);
    expect(page.text).toContain('nightly CI');
  });

  it('stops working once revoked', async () => {
    const id = app.ctx.db.prepare('SELECT id FROM api_token').pluck().get();
    await admin.post(`/tokens/${id}/revoke`, {});
    expect((await push(ROWS)).status).toBe(401);
  });
});

describe('POST /api/v1/datasets/:id/responses', () => {
  it('creates samples and responses from Ragas-style rows, old and new column names', async () => {
    const res = await push(ROWS);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ rows: 2, samples_created: 2, responses_created: 2 });
    const again = await push({ rows: ROWS });
    expect(await again.json()).toMatchObject({ samples_created: 0, responses_created: 0, responses_existing: 2 });
    expect(app.ctx.responses.countForDataset(datasetId)).toBe(2);
  });

  it('answers 401 to a missing or bad token and changes nothing, logging the refusal without the token', async () => {
    expect((await push(ROWS, '')).status).toBe(401);
    const bad = await push(ROWS, 'Bearer gs_AAAAAAAA_not-a-real-token-at-all');
    expect(bad.status).toBe(401);
    expect((await bad.json()).error).toBe('unauthorized');
    expect(app.ctx.responses.countForDataset(datasetId)).toBe(0);
    expect(app.logs.some((l) => l.includes('api.unauthorized'))).toBe(true);
    expect(app.logs.join('\n')).not.toContain('not-a-real-token');
  });

  it('ignores the session cookie: a logged-in browser without a token is refused', async () => {
    const res = await fetch(`${app.url}/api/v1/datasets/${datasetId}/responses`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: admin.cookie }, body: JSON.stringify(ROWS),
    });
    expect(res.status).toBe(401);
  });

  it('answers 422 to malformed JSON and to a row without a question, naming the row and field, importing nothing', async () => {
    const malformed = await push(null, undefined, '[{"user_input": "x",');
    expect(malformed.status).toBe(422);
    expect((await malformed.json()).error).toBe('invalid_json');
    const res = await push([ROWS[0], { response: 'an answer without a question' }]);
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.error).toBe('invalid_rows');
    expect(body.errors[0]).toMatchObject({ row: 2 });
    expect(body.errors[0].message).toMatch(/question/);
    expect(app.ctx.responses.countForDataset(datasetId)).toBe(0);
  });

  it('refuses a viewer\'s token with 403', async () => {
    const viewer = await loginAs(app, 'v@example.com', 'viewer');
    await viewer.get('/tokens');
    const created = await viewer.post('/tokens', { name: 'read only' });
    const viewerToken = /id="new-token"[^>]*value="([^"]+)"/.exec(created.text)![1]!;
    expect((await push(ROWS, `Bearer ${viewerToken}`)).status).toBe(403);
  });

  it('answers 404 for an unknown dataset', async () => {
    const res = await fetch(`${app.url}/api/v1/datasets/9999/responses`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: '[]' });
    expect(res.status).toBe(404);
  });
});

describe('the API answers in the caller\'s language', () => {
  // Codes (`error`, each row's `code`) are the contract and never change; `message` follows Accept-Language,
  // else the saved language of the token's user, else English (server/api/routes.ts apiLocale).
  const post = (body: string, headers: Record<string, string> = {}, auth = `Bearer ${token}`) =>
    fetch(`${app.url}/api/v1/datasets/${datasetId}/responses`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: auth, ...headers }, body });

  it('in Chinese when the request asks for it: row errors, refusals, the parser\'s, the token\'s; codes unchanged', async () => {
    const zh = { 'Accept-Language': 'zh-CN,zh;q=0.9,en;q=0.5' };
    const rows = await post(JSON.stringify([ROWS[0], { response: 'an answer without a question' }]), zh);
    expect(rows.status).toBe(422);
    const body = await rows.json();
    expect(body).toMatchObject({ error: 'invalid_rows', message: '未导入任何内容。' });
    expect(body.errors[0]).toMatchObject({ row: 2, code: 'missing_value' });
    expect(body.errors[0].message).toMatch(/^缺少问题/); // no "第 2 行": the row is named apart
    const malformed = await post('[{"user_input": "x",', zh);
    const parse = await malformed.json();
    expect(parse).toMatchObject({ error: 'invalid_json', message: expect.stringMatching(/^请求体不是有效的 JSON。/) });
    expect(parse.message.replace('JSON', ''), 'the parser\'s English explained in Chinese').not.toMatch(/[A-Za-z]{4,}/);
    const tooMany = await post(JSON.stringify(Array.from({ length: 10_001 }, () => ROWS[0])), zh);
    expect(await tooMany.json()).toMatchObject({ error: 'too_many_rows', message: expect.stringContaining('每个请求最多 10000 行') });
    const noToken = await post('[]', zh, 'Bearer gs_nope');
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toMatchObject({ error: 'unauthorized', message: expect.stringMatching(/^需要有效的 API 令牌/) });
    const unknown = await fetch(`${app.url}/api/v1/datasets/9999/releases`, { headers: { Authorization: `Bearer ${token}`, ...zh } });
    expect(await unknown.json()).toMatchObject({ error: 'not_found', message: '没有这个评测集。' });
    expect(app.ctx.responses.countForDataset(datasetId)).toBe(0);
  });

  it('in the token user\'s saved language when the request names none, and in English by default', async () => {
    const english = await post(JSON.stringify([{ response: 'no question' }]));
    expect((await english.json()).errors[0].message).toMatch(/question/);
    const adminId = app.ctx.db.prepare("SELECT id FROM user WHERE role = 'admin'").pluck().get() as number; // the token's user
    app.ctx.users.queries.setLocale(adminId, 'zh');
    const saved = await post(JSON.stringify([{ response: 'no question' }]));
    const body = await saved.json();
    expect(body.message).toBe('未导入任何内容。');
    expect(body.errors[0].message).toMatch(/^缺少问题/);
    // The request's own Accept-Language wins over the saved language.
    const asked = await post(JSON.stringify([{ response: 'no question' }]), { 'Accept-Language': 'en-US' });
    expect((await asked.json()).message).toBe('Nothing was imported.');
  });
});
