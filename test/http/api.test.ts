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
