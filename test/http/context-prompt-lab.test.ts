// The prompt lab for the verify step of context_precision: examples from the experts' context labels of the
// calibration part in the step's own schema (never counted), save and run on the calibration part, the
// held-out final check, and the comparison of two versions by a paired bootstrap over responses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { loginAs, startTestApp, type Client, type TestApp } from '../helpers.ts';
import { holdoutPart } from '../../server/calibration/holdout.ts';
import { VerificationSchema, VerifyInput } from '../../server/judge/metrics/context-precision.ts';
import { compareContext } from '../../server/calibration/report-context.ts';
import type { RunRow } from '../../server/judge/run-queries.ts';
import { OUTDATED_HINT, runContextPrecision, scriptJudge, seedContexts } from '../calibration/context-fixture.ts';

const N = 40;
const RATIONALE = 'Only the current policy and the footnote on working days answer this.';
let fake: FakeOpenAI;
let app: TestApp;
let admin: Client;
let datasetId: number;
let criterionId: number;
let seed: number;
let ids: number[];
let baseline: RunRow;

const lab = () => `/datasets/${datasetId}/prompt-lab?metric=context_precision&step=verify`;
const examplesOf = (html: string) => /id="d-examples"[^>]*>([^<]*)</.exec(html)![1]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&#39;/g, "'");

beforeAll(async () => {
  fake = await startFakeOpenAI();
  scriptJudge(fake);
  app = await startTestApp({ OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'k', GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' });
  admin = await loginAs(app, 'boss@example.com', 'admin');
  const expertId = app.ctx.users.queries.insert({ email: 'li@example.com', name: 'Li', role: 'expert', password_hash: null });
  const seeded = await seedContexts(app, { name: 'Leave lab', n: N, expertId, rationale: RATIONALE });
  ({ datasetId, ids } = seeded);
  criterionId = seeded.criterion.id;
  seed = app.ctx.datasets.get(datasetId)!.holdout_seed;
  baseline = await runContextPrecision(app, datasetId, 'cp-v0');
}, 60_000);
afterAll(async () => { await app.close(); await fake.close(); });

describe('prompt lab for the verify step', () => {
  it('offers labelled contexts of the calibration part only, against the per-context criterion', async () => {
    const page = await admin.get(lab());
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/Few-shot examples from the experts(&#39;|') context labels/);
    expect(page.text).toMatch(new RegExp(`<option value="${criterionId}" selected[^>]*>relevant</option>`));
    const offered = [...page.text.matchAll(/name="example" value="(\d+):(\d+)"/g)].map((m) => ({ id: Number(m[1]), index: Number(m[2]) }));
    expect(offered.length).toBe(40);
    // The question and the context are marked with the dataset's language.
    expect(page.text.match(/<td lang="en">[^<]*<\/td><td class="num">\d+<\/td><td class="sub" lang="en">/g)?.length).toBe(40);
    expect(offered.every(({ id }) => holdoutPart(seed, id) === 'calibration')).toBe(true);
    // The contexts the newest run judged against the experts come first: the examples that teach something.
    const rows = new Map(app.ctx.contextCalibration.responses({ criterion: app.ctx.criteria.get(criterionId)!, run: baseline, part: 'calibration', holdoutSeed: seed })
      .map((r) => [r.id, r]));
    const wrong = offered.map(({ id, index }) => compareContext(rows.get(id)!, index)!.disagrees);
    expect(wrong[0]).toBe(true);
    const firstRight = wrong.indexOf(false);
    expect(firstRight === -1 || wrong.slice(firstRight).every((w) => !w)).toBe(true);
  });

  it('adds an expert-labelled context as an example in the verify step\'s own schema, and refuses a held-out one', async () => {
    const calibrationId = ids.find((id) => holdoutPart(seed, id) === 'calibration')!;
    const heldOutId = ids.find((id) => holdoutPart(seed, id) === 'held_out')!;
    const base = await admin.get(lab());
    const form = { metric: 'context_precision', step: 'verify', criterion: criterionId, instruction: 'Judge the context.', output_format: '', examples: '[]', language: 'en', note: '' };
    expect((await admin.post(`/datasets/${datasetId}/prompt-lab/add-example`, { ...form, example: `${heldOutId}:0` })).status).toBe(422);
    expect(base.status).toBe(200);
    const added = await admin.post(`/datasets/${datasetId}/prompt-lab/add-example`, { ...form, example: `${calibrationId}:1` });
    expect(added.status).toBe(200);
    const [example, ...rest] = JSON.parse(examplesOf(added.text)) as { input: Record<string, unknown>; output: unknown; response_id: number }[];
    expect(rest).toEqual([]);
    const response = app.ctx.responses.byId(calibrationId)!;
    const gold = app.ctx.contextCalibration.goldFor(app.ctx.criteria.get(criterionId)!).get(calibrationId)![1]!;
    expect(example).toEqual({
      input: { question: response.question, context: (JSON.parse(response.retrieved_contexts) as string[])[1], answer: response.ground_truth },
      output: { reason: RATIONALE, verdict: Number(gold) }, response_id: calibrationId,
    });
    // Exactly the step's schema: nothing more, nothing less.
    expect(VerifyInput.strict().parse(example!.input)).toEqual(example!.input);
    expect(VerificationSchema.strict().parse(example!.output)).toEqual(example!.output);
  });

  it('takes the answer, not the ground truth, as the verify step\'s `answer` without reference', async () => {
    const calibrationId = ids.find((id) => holdoutPart(seed, id) === 'calibration')!;
    const form = { metric: 'context_precision_without_reference', step: 'verify', criterion: criterionId, instruction: 'x', output_format: '', examples: '[]', language: 'en', note: '' };
    const added = await admin.post(`/datasets/${datasetId}/prompt-lab/add-example`, { ...form, example: `${calibrationId}:2` });
    expect(added.status).toBe(200);
    const [example] = JSON.parse(examplesOf(added.text)) as { input: Record<string, unknown> }[];
    expect(example!.input.answer).toBe(app.ctx.responses.byId(calibrationId)!.answer);
  });

  let improved: RunRow;
  it('saves and runs a draft on the calibration part, the example\'s response never counted', async () => {
    const calibrationId = ids.find((id) => holdoutPart(seed, id) === 'calibration')!;
    const form = { metric: 'context_precision', step: 'verify', criterion: criterionId, output_format: '', examples: '[]', language: 'en', note: '' };
    const added = await admin.post(`/datasets/${datasetId}/prompt-lab/add-example`, { ...form, instruction: 'x', example: `${calibrationId}:0` });
    const instruction = `Decide whether the context helps to reach the answer. A ${OUTDATED_HINT} (outdated) rule never does.`;
    const run = await admin.post(`/datasets/${datasetId}/prompt-lab/run`, { ...form, instruction, examples: examplesOf(added.text), note: 'outdated rules' });
    expect(run.status, run.text.slice(0, 300)).toBe(303);
    for (const r of app.ctx.runner.queries.forDataset(datasetId)) await app.ctx.runner.start(r.id);
    improved = app.ctx.runner.queries.forDataset(datasetId)[0]!;
    const selection = JSON.parse(improved.selection) as { response_ids: number[]; part: string };
    expect(selection.part).toBe('calibration');
    expect(selection.response_ids).not.toContain(calibrationId);
    expect(selection.response_ids.every((id) => holdoutPart(seed, id) === 'calibration')).toBe(true);
    const criterion = app.ctx.criteria.get(criterionId)!;
    const { report } = app.ctx.contextCalibration.report({ criterion, run: improved, part: 'all', holdoutSeed: seed, resamples: 50 });
    expect(report.excluded.used_as_example).toBe(4);
    expect(report.item_level.points.map((p) => p.id)).not.toContain(calibrationId);
  });

  it('compares two versions on the same contexts with a paired bootstrap over responses, listing flipped contexts', async () => {
    const page = await admin.get(`/datasets/${datasetId}/compare?a=${baseline.id}&b=${improved.id}&criterion=${criterionId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Paired bootstrap over answers');
    expect(page.text).toContain('B agrees with the experts better than A, beyond noise.');
    // Every outdated context the improved prompt judged flipped to agree; none flipped the other way.
    const toAgree = [...page.text.matchAll(/review\/contexts\/(\d+)\/(\d+)\?/g)];
    const selection = JSON.parse(improved.selection) as { response_ids: number[] };
    expect(toAgree.length).toBe(selection.response_ids.length);
    expect(page.text).toContain('No longer agree with the experts (0)');
  });

  it('runs the final check on the held-out part with the same prompts', async () => {
    const final = await admin.post(`/datasets/${datasetId}/prompt-lab/final`, { run: improved.id, criterion: criterionId });
    expect(final.status).toBe(303);
    for (const r of app.ctx.runner.queries.forDataset(datasetId)) await app.ctx.runner.start(r.id);
    const held = app.ctx.runner.queries.forDataset(datasetId)[0]!;
    const sel = JSON.parse(held.selection) as { response_ids: number[]; part: string };
    expect(sel.part).toBe('held_out');
    expect(sel.response_ids.length).toBe(ids.filter((id) => holdoutPart(seed, id) === 'held_out').length);
    expect(JSON.parse(held.prompts).versions).toEqual({ verify: 1 });
    const { report } = app.ctx.contextCalibration.report({ criterion: app.ctx.criteria.get(criterionId)!, run: held, part: 'held_out', holdoutSeed: seed, resamples: 50 });
    expect(report.confusion.fp).toBe(0);
    // The calibration-part run and the held-out check judged different contexts: nothing to compare, no verdict.
    const page = await admin.get(`/datasets/${datasetId}/compare?a=${improved.id}&b=${held.id}&criterion=${criterionId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('These two runs have no expert-labelled item in common');
    expect(page.text).not.toContain('class="card verdict');
  });
});
