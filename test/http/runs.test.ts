// Scoring runs end to end: the CLI against the fake OpenAI-compatible server, the call cache, resuming
// a killed run, imported external scores, and the judge settings page.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { defaultChatAnswer, startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { Client, setupAdmin, startTestApp } from '../helpers.ts';
import { goldsetCli } from '../cli.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const KEY = 'sk-test-secret-key-123456';
let fake: FakeOpenAI;
let dir: string;

beforeAll(async () => { fake = await startFakeOpenAI({ apiKey: KEY }); });
afterAll(async () => { await fake.close(); });
beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-runs-')); fake.reset(); fake.setLatency(0); });

function env(db: string) {
  return { ...process.env, GOLDSET_DB: db, OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: KEY, GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' };
}
const goldset = (db: string, args: string[]) => goldsetCli(args, { env: env(db) });
async function seed(db: string, n: number, extra: (i: number) => Record<string, unknown> = () => ({})): Promise<void> {
  const rows = Array.from({ length: n }, (_, i) => JSON.stringify({
    user_input: `Question number ${i}: which department is employee ${i} in?`, reference: `Employee ${i} is in department ${i % 5}.`,
    response: `Employee ${i} works in department ${(i * 7) % 5}.`, retrieved_contexts: [`Employee ${i}, department ${i % 5}`, 'Unrelated context'], system: 'v1', ...extra(i),
  }));
  const file = path.join(dir, `seed-${n}.jsonl`);
  fs.writeFileSync(file, rows.join('\n'));
  const res = await goldset(db, ['import', file, '--dataset', 'HR', '--run', 'ragas-nightly']);
  if (res.code !== 0) throw new Error(res.stderr);
}
function scores(db: string, run: string): Record<string, { status: string; value: number | null }> {
  const sqlite = new Database(db, { readonly: true });
  const rows = sqlite.prepare(`SELECT s.question, sc.status, sc.value FROM score sc JOIN run r ON r.id = sc.run_id JOIN response x ON x.id = sc.response_id
    JOIN sample s ON s.id = x.sample_id WHERE r.name = ?`).all(run) as { question: string; status: string; value: number | null }[];
  sqlite.close();
  return Object.fromEntries(rows.map((r) => [r.question, { status: r.status, value: r.value }]));
}

describe('goldset score', () => {
  it('scores every response and prints exactly the summary keys other programs read', async () => {
    const db = path.join(dir, 'a.db');
    await seed(db, 6);
    const res = await goldset(db, ['score', '--dataset', 'HR', '--metric', 'answer_correctness', '--run', 'first', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const out = res.json();
    expect(Object.keys(out).sort()).toEqual(['cached_calls', 'errored', 'llm_calls', 'mean', 'run', 'scored', 'skipped', 'tokens']);
    expect(Object.keys(out.tokens).sort()).toEqual(['completion', 'prompt']);
    expect(out).toMatchObject({ run: 'first', scored: 6, errored: 0, skipped: 0 });
    expect(out.mean).toBeGreaterThanOrEqual(0);
    expect(out.mean).toBeLessThanOrEqual(1);
    const c = fake.counts();
    expect(out.llm_calls).toBe(c.chat + c.embeddings); // every request that reached the endpoint
    expect(c.chat).toBe(6 * 3); // Ragas's count: two statement calls and one classification per item
  });

  it('answers identical calls from the cache: a second run of the same prompts sends nothing', async () => {
    const db = path.join(dir, 'b.db');
    await seed(db, 4);
    await goldset(db, ['score', '--dataset', 'HR', '--metric', 'faithfulness', '--run', 'one']);
    const before = fake.counts().total;
    const again = (await goldset(db, ['score', '--dataset', 'HR', '--metric', 'faithfulness', '--run', 'two', '--json'])).json();
    expect(fake.counts().total).toBe(before);
    expect(again.llm_calls).toBe(0);
    expect(again.cached_calls).toBeGreaterThan(0);
    expect(scores(db, 'two')).toEqual(scores(db, 'one'));
  });

  it('records replies that stay malformed as errors, never as 0, and keeps them out of the mean', async () => {
    const db = path.join(dir, 'c.db');
    await seed(db, 3);
    fake.onChat((body) => {
      const text = JSON.stringify(body.messages);
      return text.includes('Question number 1') ? 'this is not JSON' : defaultChatAnswer(body);
    });
    const out = (await goldset(db, ['score', '--dataset', 'HR', '--metric', 'context_recall', '--run', 'bad', '--json'])).json();
    fake.onChat();
    expect(out).toMatchObject({ scored: 2, errored: 1 });
    const s = scores(db, 'bad');
    expect(s['Question number 1: which department is employee 1 in?']).toEqual({ status: 'error', value: null });
  });

  it('refuses an unknown metric and a finished run name, naming the problem', async () => {
    const db = path.join(dir, 'd.db');
    await seed(db, 1);
    const unknown = await goldset(db, ['score', '--dataset', 'HR', '--metric', 'nonsense']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown metric "nonsense"');
    await goldset(db, ['score', '--dataset', 'HR', '--metric', 'exact_match', '--run', 'x']);
    expect((await goldset(db, ['score', '--dataset', 'HR', '--metric', 'exact_match', '--run', 'x'])).stderr).toContain('is finished');
  });

  it('resumes a killed run without redoing finished items, ending with the same scores as an uninterrupted run', async () => {
    const killed = path.join(dir, 'killed.db');
    const whole = path.join(dir, 'whole.db');
    await seed(killed, 30);
    await seed(whole, 30);
    await goldset(whole, ['score', '--dataset', 'HR', '--metric', 'context_precision', '--run', 'r', '--concurrency', '2']);
    fake.reset();
    fake.setLatency(40);
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', 'score', '--dataset', 'HR', '--metric', 'context_precision', '--run', 'r', '--concurrency', '2'],
      { cwd: ROOT, env: env(killed), stdio: 'ignore' });
    const sqlite = new Database(killed, { readonly: true });
    const count = () => sqlite.prepare("SELECT count(*) FROM score sc JOIN run r ON r.id = sc.run_id WHERE r.name = 'r'").pluck().get() as number;
    for (let i = 0; i < 600 && count() < 8; i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const doneBefore = count();
    expect(doneBefore).toBeGreaterThanOrEqual(8);
    expect(doneBefore).toBeLessThan(30);
    expect(sqlite.prepare("SELECT status FROM run WHERE name = 'r'").pluck().get()).toBe('running');
    sqlite.close();
    fake.setLatency(0);
    const callsBefore = fake.counts().chat;
    const resumed = await goldset(killed, ['score', '--dataset', 'HR', '--metric', 'context_precision', '--run', 'r', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.json()).toMatchObject({ scored: 30 });
    // Only the unfinished items were asked again (two contexts each → two calls per item), at most those in flight when killed.
    expect(fake.counts().chat - callsBefore).toBeLessThanOrEqual((30 - doneBefore) * 2);
    expect(scores(killed, 'r')).toEqual(scores(whole, 'r'));
  });
});

describe('imported external scores', () => {
  it('turns metric-named columns into an imported run; empty cells are no score, not 0', async () => {
    const db = path.join(dir, 'e.db');
    await seed(db, 4, (i) => ({ faithfulness: i === 2 ? null : i / 4, answer_correctness: 0.5 }));
    const sqlite = new Database(db, { readonly: true });
    const runs = sqlite.prepare("SELECT name, metric_key, source, status, n_total FROM run ORDER BY metric_key").all();
    expect(runs).toEqual([
      { name: 'ragas-nightly', metric_key: 'answer_correctness', source: 'imported', status: 'done', n_total: 4 },
      { name: 'ragas-nightly', metric_key: 'faithfulness', source: 'imported', status: 'done', n_total: 4 },
    ]);
    const f = sqlite.prepare(`SELECT sc.status, sc.value FROM score sc JOIN run r ON r.id = sc.run_id WHERE r.metric_key = 'faithfulness' ORDER BY sc.response_id`).all();
    expect(f).toEqual([{ status: 'ok', value: 0 }, { status: 'ok', value: 0.25 }, { status: 'skipped', value: null }, { status: 'ok', value: 0.75 }]);
    sqlite.close();
  });
});

describe('judge settings page', () => {
  it('stores the key without ever rendering it, and the connection test names a bad key in plain words', async () => {
    const app = await startTestApp();
    try {
      const admin = await setupAdmin(app);
      await admin.get('/settings/judge');
      const form = { preset: 'custom', base_url: fake.baseURL, api_key: KEY, chat_model: 'fake-chat', embedding_model: 'fake-embed', temperature: '0',
        timeout_ms: '5000', max_concurrency: '4', structured_output: 'json_schema', price_prompt: '0.15', price_completion: '0.6' };
      expect((await admin.post('/settings/judge', form)).status).toBe(303);
      const page = await admin.get('/settings/judge');
      expect(page.text).not.toContain(KEY);
      expect(page.text).toContain('A key is stored');
      expect(app.logs.join('\n')).not.toContain(KEY);
      const ok = await admin.post('/settings/judge/test', { ...form, api_key: '' }, { headers: { 'HX-Request': 'true' } });
      expect(ok.text).toContain('Connected: fake-chat answered.');
      const bad = await admin.post('/settings/judge/test', { ...form, api_key: 'sk-wrong' }, { headers: { 'HX-Request': 'true' } });
      expect(bad.text).toContain('The API key was refused.');
      expect(bad.text).not.toContain('sk-wrong');
      const unknown = await admin.post('/settings/judge/test', { ...form, api_key: '', chat_model: 'no-such-model' }, { headers: { 'HX-Request': 'true' } });
      expect(unknown.text).toContain('does not know this model');
      const unreachable = await admin.post('/settings/judge/test', { ...form, base_url: 'http://127.0.0.1:9/v1' }, { headers: { 'HX-Request': 'true' } });
      expect(unreachable.text).toContain('could not be reached');
      // In Chinese: the headline in Chinese, under it only the facts (status, the endpoint's words, an error code), no English of goldset's.
      const zh = new Client(app.url, 'zh');
      zh.cookie = admin.cookie;
      zh.csrf = admin.csrf;
      const badZh = await zh.post('/settings/judge/test', { ...form, api_key: 'sk-wrong' }, { headers: { 'HX-Request': 'true' } });
      expect(badZh.text).toMatch(/<strong>API Key 被拒绝。<\/strong> <span class="sub">HTTP 401 · [^<]+<\/span>/);
      expect(badZh.text).not.toContain('The endpoint rejected');
      const unreachableZh = await zh.post('/settings/judge/test', { ...form, base_url: 'http://127.0.0.1:9/v1' }, { headers: { 'HX-Request': 'true' } });
      expect(unreachableZh.text).toContain('<strong>无法连接该接口（请检查地址、端口和网络）。</strong> <span class="sub">bad port</span>'); // fetch refuses port 9 itself
      const expert = await (await import('../helpers.ts')).loginAs(app, 'e@example.com', 'expert');
      expect((await expert.get('/settings/judge')).status).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('refuses a save over settings another admin saved since the page was opened, keeping what was typed', async () => {
    const app = await startTestApp();
    try {
      const ada = await setupAdmin(app);
      const bo = await (await import('../helpers.ts')).loginAs(app, 'bo@example.com', 'admin');
      const version = (html: string) => /name="version" value="(\d+)"/.exec(html)![1]!;
      const form = { preset: 'custom', base_url: fake.baseURL, api_key: KEY, chat_model: 'fake-chat', embedding_model: '', temperature: '0',
        timeout_ms: '5000', max_concurrency: '4', structured_output: 'json_schema', price_prompt: '0', price_completion: '0' };
      expect((await ada.post('/settings/judge', { ...form, version: version((await ada.get('/settings/judge')).text) })).status).toBe(303);
      // Both open the page at the same version; Ada saves first.
      const adaSees = version((await ada.get('/settings/judge')).text);
      const boSees = version((await bo.get('/settings/judge')).text);
      expect(boSees).toBe(adaSees);
      expect((await ada.post('/settings/judge', { ...form, api_key: '', chat_model: 'qwen-plus', version: adaSees })).status).toBe(303);
      const late = await bo.post('/settings/judge', { ...form, api_key: '', chat_model: 'gpt-4o-mini', version: boSees });
      expect(late.status).toBe(409);
      expect(late.text).toContain('Someone else saved the judge settings while you were editing them (now qwen-plus at');
      expect(late.text).toContain('value="gpt-4o-mini"'); // what Bo typed stays in the form
      expect(app.ctx.judgeSettings.effective()!.chat_model).toBe('qwen-plus');
      // Saving again from that form is a decision taken knowing Ada's: it carries the version now stored.
      expect((await bo.post('/settings/judge', { ...form, api_key: '', chat_model: 'gpt-4o-mini', version: version(late.text) })).status).toBe(303);
      expect(app.ctx.judgeSettings.effective()!.chat_model).toBe('gpt-4o-mini');
      expect(app.ctx.judgeSettings.effective()!.api_key).toBe(KEY);
      // A key typed into a refused form is not shown again, and the form says so beside the key field.
      const typed = await bo.post('/settings/judge', { ...form, api_key: 'sk-typed-by-bo-0123456789', chat_model: 'x', version: boSees });
      expect(typed.status).toBe(409);
      expect(typed.text).not.toContain('sk-typed-by-bo');
      expect(typed.text).toContain('<input id="f-api_key" aria-describedby="f-api_key-hint f-api_key-error" aria-invalid="true"');
      expect(typed.text).toContain('The key you typed is not shown again: type it again before saving.');
      expect((await bo.post('/settings/judge', { ...form, api_key: '', chat_model: '', version: version(typed.text) })).text).not.toContain('f-api_key-error');
    } finally {
      await app.close();
    }
  });
});
