// Runs as a newcomer meets them (issue #11.2, #11.12): the scores table follows the live progress,
// the form says what each metric needs and costs, test connection checks the embedding model too,
// runs can be archived, the trace says whose statements each step has.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { Client, loginAs, setupAdmin, startTestApp, type TestApp } from '../helpers.ts';

let fake: FakeOpenAI;
let app: TestApp;
let admin: Client;
let expert: Client;
let datasetId: number;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  app = await startTestApp({ OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'k', GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' });
  admin = await setupAdmin(app);
  expert = await loginAs(app, 'e@example.com', 'expert');
  datasetId = app.ctx.datasets.create(null, { name: 'Runs', description: '', language: 'en', domain: '' }).id;
  const file = path.join(app.dir, 'r.jsonl');
  fs.writeFileSync(file, Array.from({ length: 6 }, (_, i) => JSON.stringify({
    user_input: `Which department is employee ${i} in?`, response: `Department ${i % 3}.`, reference: i === 5 ? '' : `Department ${i % 4}.`,
    retrieved_contexts: i === 4 ? [] : [`Employee ${i}: department ${i % 4}`, 'Unrelated text'], system: 'v1',
    ...(i < 2 ? { reference_contexts: [`Employee ${i}: department ${i % 4}`] } : {}),
  })).join('\n'));
  expect((await app.ctx.imports.importFile(null, datasetId, file, { format: 'jsonl' })).ok).toBe(true);
});
afterAll(async () => { await app.close(); await fake.close(); });

async function startRun(metric: string, name: string): Promise<number> {
  await expert.get(`/datasets/${datasetId}/runs`);
  const res = await expert.post(`/datasets/${datasetId}/runs`, { metric, name, system: '', prompt_version: '', concurrency: '2' });
  expect(res.status).toBe(303);
  return Number(res.headers.get('location')!.split('/').pop());
}

describe('runs, as a newcomer meets them', () => {
  it('says why an item has no score in words of the page\'s language, its code on hover', async () => {
    const runId = await startRun('exact_match', 'reasons');
    await app.ctx.runner.start(runId); // item 5 has no ground truth: skipped, no_ground_truth
    const en = await expert.get(`/runs/${runId}`);
    expect(en.text).toContain('<span class="tag" title="no_ground_truth">Nothing to score: no ground truth × 1</span>');
    const zh = new Client(app.url, 'zh');
    zh.cookie = expert.cookie;
    const page = await zh.get(`/runs/${runId}`);
    expect(page.text).toContain('没有标准答案 × 1</span>');
    expect(page.text).not.toContain(': no_ground_truth');
    const rid = app.ctx.db.prepare("SELECT response_id FROM score WHERE run_id = ? AND status = 'skipped'").pluck().get(runId) as number;
    expect((await zh.get(`/runs/${runId}/scores/${rid}`)).text).toContain('<span title="no_ground_truth">没有标准答案</span>');
  });

  it('the last progress poll of a finished run triggers the scores table, which then loads with its scores', async () => {
    const runId = await startRun('exact_match', 'live');
    await app.ctx.runner.start(runId);
    const progress = await expert.get(`/runs/${runId}/progress`, { 'HX-Request': 'true' });
    expect(JSON.parse(progress.headers.get('hx-trigger')!)).toEqual({ 'run-finished': { target: '#scores' } });
    const page = await expert.get(`/runs/${runId}`);
    expect(page.text).toContain('<section id="scores" aria-labelledby="scores-heading" hx-get');
    expect(page.text).toContain('hx-trigger="run-finished"');
    const table = await expert.get(`/runs/${runId}`, { 'HX-Request': 'true' });
    expect(table.text.startsWith('<section id="scores"')).toBe(true);
    expect((table.text.match(/\/runs\/\d+\/scores\/\d+/g) ?? []).length).toBe(6);
  });

  it('says per metric what it needs, how many LLM requests it makes, and that no price is set', async () => {
    const page = await expert.get(`/datasets/${datasetId}/runs`);
    const row = (metric: string) => new RegExp(`<th scope="row" class="mono">${metric}</th>(.*?)</tr>`).exec(page.text)![1]!;
    // 6 items; one has no ground truth, one has no contexts.
    expect(row('answer_correctness')).toContain('ground truth');
    expect(row('answer_correctness')).toContain('embeddings');
    expect(row('answer_correctness')).toContain('>5<');
    expect(row('answer_correctness')).toContain('15 chat + 5 embeddings');
    expect(row('faithfulness')).toContain('retrieved contexts');
    expect(row('faithfulness')).toContain('10 chat + 0 embeddings');
    // context_precision asks once per retrieved context of the items with a ground truth: 4 items × 2.
    expect(row('context_precision')).toContain('8 chat + 0 embeddings');
    expect(row('faithfulness')).toContain('no price set');
    expect(page.text).toContain('<th scope="col">Run</th>');
    // The non-LLM context metrics score only items with reference contexts (Ragas gives them none
    // otherwise): the plan says so and counts those, the 2 that the run then scores; context precision
    // also gives 0 to an item with nothing retrieved, as Ragas does (item 4), which the plan does not promise.
    for (const [metric, scored] of [['non_llm_context_recall', 2], ['non_llm_context_precision_with_reference', 3]] as const) {
      expect(row(metric)).toContain('reference contexts');
      expect(row(metric)).toMatch(/>2</);
      const runId = await startRun(metric, `plan ${metric}`);
      await app.ctx.runner.start(runId);
      expect(app.ctx.db.prepare("SELECT count(*) FROM score WHERE run_id = ? AND status = 'ok'").pluck().get(runId)).toBe(scored);
    }
  });

  it('estimates the cost from the configured prices once they are set', async () => {
    await admin.get('/settings/judge');
    expect((await admin.post('/settings/judge', { preset: 'custom', base_url: fake.baseURL, api_key: 'k', chat_model: 'fake-chat', embedding_model: 'fake-embed',
      temperature: 0, timeout_ms: 60000, max_concurrency: 4, structured_output: 'json_schema', price_prompt: 1, price_completion: 2 })).status).toBe(303);
    const page = await expert.get(`/datasets/${datasetId}/runs`);
    const faith = /<th scope="row" class="mono">faithfulness<\/th>(.*?)<\/tr>/.exec(page.text)![1]!;
    expect(faith).toMatch(/≈ 0\.\d{4}/);
    expect(faith).not.toContain('no price set');
  });

  it('test connection checks the embedding model too, and names what fails', async () => {
    await admin.get('/settings/judge');
    const form = { preset: 'custom', base_url: fake.baseURL, api_key: 'k', chat_model: 'fake-chat', embedding_model: 'fake-embed',
      temperature: 0, timeout_ms: 5000, max_concurrency: 4, structured_output: 'json_schema', price_prompt: 0, price_completion: 0 };
    const ok = await admin.post('/settings/judge/test', form, { headers: { 'HX-Request': 'true' } });
    expect(ok.text).toContain('Chat model:');
    expect(ok.text).toContain('Embedding model:');
    expect(ok.text).toContain('class="flash"');
    const before = fake.counts().embeddings;
    const bad = await admin.post('/settings/judge/test', { ...form, embedding_model: 'no-such-embedder' }, { headers: { 'HX-Request': 'true' } });
    expect(fake.counts().embeddings).toBe(before + 1);
    expect(bad.text).toContain('class="alert"');
    expect(bad.text).toMatch(/Embedding model:<\/strong> <strong>[^<]+<\/strong>/);
    const none = await admin.post('/settings/judge/test', { ...form, embedding_model: '' }, { headers: { 'HX-Request': 'true' } });
    expect(none.text).toContain('No embedding model is set, so answer_correctness, answer_relevancy cannot run.');
  });

  it('archives a run: gone from the list and the calibration picker, still readable, and back again', async () => {
    const runId = await startRun('exact_match', 'old one');
    await app.ctx.runner.start(runId);
    await expert.get(`/runs/${runId}`);
    expect((await expert.post(`/runs/${runId}/archive`, { archived: '1' })).status).toBe(303);
    expect((await expert.get(`/datasets/${datasetId}/runs`)).text).not.toContain(`href="/runs/${runId}"`);
    expect((await expert.get(`/datasets/${datasetId}/runs?archived=1`)).text).toContain(`href="/runs/${runId}"`);
    expect((await expert.get(`/runs/${runId}`)).status).toBe(200);
    expect(app.ctx.runner.queries.forDataset(datasetId).some((r) => r.id === runId)).toBe(false);
    expect(app.ctx.audit.page({}).some((e) => e.entity_type === 'run' && e.action === 'archive' && e.entity_id === runId)).toBe(true);
    await expert.post(`/runs/${runId}/archive`, { archived: '0' });
    expect((await expert.get(`/datasets/${datasetId}/runs`)).text).toContain(`href="/runs/${runId}"`);
  });

  it('names the two statements steps of answer_correctness: the answer\'s, then the ground truth\'s', async () => {
    const runId = await startRun('answer_correctness', 'ac');
    await app.ctx.runner.start(runId);
    const scored = app.ctx.db.prepare("SELECT response_id FROM score WHERE run_id = ? AND status = 'ok' LIMIT 1").pluck().get(runId) as number;
    const trace = await expert.get(`/runs/${runId}/scores/${scored}`);
    const a = trace.text.indexOf('statements · statements of the answer');
    const b = trace.text.indexOf('statements · statements of the ground truth');
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(a);
  });
});
