// Prompt iteration with a holdout: examples only from the calibration part, draft runs on the
// calibration part, the held-out final check, comparison of two runs (the export: ragas-export.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { loginAs, startTestApp, type Client, type TestApp } from '../helpers.ts';
import { holdoutPart } from '../../server/calibration/holdout.ts';

let fake: FakeOpenAI;
let app: TestApp;
let admin: Client;
let datasetId: number;
let seed: number;
let heldOutRun = 0;
let calibrationRun = 0;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  app = await startTestApp({ OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'k', GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' });
  admin = await loginAs(app, 'boss@example.com', 'admin');
  const dataset = app.ctx.datasets.create(null, { name: 'Lab', description: '', language: 'zh', domain: '' });
  datasetId = dataset.id;
  seed = dataset.holdout_seed;
  const file = path.join(app.dir, 'lab.jsonl');
  fs.writeFileSync(file, Array.from({ length: 30 }, (_, i) => JSON.stringify({
    user_input: `问题 ${i}：张伟是哪个部门的？`, response: i % 3 ? '张伟是教研部的' : '张伟是人事部的', reference: '张伟是教研部的成员',
    retrieved_contexts: ['张伟 教研部工程师'], 'human.correct': i % 3 ? 'yes' : 'no', 'human.rationale_dummy': undefined,
  })).join('\n'));
  const expert = app.ctx.users.queries.insert({ email: 'li@example.com', name: '', role: 'expert', password_hash: null });
  expect((await app.ctx.imports.importFile(null, datasetId, file, { format: 'jsonl', annotatorId: expert })).ok).toBe(true);
  await admin.get(`/datasets/${datasetId}/metrics`);
  const created = await admin.post(`/datasets/${datasetId}/metrics`, { key: 'dept_correct', kind: 'custom', output: 'binary',
    instruction: '判断回答是否正确。问题：{{question}} 回答：{{answer}} 标准答案：{{ground_truth}}', categories: '', components: '' });
  expect(created.status, created.text.slice(0, 400)).toBe(303);
});
afterAll(async () => { await app.close(); await fake.close(); });

const responseIds = () => app.ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(datasetId) as number[];

async function waitForRuns() {
  for (const r of app.ctx.runner.queries.forDataset(datasetId)) await app.ctx.runner.start(r.id);
}

describe('prompt lab', () => {
  it('opens on the metric the judge ran last, and on the first metric before any run', async () => {
    const selected = async () => /id="f-metric"[^>]*>.*?<option value="([^"]+)" selected/.exec((await admin.get(`/datasets/${datasetId}/prompt-lab`)).text)?.[1];
    const first = await selected();
    expect(first).not.toBe('dept_correct');
    const run = app.ctx.runner.create(null, datasetId, { name: 'a first dept_correct run', metricKey: 'dept_correct' });
    expect(await selected()).toBe('dept_correct');
    app.ctx.db.prepare('UPDATE run SET archived = 1 WHERE id = ?').run(run.id); // an archived run is not offered
    expect(await selected()).toBe(first);
  });

  it('shows the current prompt next to a draft and offers only calibration-part items as examples', async () => {
    const page = await admin.get(`/datasets/${datasetId}/prompt-lab?metric=dept_correct`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('判断回答是否正确');
    // The prompt's texts carry the prompt's language, on whatever language the page is in.
    expect(page.text).toMatch(/<pre class="mono prompt" tabindex="0" lang="zh-CN">[^<]*判断回答是否正确/i);
    expect(page.text).toMatch(/<textarea id="d-instruction" name="instruction" rows="10" lang="zh-CN">[^<]*判断回答是否正确/);
    const metrics = await admin.get(`/datasets/${datasetId}/metrics`);
    expect(metrics.text).toMatch(/<textarea id="i-dept_correct-[^"]+" name="instruction" rows="6" lang="zh-CN">/);
    const offered = [...page.text.matchAll(/name="example" value="(\d+)"/g)].map((m) => Number(m[1]));
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.every((id) => holdoutPart(seed, id) === 'calibration')).toBe(true);
  });

  it('adds an expert-labelled item to the draft, refuses a held-out one, runs the draft on the calibration part only', async () => {
    const ids = responseIds();
    const calibrationId = ids.find((id) => holdoutPart(seed, id) === 'calibration')!;
    const heldOutId = ids.find((id) => holdoutPart(seed, id) === 'held_out')!;
    const form = { metric: 'dept_correct', step: 'rubric', criterion: app.ctx.criteria.forDataset(datasetId)[0]!.id, instruction: '判断回答是否正确。{{answer}}',
      output_format: '', examples: '[]', language: 'zh', note: '' };
    const refused = await admin.post(`/datasets/${datasetId}/prompt-lab/add-example`, { ...form, example: heldOutId });
    expect(refused.status).toBe(422);
    const added = await admin.post(`/datasets/${datasetId}/prompt-lab/add-example`, { ...form, example: calibrationId });
    expect(added.status).toBe(200);
    const examples = /id="d-examples"[^>]*>([^<]*)</.exec(added.text)![1]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&');
    expect(JSON.parse(examples)[0]).toMatchObject({ response_id: calibrationId, input: { question: expect.any(String), answer: expect.any(String) },
      output: { value: expect.any(Number), reason: expect.any(String) } });
    const run = await admin.post(`/datasets/${datasetId}/prompt-lab/run`, { ...form, examples, note: 'with one example' });
    expect(run.status).toBe(303);
    await waitForRuns();
    const created = app.ctx.runner.queries.forDataset(datasetId)[0]!;
    const selection = JSON.parse(created.selection) as { response_ids: number[]; part: string };
    expect(selection.part).toBe('calibration');
    expect(selection.response_ids).not.toContain(calibrationId);
    expect(selection.response_ids.every((id) => holdoutPart(seed, id) === 'calibration')).toBe(true);
    expect(app.ctx.prompts.versions(datasetId, 'dept_correct', 'rubric')[0]).toMatchObject({ version: 1, note: 'with one example' });
    const criterion = app.ctx.criteria.forDataset(datasetId)[0]!;
    const { report } = app.ctx.calibration.report({ criterion, run: created, part: 'all', holdoutSeed: seed, resamples: 50 });
    expect(report.excluded.used_as_example).toBe(1);

    const final = await admin.post(`/datasets/${datasetId}/prompt-lab/final`, { run: created.id, criterion: criterion.id });
    expect(final.status).toBe(303);
    await waitForRuns();
    const held = app.ctx.runner.queries.forDataset(datasetId)[0]!;
    const heldSel = JSON.parse(held.selection) as { response_ids: number[]; part: string };
    expect(heldSel.part).toBe('held_out');
    expect(heldSel.response_ids.every((id) => holdoutPart(seed, id) === 'held_out')).toBe(true);
    expect(JSON.parse(held.prompts).versions).toEqual({ rubric: 1 });

    // The calibration-part run and the held-out check score different items: nothing to compare, and no verdict.
    const compare = await admin.get(`/datasets/${datasetId}/compare?a=${created.id}&b=${held.id}&criterion=${criterion.id}`);
    expect(compare.status).toBe(200);
    expect(compare.text).toContain('These two runs have no expert-labelled item in common');
    expect(compare.text).not.toContain('beyond noise');
    heldOutRun = held.id;
    calibrationRun = created.id;
  });

  it('counts each look at the held-out part, shows it next to the figures, and asks before a second look spends it (issue #11.11)', async () => {
    const criterion = app.ctx.criteria.forDataset(datasetId)[0]!;
    expect((await admin.get(`/runs/${heldOutRun}`)).text).toContain('look 1 of 1 at the held-out part for dept_correct');
    expect((await admin.get(`/datasets/${datasetId}/prompt-lab?metric=dept_correct`)).text).toContain('looked at 1 time for dept_correct');
    const runs = () => app.ctx.runner.queries.forDataset(datasetId).length;
    const before = runs();
    const asked = await admin.post(`/datasets/${datasetId}/prompt-lab/final`, { run: calibrationRun, criterion: criterion.id });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Look at the held-out part again?');
    expect(asked.text).toContain('name="confirm" value="1"');
    expect(runs()).toBe(before);
    const again = await admin.post(`/datasets/${datasetId}/prompt-lab/final`, { run: calibrationRun, criterion: criterion.id, confirm: '1' });
    expect(again.status).toBe(303);
    await waitForRuns();
    expect(runs()).toBe(before + 1);
    const second = Number(again.headers.get('location')!.split('/').pop());
    const page = await admin.get(`/runs/${second}`);
    expect(page.text).toContain('look 2 of 2 at the held-out part for dept_correct');
    expect(page.text).toContain('read these figures as optimistic');
    const report = await admin.get(`/datasets/${datasetId}/calibration?criterion=${criterion.id}&run=${second}&part=held_out`);
    expect(report.text).toContain('look 2 of 2');
    expect(app.ctx.db.prepare('SELECT count(*) FROM holdout_look WHERE dataset_id = ?').pluck().get(datasetId)).toBe(2);
    // The lab offers the newest run (B) against the newest earlier run over the same items (A): the first
    // held-out look, not the calibration-part run between them; and that comparison has items and a verdict.
    const lab = (await admin.get(`/datasets/${datasetId}/prompt-lab?metric=dept_correct`)).text;
    expect(/name="b" value="(\d+)" checked/.exec(lab)?.[1]).toBe(String(second));
    expect(/name="a" value="(\d+)" checked/.exec(lab)?.[1]).toBe(String(heldOutRun));
    const looks = await admin.get(`/datasets/${datasetId}/compare?a=${heldOutRun}&b=${second}&criterion=${criterion.id}`);
    expect(looks.text).toContain('beyond noise');
    expect(looks.text).not.toContain('no expert-labelled item in common');
  });

  it('offers a built-in step no example from labels, only the judge\'s own recorded call, in the step\'s schema', async () => {
    const criterion = app.ctx.criteria.forDataset(datasetId)[0]!;
    const before = await admin.get(`/datasets/${datasetId}/prompt-lab?metric=faithfulness&step=nli&criterion=${criterion.id}`);
    expect(before.text).not.toContain('source=label');
    expect(before.text).not.toContain('source=trace');
    const run = app.ctx.runner.create(null, datasetId, { name: 'faith', metricKey: 'faithfulness' });
    await app.ctx.runner.start(run.id);
    const page = await admin.get(`/datasets/${datasetId}/prompt-lab?metric=faithfulness&step=nli&criterion=${criterion.id}`);
    expect(page.text).not.toContain('source=label');
    const offered = [...page.text.matchAll(/source=trace"[^>]*value="(\d+)"/g)].map((m) => Number(m[1]));
    expect(offered.length).toBeGreaterThan(0);
    const form = { metric: 'faithfulness', step: 'nli', criterion: criterion.id, instruction: 'x', output_format: '', examples: '[]', language: 'zh', note: '' };
    const added = await admin.post(`/datasets/${datasetId}/prompt-lab/add-example?source=trace`, { ...form, example: offered[0]! });
    expect(added.status).toBe(200);
    const examples = JSON.parse(/id="d-examples"[^>]*>([^<]*)</.exec(added.text)![1]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
    expect(examples[0]).toMatchObject({ response_id: offered[0], input: { context: expect.any(String), statements: expect.any(Array) },
      output: { statements: expect.any(Array) } });
    const fromLabel = await admin.post(`/datasets/${datasetId}/prompt-lab/add-example?source=label`, { ...form, example: offered[0]! });
    expect(fromLabel.status).toBe(422);
  });

  it('refuses a prompt version saved over one another editor saved since the page was opened, keeping the text', async () => {
    const other = await loginAs(app, 'editor2@example.com', 'admin');
    const basedOn = (html: string) => /name="metric" value="faithfulness"\/><input type="hidden" name="step" value="nli"\/><input type="hidden" name="based_on" value="(\d+)"/.exec(html)![1]!;
    const edit = (instruction: string, based_on: string) => ({ metric: 'faithfulness', step: 'nli', instruction, output_format: '', examples: '[]', language: 'en', note: '', based_on });
    const adminSees = basedOn((await admin.get(`/datasets/${datasetId}/metrics`)).text);
    const otherSees = basedOn((await other.get(`/datasets/${datasetId}/metrics`)).text);
    expect(otherSees).toBe(adminSees);
    const before = app.ctx.prompts.versions(datasetId, 'faithfulness', 'nli').length;
    expect((await admin.post(`/datasets/${datasetId}/prompts`, edit('Judge each statement (admin).', adminSees))).status).toBe(303);
    const late = await other.post(`/datasets/${datasetId}/prompts`, edit('Judge each statement (second editor).', otherSees));
    expect(late.status).toBe(409);
    const n = before + 1;
    expect(late.text).toContain(`Version ${n} of this step was saved by boss@example.com while you were editing it.`);
    expect(late.text).toContain('Judge each statement (second editor).'); // the text is kept
    expect(basedOn(late.text)).toBe(String(n)); // and the form is now on top of the version saved
    expect(app.ctx.prompts.versions(datasetId, 'faithfulness', 'nli')).toHaveLength(before + 1);
    expect((await other.post(`/datasets/${datasetId}/prompts`, edit('Judge each statement (second editor).', basedOn(late.text)))).status).toBe(303);
    expect(app.ctx.prompts.versions(datasetId, 'faithfulness', 'nli')).toHaveLength(before + 2);
  });

  it('refuses to save a version whose examples do not fit the step, naming the example and the field, and saves nothing', async () => {
    const before = app.ctx.prompts.versions(datasetId, 'faithfulness', 'statements').length;
    const examples = JSON.stringify([{ input: { question: 'q', text: 'a' }, output: { statements: ['s'] } }, { input: { question: 'q', text: 'a' }, output: { value: '0', reason: 'r' } }]);
    const viaMetrics = await admin.post(`/datasets/${datasetId}/prompts`, { metric: 'faithfulness', step: 'statements', instruction: 'edited', output_format: '', examples, language: 'en', note: '' });
    expect(viaMetrics.status).toBe(422);
    expect(viaMetrics.text).toContain('Example 2: output.statements is missing.');
    expect(viaMetrics.text).toContain('edited');
    const criterion = app.ctx.criteria.forDataset(datasetId)[0]!;
    const viaLab = await admin.post(`/datasets/${datasetId}/prompt-lab/run`, { metric: 'faithfulness', step: 'statements', criterion: criterion.id,
      instruction: 'edited', output_format: '', examples, language: 'en', note: '' });
    expect(viaLab.status).toBe(422);
    expect(app.ctx.prompts.versions(datasetId, 'faithfulness', 'statements')).toHaveLength(before);
  });
});
