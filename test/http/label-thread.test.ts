// Save-and-next made in the labelling thread (server/labels/label-thread.ts), as server/main.ts runs the
// app: the same answers as in the request's thread, its writes committed before they are answered, the
// main thread's kept figures following them, its log lines in the app's log, and saves made in the
// request's thread again once the labelling thread has stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAs, setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';
import { AGREEMENT_KEY, agreementForDataset, keptAgreement } from '../../server/agreement/service.ts';

let app: TestApp;
let admin: Client;
let datasetId: number;
let correct: number;

const RESULTS = [
  'user_input,retrieved_contexts,response,reference,system',
  ...Array.from({ length: 20 }, (_, i) => `问题 ${i}？,"['上下文 ${i}']",回答 ${i},参考 ${i},rag-v1`),
].join('\n');

beforeAll(async () => {
  app = await startTestApp({}, { labelThread: true });
  admin = await setupAdmin(app);
  const res = await admin.post('/datasets', { name: 'Thread', language: 'zh', description: '', domain: '' });
  datasetId = Number(res.headers.get('location')!.split('/').pop());
  await admin.get(`/datasets/${datasetId}/import`);
  expect((await admin.upload(`/datasets/${datasetId}/import`, 'results.csv', RESULTS)).status).toBe(200);
  await admin.get(`/datasets/${datasetId}/criteria`);
  await admin.post(`/datasets/${datasetId}/criteria`, { name: 'correct', kind: 'binary', target: 'response', options: 'Correct\nWrong', guidelines: '' });
  correct = app.ctx.criteria.forDataset(datasetId)[0]!.id;
  await admin.get(`/datasets/${datasetId}/assignment`);
  await admin.post(`/datasets/${datasetId}/assignment`, { overlap: 2, version: app.ctx.datasets.get(datasetId)!.version });
}, 60_000);
afterAll(async () => { await app.close(); });

const htmx = { headers: { 'HX-Request': 'true' } };
const version = () => app.ctx.db.prepare('SELECT data_version FROM dataset WHERE id = ?').pluck().get(datasetId) as number;

/** Executions of statements on the main thread's connection during `fn`, by SQL text. */
async function mainThreadStatements(fn: () => Promise<unknown>): Promise<string[]> {
  const proto = Object.getPrototypeOf(app.ctx.db.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  const seen: string[] = [];
  const originals = (['run', 'get', 'all', 'iterate'] as const).map((m) => [m, proto[m]!] as const);
  for (const [m, original] of originals) proto[m] = function (this: { source: string }, ...a: unknown[]) { seen.push(this.source); return original.apply(this, a); };
  try { await fn(); } finally { for (const [m, original] of originals) proto[m] = original; }
  return seen;
}

describe('save-and-next in the labelling thread', () => {
  it('saves there and answers the next item, committed before the answer; the main thread runs none of its writes', async () => {
    const expert = await loginAs(app, 'li@example.com', 'expert');
    const start = await expert.post(`/datasets/${datasetId}/label/next`, {}, htmx);
    const first = Number(/data-response="(\d+)"/.exec(start.text)![1]);
    let res!: Awaited<ReturnType<Client['post']>>;
    const onMain = await mainThreadStatements(async () => {
      res = await expert.post(`/responses/${first}/label`, { [`c${correct}`]: '1', version: 0, rationale: '对' }, htmx);
    });
    expect(res.status).toBe(200);
    const next = Number(/data-response="(\d+)"/.exec(res.text)![1]);
    expect(next).not.toBe(first);
    expect(res.headers.get('hx-push-url')).toBe(`/responses/${next}/label`);
    expect(res.text).toContain('lang="zh-CN"');
    expect(app.ctx.db.prepare("SELECT state FROM annotation WHERE response_id = ? AND rationale = '对'").pluck().get(first)).toBe('submitted');
    expect(app.ctx.db.prepare("SELECT count(*) FROM audit_event WHERE entity_type = 'label' AND action = 'submit' AND entity_id = (SELECT id FROM annotation WHERE response_id = ? AND rationale = '对')").pluck().get(first)).toBe(1);
    expect(onMain.filter((sql) => /INSERT INTO audit_event|UPDATE annotation|INSERT INTO label/.test(sql))).toEqual([]);
  });

  it('keeps the main thread\'s kept open disagreements current through a save the thread made', async () => {
    const [a, b] = [await loginAs(app, 'a@example.com', 'expert'), await loginAs(app, 'b@example.com', 'expert')];
    const rid = (app.ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id DESC').pluck().get(datasetId)) as number;
    await a.get(`/responses/${rid}/label`);
    expect((await a.post(`/responses/${rid}/label`, { [`c${correct}`]: '1', version: 0 }, htmx)).status).toBe(200);
    const kept = app.ctx.labels.openDisagreements(datasetId);
    const before = kept.count;
    await b.get(`/responses/${rid}/label`);
    expect((await b.post(`/responses/${rid}/label`, { [`c${correct}`]: '0', version: 0 }, htmx)).status).toBe(200);
    expect(app.ctx.derived.peek(datasetId, 'disagreements:open', version())).toBe(kept); // followed, not recounted
    expect(kept.count).toBe(before + 1);
    expect(app.ctx.labels.disagreementCount(datasetId)).toBe(before + 1);
  });

  it('keeps the agreement current through saves the thread committed together, equal to a recount', async () => {
    const experts = await Promise.all(['p', 'q', 'r', 's'].map((n) => loginAs(app, `${n}@example.com`, 'expert')));
    const starts = await Promise.all(experts.map((e) => e.post(`/datasets/${datasetId}/label/next`, {}, htmx)));
    const items = starts.map((s) => Number(/data-response="(\d+)"/.exec(s.text)![1]));
    const kept = keptAgreement(app.ctx, datasetId);
    const from = version();
    // Four saves handed to the thread in one turn: one group commit, four writes whose versions run on,
    // followed as one (label-thread-client.ts followWrites).
    const saves = experts.map((e, i) => {
      const user = app.ctx.users.queries.byEmail(['p', 'q', 'r', 's'][i] + '@example.com')!;
      return app.labelThread!.save({ responseId: items[i]!, body: { [`c${correct}`]: String(i % 2), version: '0' }, locale: 'en', csrfToken: '', path: '/', url: '/',
        user: { id: user.id, email: user.email, name: user.name, role: user.role, locale: user.locale } })!;
    });
    expect((await Promise.all(saves)).map((a) => ('status' in a ? a.status : a.refused))).toEqual([200, 200, 200, 200]);
    expect(version()).toBeGreaterThan(from + 3);
    expect(app.ctx.derived.peek(datasetId, AGREEMENT_KEY, version())).toBe(kept); // followed, not recounted
    expect(kept.rows().map((r) => r.agreement)).toEqual(agreementForDataset(app.ctx, datasetId).rows().map((r) => r.agreement));
  });

  it('answers a stale form with the item again (409) and a refused value with its message (422), and logs through the app', async () => {
    const expert = await loginAs(app, 'zhao@example.com', 'expert', 'zh');
    const rid = (app.ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().get(datasetId)) as number;
    await expert.get(`/responses/${rid}/label`);
    expect((await expert.post(`/responses/${rid}/label`, { [`c${correct}`]: '1', version: 0 }, htmx)).status).toBe(200);
    const logged = app.logs.length;
    const stale = await expert.post(`/responses/${rid}/label`, { [`c${correct}`]: '0', version: 0 }, htmx);
    expect(stale.status).toBe(409);
    expect(stale.text).toContain(`data-response="${rid}"`);
    await expect.poll(() => app.logs.slice(logged).some((l) => l.includes('"event":"label.conflict"'))).toBe(true);
    const other = (app.ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id LIMIT 1 OFFSET 2').pluck().get(datasetId)) as number;
    const refused = await expert.post(`/responses/${other}/label`, { [`c${correct}`]: 'maybe', version: 0 }, htmx);
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(/[\u4e00-\u9fff]/);
  });

  it('refuses someone who may not label in the dataset, and logs it', async () => {
    const viewer = await loginAs(app, 'v@example.com', 'viewer');
    const rid = (app.ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().get(datasetId)) as number;
    const logged = app.logs.length;
    const res = await viewer.post(`/responses/${rid}/label`, { [`c${correct}`]: '1', version: 0 }, htmx);
    expect(res.status).toBe(403);
    await expect.poll(() => app.logs.slice(logged).some((l) => l.includes('"event":"authz.refused"'))).toBe(true);
    expect((await viewer.post(`/responses/999999/label`, { version: 0 }, htmx)).status).toBe(404);
  });

  it('saves in the request\'s thread once the labelling thread has stopped', async () => {
    await app.labelThread!.close();
    const expert = await loginAs(app, 'after@example.com', 'expert');
    const start = await expert.post(`/datasets/${datasetId}/label/next`, {}, htmx);
    const rid = Number(/data-response="(\d+)"/.exec(start.text)![1]);
    const onMain = await mainThreadStatements(async () => {
      expect((await expert.post(`/responses/${rid}/label`, { [`c${correct}`]: '1', version: 0 }, htmx)).status).toBe(200);
    });
    expect(onMain.some((sql) => sql.startsWith('INSERT INTO audit_event'))).toBe(true);
  });
});
