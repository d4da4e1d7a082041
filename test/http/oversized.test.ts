// Data stored before the input limits existed (or put into the database by hand) costs no more to
// show than the page shows: a 2,000,000-character question, a response with 5,000 contexts, a judge
// reply of 300,000 characters. Pages cut them (and say so) instead of copying them whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { LIMITS } from '../../server/limits.ts';
import { PREVIEW_CHARS } from '../../server/samples/queries.ts';
import { Client, setupAdmin, startTestApp, type TestApp } from '../helpers.ts';

let app: TestApp;
let fake: FakeOpenAI;
let admin: Client;
let ds: number, sampleId: number, responseId: number;
const HUGE = 2_000_000;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  app = await startTestApp({ OPENAI_BASE_URL: fake.baseURL, GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' });
  admin = await setupAdmin(app);
  const { db } = app.ctx;
  ds = app.ctx.datasets.create(null, { name: 'Old data', description: '', language: 'en', domain: '' }).id;
  // Written with SQL, as an import without limits (or sqlite3) would have.
  sampleId = Number(db.prepare(`INSERT INTO sample (dataset_id, question_key, question, ground_truth, reference_contexts)
    VALUES (?, 'huge', ?, 'short', ?)`).run(ds, `Which leave? ${'x'.repeat(HUGE)}`, JSON.stringify(Array.from({ length: 500 }, (_, i) => `ref ${i}`))).lastInsertRowid);
  const contexts = Array.from({ length: 5000 }, (_, i) => `context ${i} about leave`);
  responseId = Number(db.prepare(`INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, content_hash) VALUES (?, ?, 'v1', 'leave', ?, 'h')`)
    .run(sampleId, ds, JSON.stringify(contexts)).lastInsertRowid);
  app.ctx.criteria.create(null, ds, { name: 'relevant', kind: 'binary', target: 'context', options: [], scale_min: null, scale_max: null, guidelines: '' });
});
afterAll(async () => { await app.close(); await fake.close(); });

describe('pages over stored data beyond the limits', () => {
  it('lists samples with their texts cut in SQL, and the dataset page stays small', async () => {
    const { rows } = app.ctx.samples.queries.list({ datasetId: ds }, { limit: 10, offset: 0 });
    expect(rows[0]!.question.length).toBe(PREVIEW_CHARS);
    const page = await admin.get(`/datasets/${ds}`);
    expect(page.status).toBe(200);
    expect(page.text.length).toBeLessThan(50_000);
    expect(page.text).toContain('Which leave? xxx');
  });

  it('shows the sample cut and read-only, without comparing versions', async () => {
    const page = await admin.get(`/samples/${sampleId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('longer than goldset&#39;s limits'.replace('&#39;', "'"));
    expect(page.text.length).toBeLessThan(LIMITS.question + LIMITS.contexts * 20 + 60_000);
    expect(page.text).toMatch(/<fieldset disabled/);
  });

  it('shows at most the limit of contexts on the labelling and response pages, and labels only those', async () => {
    const label = await admin.get(`/responses/${responseId}/label`);
    expect(label.status).toBe(200);
    expect(label.text.match(/class="context"/g)).toHaveLength(LIMITS.contexts);
    expect(label.text.length).toBeLessThan(1_000_000);
    expect(label.text).toContain(`The first ${LIMITS.contexts} of 5000 contexts are shown and labelled`);
    const response = await admin.get(`/responses/${responseId}`);
    expect(response.text.match(/class="context"/g)).toHaveLength(LIMITS.contexts);
    const criterion = app.ctx.criteria.forDataset(ds)[0]!;
    const saved = await admin.post(`/responses/${responseId}/label`, { [`c${criterion.id}_0`]: '1', version: 0 });
    expect(saved.status).toBe(303);
    expect(app.ctx.db.prepare('SELECT count(*) FROM label WHERE criterion_id = ?').pluck().get(criterion.id)).toBe(LIMITS.contexts);
  });

  it('skips an over-limit item in a run instead of sending it to the judge', async () => {
    const run = app.ctx.runner.create(null, ds, { name: 'old', metricKey: 'exact_match' });
    await app.ctx.runner.start(run.id);
    expect(app.ctx.runner.queries.score(run.id, responseId)).toMatchObject({ status: 'skipped', reason: 'over_limit' });
  });
});

describe('judge replies in traces', () => {
  it('keeps the first LIMITS.judgeReply characters of a huge reply, scores from the whole reply, and says so on the trace page', async () => {
    const small = app.ctx.datasets.create(null, { name: 'Traces', description: '', language: 'en', domain: '' }).id;
    const sid = app.ctx.samples.create(null, small, { question: 'How many days of leave?', ground_truth: 'Ten.', reference_contexts: [], tags: [], source: '', notes: '' }).id;
    const rid = Number(app.ctx.db.prepare(`INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, content_hash) VALUES (?, ?, '', 'Ten days.', '["Leave is ten days."]', 'h2')`)
      .run(sid, small).lastInsertRowid);
    const padding = ' '.repeat(300_000);
    // Valid JSON, padded: the statements step parses it, the verdict step answers normally.
    fake.onChat((body, c) => (c.callIndex === 0 ? `{"statements": ["Leave is ten days."]}${padding}` : { statements: [{ statement: 'Leave is ten days.', reason: 'stated', verdict: 1 }] }));
    const run = app.ctx.runner.create(null, small, { name: 'big reply', metricKey: 'faithfulness' });
    await app.ctx.runner.start(run.id);
    fake.onChat();
    const score = app.ctx.runner.queries.score(run.id, rid)!;
    expect(score.status).toBe('ok');
    expect(score.trace!.length).toBeLessThan(LIMITS.judgeReply + 20_000);
    const step = (JSON.parse(score.trace!) as { steps: { raw: string; truncated?: { raw?: number } }[] }).steps[0]!;
    expect(step.raw.length).toBe(LIMITS.judgeReply);
    expect(step.truncated?.raw).toBeGreaterThan(300_000);
    const page = await admin.get(`/runs/${run.id}/scores/${rid}`);
    expect(page.text).toContain(`only the first ${LIMITS.judgeReply} are kept`);
    // Not cached either: the cache keeps no reply larger than what a trace keeps.
    expect(app.ctx.db.prepare('SELECT max(length(value)) FROM llm_cache').pluck().get()).toBeLessThan(LIMITS.judgeReply);
  });
});
