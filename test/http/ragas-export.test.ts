// The calibrated-judge export loads into Ragas unchanged: one file per prompt named as save_prompts
// names it, keys in Ragas's order, examples validating against the pydantic schemas measured with
// Ragas 0.4.3 (test/fixtures/ragas-0.4.3/prompts.json), and goldset-calibration.json holding the
// calibration of a run that used exactly the exported prompt versions (never another version's).
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { unzipSync, strFromU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { loginAs, startTestApp, type Client, type TestApp } from '../helpers.ts';
import { BUILTIN_METRICS, defaultPrompts } from '../../server/judge/metrics/index.ts';
import { ragasPromptFiles } from '../../server/judge/ragas-prompts.ts';
import { cmdExportJudge } from '../../server/calibration/export-judge-cli.ts';
import type { Language } from '../../server/judge/types.ts';

interface RecordedPrompt { files: Record<'english' | 'chinese', string>; input_schema: object; output_schema: object }
const recorded = JSON.parse(fs.readFileSync(new URL('../fixtures/ragas-0.4.3/prompts.json', import.meta.url), 'utf8')) as {
  saved_file: { top_level_keys: string[]; example_keys: string[] };
  metrics: Record<string, { name: string; prompts: Record<string, RecordedPrompt> }>;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });

/** Checks one prompt file against Ragas's recorded layout and schemas; returns what is wrong. */
function problems(name: string, content: string): string[] {
  const out: string[] = [];
  const entry = Object.values(recorded.metrics).flatMap((m) => Object.values(m.prompts).flatMap((p) => Object.values(p.files).map((f) => ({ f, p }))))
    .find((x) => x.f === name);
  if (!entry) return [`${name} is not a file name Ragas's save_prompts writes`];
  const file = JSON.parse(content) as Record<string, unknown>;
  if (JSON.stringify(Object.keys(file)) !== JSON.stringify(recorded.saved_file.top_level_keys)) out.push(`${name}: keys ${Object.keys(file).join(',')}`);
  if (!name.endsWith(`_${String(file.language)}.json`)) out.push(`${name}: language ${String(file.language)}`);
  const input = ajv.compile(entry.p.input_schema);
  const output = ajv.compile(entry.p.output_schema);
  for (const [i, ex] of (file.examples as { input: unknown; output: unknown }[]).entries()) {
    if (JSON.stringify(Object.keys(ex)) !== JSON.stringify(recorded.saved_file.example_keys)) out.push(`${name} example ${i}: keys`);
    if (!input(ex.input)) out.push(`${name} example ${i} input: ${ajv.errorsText(input.errors)}`);
    if (!output(ex.output)) out.push(`${name} example ${i} output: ${ajv.errorsText(output.errors)}`);
  }
  return out;
}

describe('prompt files of every built-in metric (defaults, both languages)', () => {
  it.each(Object.values(BUILTIN_METRICS).filter((m) => m.kind === 'llm').flatMap((m) => (['en', 'zh'] as Language[]).map((l) => [m.key, l] as const)))(
    '%s in %s: the files Ragas loads, validating against its schemas', (key, language) => {
      const metric = BUILTIN_METRICS[key]!;
      const files = ragasPromptFiles(metric, defaultPrompts(metric, language))!;
      const ragasLanguage = language === 'zh' ? 'chinese' : 'english';
      const expected = Object.values(recorded.metrics).filter((m) => files.files.some((f) => f.name.startsWith(`${m.name}_`)))
        .flatMap((m) => Object.values(m.prompts).map((p) => p.files[ragasLanguage])).sort();
      expect(files.files.map((f) => f.name).sort()).toEqual(expected);
      for (const f of files.files) expect(problems(f.name, f.content)).toEqual([]);
      expect(files.steps.every((s) => s.examples > 0 && s.skipped_examples.length === 0)).toBe(true);
    });
});

let fake: FakeOpenAI;
let app: TestApp;
let admin: Client;
let datasetId: number;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  app = await startTestApp({ OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'k', GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' });
  admin = await loginAs(app, 'boss@example.com', 'admin');
  datasetId = app.ctx.datasets.create(null, { name: 'Export', description: '', language: 'zh', domain: '' }).id;
  const file = path.join(app.dir, 'items.jsonl');
  fs.writeFileSync(file, Array.from({ length: 24 }, (_, i) => JSON.stringify({
    user_input: `问题 ${i}：张伟是哪个部门的？`, response: i % 3 ? '张伟是教研部的' : '张伟是人事部的', reference: '张伟是教研部的成员',
    retrieved_contexts: ['张伟 教研部工程师'], 'human.faithful': i % 3 ? 'yes' : 'no',
  })).join('\n'));
  const expert = app.ctx.users.queries.insert({ email: 'li@example.com', name: '', role: 'expert', password_hash: null });
  expect((await app.ctx.imports.importFile(null, datasetId, file, { format: 'jsonl', annotatorId: expert })).ok).toBe(true);
});
afterAll(async () => { await app.close(); await fake.close(); });

async function scoreAndRecord(name: string): Promise<number> {
  const run = app.ctx.runner.create(null, datasetId, { name, metricKey: 'faithfulness' });
  await app.ctx.runner.start(run.id);
  const criterion = app.ctx.criteria.forDataset(datasetId)[0]!;
  await admin.get(`/datasets/${datasetId}/calibration`);
  const res = await admin.post(`/datasets/${datasetId}/calibration/record`, { criterion: criterion.id, run: run.id, part: 'all', threshold: '0.5' });
  expect(res.status).toBeLessThan(400);
  return run.id;
}

/** A zip download's files (the test Client reads text, so this fetches the bytes with its session). */
async function download(query = '', metric = 'faithfulness'): Promise<Record<string, string>> {
  const res = await fetch(`${app.url}/datasets/${datasetId}/metrics/${metric}/export${query}`, { headers: { Cookie: admin.cookie } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/zip');
  const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
  return Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strFromU8(v)]));
}

describe('export-judge', () => {
  it('never pairs an edited prompt with the calibration of a run of another version (#11.4), and pairs it once such a run is recorded', async () => {
    const defaultsRun = await scoreAndRecord('defaults');
    // An edited statements prompt (v1) with an example taken from the judge's own trace of that run.
    const trace = JSON.parse(app.ctx.runner.queries.score(defaultsRun, app.ctx.runner.queries.scores(defaultsRun, { limit: 1, offset: 0 })[0]!.response_id)!.trace!);
    const call = trace.steps.find((s: { step: string }) => s.step === 'statements');
    const examples = JSON.stringify([{ input: call.input, output: call.parsed, response_id: 1 }]);
    const saved = await admin.post(`/datasets/${datasetId}/prompts`, { metric: 'faithfulness', step: 'statements', instruction: '把回答拆成陈述（已编辑）。',
      output_format: '只输出 JSON。', examples, language: 'zh', note: 'edited' });
    expect(saved.status).toBe(303);

    let files = await download();
    expect(Object.keys(files).sort()).toEqual(['faithfulness_n_l_i_statement_prompt_chinese.json', 'faithfulness_statement_generator_prompt_chinese.json', 'goldset-calibration.json']);
    for (const [name, content] of Object.entries(files)) if (name !== 'goldset-calibration.json') expect(problems(name, content)).toEqual([]);
    const statements = JSON.parse(files['faithfulness_statement_generator_prompt_chinese.json']!);
    expect(statements).toMatchObject({ ragas_version: '0.4.3', original_hash: null, language: 'chinese', instruction: '把回答拆成陈述（已编辑）。\n\n只输出 JSON。' });
    expect(statements.examples[0]).toEqual({ input: { question: call.input.question, answer: call.input.text }, output: call.parsed });
    let calibration = JSON.parse(files['goldset-calibration.json']!);
    expect(calibration.prompts).toMatchObject({ statements: { version: 1, ragas_prompt: 'statement_generator_prompt', example_items: [1] }, nli: { version: null } });
    expect(calibration.calibration).toBeNull();
    expect(calibration.calibration_note).toContain('prompt statements default → v1');

    // The built-in defaults (version 0) are what the first run used: its calibration comes with them.
    files = await download('?version=0');
    calibration = JSON.parse(files['goldset-calibration.json']!);
    expect(calibration.calibration).toMatchObject({ run: 'defaults', prompt_versions: { statements: null, nli: null }, judge: { model: 'fake-chat' } });
    expect(calibration.calibration.n).toBeGreaterThan(0);
    expect(calibration.calibration.item_ids).toHaveLength(24);

    await scoreAndRecord('edited');
    files = await download();
    calibration = JSON.parse(files['goldset-calibration.json']!);
    expect(calibration.calibration).toMatchObject({ run: 'edited', prompt_versions: { statements: 1, nli: null } });
    // Its example item is left out of the figures.
    expect(calibration.calibration.excluded.used_as_example).toBe(1);
  });

  it('writes the same files to a folder from the CLI, and refuses a version a step does not have', () => {
    const dir = path.join(app.dir, 'prompts');
    const printed: Record<string, unknown>[] = [];
    const out = { json: true, print: (_t: string, d: Record<string, unknown>) => { printed.push(d); } };
    expect(cmdExportJudge(app.ctx, { dataset: 'Export', metric: 'faithfulness', out: dir }, out)).toBe(0);
    expect(fs.readdirSync(dir).sort()).toEqual(['faithfulness_n_l_i_statement_prompt_chinese.json', 'faithfulness_statement_generator_prompt_chinese.json', 'goldset-calibration.json']);
    expect(printed[0]).toMatchObject({ language: 'chinese', calibrated: true });
    expect(() => cmdExportJudge(app.ctx, { dataset: 'Export', metric: 'faithfulness', out: dir, version: '2' }, out)).toThrow('Not every step of this metric has that prompt version.');
    expect(() => cmdExportJudge(app.ctx, { dataset: 'Export', metric: 'exact_match', out: dir }, out)).toThrow('This metric has no prompts Ragas can load');
  });

  it('exports a custom rubric metric in the same layout under its own prompt name', async () => {
    const created = await admin.post(`/datasets/${datasetId}/metrics`, { key: 'polite', kind: 'custom', output: 'binary', instruction: '回答是否礼貌？{{answer}}', categories: '', components: '' });
    expect(created.status).toBe(303);
    const files = await download('', 'polite');
    expect(Object.keys(files).sort()).toEqual(['goldset-calibration.json', 'polite_rubric_prompt_chinese.json']);
    const rubric = JSON.parse(files['polite_rubric_prompt_chinese.json']!);
    expect(Object.keys(rubric)).toEqual(recorded.saved_file.top_level_keys);
    expect(rubric).toMatchObject({ language: 'chinese', examples: [] });
  });

  it('shows on the Metrics page which prompt versions each calibration is about', async () => {
    const page = await admin.get(`/datasets/${datasetId}/metrics`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('statements v1 · nli default');
    expect(page.text).toContain('statements default · nli default');
    expect(page.text).toContain('Download for Ragas (.zip)');
  });
});
