// Runs in the web app: starting one, its live progress fragment, cancel, the trace page, and
// resuming runs that were going when the process stopped.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { loginAs, startTestApp, type Client, type TestApp } from '../helpers.ts';

let fake: FakeOpenAI;
let app: TestApp;
let expert: Client;
let datasetId: number;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  app = await startTestApp({ OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'k', GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' });
  expert = await loginAs(app, 'e@example.com', 'expert');
  datasetId = app.ctx.datasets.create(null, { name: 'Runs', description: '', language: 'en', domain: '' }).id;
  const file = path.join(app.dir, 'r.jsonl');
  fs.writeFileSync(file, Array.from({ length: 20 }, (_, i) => JSON.stringify({
    user_input: `Which department is employee ${i} in? <b>bold</b>`, response: `Department ${i % 3}.`, reference: `Department ${i % 4}.`,
    retrieved_contexts: [`Employee ${i}: department ${i % 4}`], system: 'v1',
  })).join('\n'));
  expect((await app.ctx.imports.importFile(null, datasetId, file, { format: 'jsonl' })).ok).toBe(true);
});
afterAll(async () => { await app.close(); await fake.close(); });

describe('runs in the app', () => {
  it('starts a run from the form, shows live progress while it runs, and stops it on cancel', async () => {
    fake.setLatency(150);
    await expert.get(`/datasets/${datasetId}/runs`);
    const res = await expert.post(`/datasets/${datasetId}/runs`, { metric: 'faithfulness', name: 'slow', system: '', prompt_version: '', concurrency: '2' });
    expect(res.status).toBe(303);
    const runId = Number(res.headers.get('location')!.split('/').pop());
    const progress = await expert.get(`/runs/${runId}/progress`, { 'HX-Request': 'true' });
    expect(progress.text).toContain('hx-trigger="every 1s"');
    await expert.get(`/runs/${runId}`);
    expect((await expert.post(`/runs/${runId}/cancel`, {})).status).toBe(303);
    await app.ctx.runner.start(runId);
    fake.setLatency(0);
    const run = app.ctx.runner.queries.byId(runId)!;
    expect(run.status).toBe('cancelled');
    expect(app.ctx.runner.queries.done(runId)).toBeLessThan(20);
    const after = await expert.get(`/runs/${runId}/progress`, { 'HX-Request': 'true' });
    expect(after.text).not.toContain('every 1s');
    expect(after.text).toContain('Cancelled');
  });

  it('opens a score down to each step\'s prompt, raw reply and parsed verdicts, escaping everything', async () => {
    await expert.get(`/datasets/${datasetId}/runs`);
    const res = await expert.post(`/datasets/${datasetId}/runs`, { metric: 'context_recall', name: 'full', system: '', prompt_version: '', concurrency: '4' });
    const runId = Number(res.headers.get('location')!.split('/').pop());
    await app.ctx.runner.start(runId);
    const page = await expert.get(`/runs/${runId}`);
    expect(page.text).toContain('20 of 20 responses');
    const first = /href="\/runs\/\d+\/scores\/(\d+)"/.exec(page.text)![1];
    const trace = await expert.get(`/runs/${runId}/scores/${first}`);
    expect(trace.text).toContain('Prompt as sent');
    expect(trace.text).toContain('Raw reply');
    expect(trace.text).toContain('Parsed');
    expect(trace.text).toContain('&lt;b>bold&lt;/b>');
    expect(trace.text).not.toContain('<b>bold</b>');
  });

  it('resumes, at start, a run that was going when the process stopped, without redoing finished items', async () => {
    const run = app.ctx.runner.create(null, datasetId, { name: 'interrupted', metricKey: 'exact_match', concurrency: 2 });
    const ids = app.ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id LIMIT 5').pluck().all(datasetId) as number[];
    for (const id of ids) app.ctx.runner.queries.insertScore({ run_id: run.id, response_id: id, status: 'ok', value: 0.42, reason: null, trace: null });
    app.ctx.runner.queries.setStatus(run.id, 'running');
    expect(app.ctx.runner.resumeUnfinished()).toContain(run.id);
    await app.ctx.runner.start(run.id);
    expect(app.ctx.runner.queries.byId(run.id)!.status).toBe('done');
    expect(app.ctx.runner.queries.done(run.id)).toBe(20);
    // The five scored before the "crash" were kept, not recomputed (exact_match would give 0).
    expect(app.ctx.db.prepare('SELECT count(*) FROM score WHERE run_id = ? AND value = 0.42').pluck().get(run.id)).toBe(5);
  });
});
