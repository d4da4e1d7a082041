// The true score end to end: drawing an estimation sample (page and CLI), sampled items first in
// every labeller's queue, only sampled gold entering the estimate, few-shot examples never sampled,
// the estimate's JSON keys, the calibration page's section, recorded calibrations keeping it, and
// the CI gate's --min-true.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, loginAs, setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';
import { goldsetCli } from '../cli.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import type { CurrentUser } from '../../server/http/context.ts';
import { cmdEstimate, estimateJson } from '../../server/estimate/cli.ts';
import { cmdGate } from '../../server/calibration/cli.ts';

const QUESTIONS = 30;

let app: TestApp;
let admin: Client;
let datasetId: number;
let criterion: Criterion;

const goldset = (args: string[]) => goldsetCli(args, { env: { GOLDSET_DB: app.ctx.config.dbFile } });

/** The experts pass item i unless i % 3 = 0; the judge (faithfulness) is lenient: it passes half of those too. */
const passes = (i: number) => i % 3 !== 0;
const score = (i: number) => (passes(i) ? 0.9 : i % 2 ? 0.8 : 0.2);

beforeEach(async () => {
  app = await startTestApp();
  admin = await setupAdmin(app);
  const adminId = app.ctx.users.queries.byEmail(ADMIN.email)!.id;
  datasetId = app.ctx.datasets.create(adminId, { name: 'HR', description: '', language: 'en', domain: '' }).id;
  const rows: string[] = [];
  for (let q = 0; q < QUESTIONS; q++) {
    for (const system of ['v1', 'v2']) {
      const i = q * 2 + (system === 'v2' ? 1 : 0);
      rows.push(JSON.stringify({ user_input: `Question ${q}?`, response: `Answer ${i} ${'x'.repeat(i * 7)}`, retrieved_contexts: Array.from({ length: 1 + (i % 3) }, (_, k) => `ctx ${i}.${k}`),
        reference: `Reference ${q}.`, system, faithfulness: score(i) }));
    }
  }
  const file = path.join(app.dir, 'set.jsonl');
  fs.writeFileSync(file, rows.join('\n'));
  const res = await app.ctx.imports.importFile(adminId, datasetId, file, { format: 'jsonl', runName: 'ragas' });
  expect(res.ok).toBe(true);
  criterion = app.ctx.criteria.create(adminId, datasetId, { name: 'correct', kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null, guidelines: '' });
});

afterEach(async () => { await app.close(); });

function expertUser(email: string): CurrentUser {
  const u = app.ctx.users.queries.byEmail(email)!;
  return { id: u.id, email: u.email, name: u.name, role: u.role, locale: u.locale };
}

/** Item index i of a response, from its answer text. */
function indexOf(responseId: number): number {
  return Number(/^Answer (\d+)/.exec(app.ctx.responses.byId(responseId)!.answer)![1]);
}

function label(user: CurrentUser, responseId: number, value: string): void {
  app.ctx.labels.submit(user, { id: responseId, dataset_id: datasetId }, [criterion], { values: new Map([[String(criterion.id), value]]), rationale: '', corrected_answer: '' }, null);
}

const run = () => app.ctx.runner.queries.byName(datasetId, 'ragas', 'faithfulness')!;
const estimate = (system: string | null = null) => app.ctx.estimates.estimate({ criterion, run: run(), system, threshold: 0.5 });

describe('estimation samples', () => {
  it('a drawn sample is recorded (who, when, seed, ids) and its items come first in every labeller\'s queue, in the order drawn', async () => {
    app.ctx.labels.setAssignment(app.ctx.users.queries.byEmail(ADMIN.email)!.id, datasetId, app.ctx.datasets.get(datasetId)!.version, 2, []); // two experts label each item
    const page = await admin.get(`/datasets/${datasetId}/calibration`);
    expect(page.status).toBe(200);
    const res = await admin.post(`/datasets/${datasetId}/estimate/samples`, { system: '', size: 5, seed: 42, criterion: criterion.id, run: run().id, part: 'calibration', threshold: 0.5 });
    expect(res.status).toBe(303);
    const sample = app.ctx.estimates.samples(datasetId)[0]!;
    expect(sample).toMatchObject({ system: null, n_items: 5, creator_email: ADMIN.email });
    const [draw] = app.ctx.estimates.draws(sample.id);
    expect(draw).toMatchObject({ seed: 42, requested: 5, drawn: 5, frame_size: 60 });
    const ids = app.ctx.estimates.queries.items.all(sample.id).map((it) => it.response_id);
    const audit = app.ctx.db.prepare("SELECT after FROM audit_event WHERE action = 'estimation_sample_draw'").pluck().get() as string;
    expect(JSON.parse(audit)).toMatchObject({ sample: sample.id, seed: 42, response_ids: ids });
    // The same seed draws the same items from the same frame (a second sample, for the record).
    const again = app.ctx.estimates.draw(null, datasetId, { system: null, size: 5, seed: 42, systems: ['v1', 'v2'] });
    expect(again.items.map((it) => it.response_id)).toEqual(ids);

    for (const email of ['li@example.com', 'wang@example.com']) {
      const expert = await loginAs(app, email, 'expert');
      const seen: number[] = [];
      let next = await expert.post(`/datasets/${datasetId}/label/next`, {}, { headers: { 'HX-Request': 'true' } });
      for (let k = 0; k < 5; k++) {
        const id = Number(/\/responses\/(\d+)\/label/.exec(next.text)![1]);
        seen.push(id);
        next = await expert.post(`/responses/${id}/label`, { [`c${criterion.id}`]: '1' }, { headers: { 'HX-Request': 'true' } });
        expect(next.status).toBe(200);
      }
      expect(seen).toEqual(ids);
    }
  });

  it('skipping a sampled item goes to the next one drawn, after the last one to the rest, and skipped items stay first', async () => {
    const { items } = app.ctx.estimates.draw(null, datasetId, { system: 'v2', size: 3, seed: 7, systems: ['v1', 'v2'] });
    const ids = items.map((it) => it.response_id);
    const expert = await loginAs(app, 'li@example.com', 'expert');
    const first = await expert.post(`/datasets/${datasetId}/label/next`, { after: String(ids[0]) }, { headers: { 'HX-Request': 'true' } });
    expect(first.text).toContain(`/responses/${ids[1]}/label`);
    const last = await expert.post(`/datasets/${datasetId}/label/next`, { after: String(ids[2]) }, { headers: { 'HX-Request': 'true' } });
    const rest = Number(/\/responses\/(\d+)\/label/.exec(last.text)![1]);
    expect(ids).not.toContain(rest);
    const again = await expert.post(`/datasets/${datasetId}/label/next`, {}, { headers: { 'HX-Request': 'true' } });
    expect(again.text).toContain(`/responses/${ids[0]}/label`);
    expect(items.every((it) => it.system === 'v2')).toBe(true);
  });

  it('few-shot examples are never sampled', () => {
    const metric = app.ctx.registry.get(datasetId, 'faithfulness')!;
    const step = metric.steps[0]!;
    const current = app.ctx.prompts.resolve(datasetId, metric, 'en')[step.step]!;
    const examples = [3, 4, 5].map((k) => app.ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id LIMIT 1 OFFSET ?').pluck().get(datasetId, k) as number);
    app.ctx.prompts.save(null, datasetId, 'faithfulness', step.step, { ...current, examples: examples.map((id) => ({ input: {}, output: {}, response_id: id })) }, '');
    const { items, draw } = app.ctx.estimates.draw(null, datasetId, { system: null, size: 100, seed: 1, systems: ['v1', 'v2'] });
    expect(draw.frame_size).toBe(57);
    expect(items).toHaveLength(57);
    expect(items.some((it) => examples.includes(it.response_id))).toBe(false);
  });

  it('the prompt lab never offers a sampled item as a few-shot example', async () => {
    const { items } = app.ctx.estimates.draw(null, datasetId, { system: null, size: 20, seed: 8, systems: ['v1', 'v2'] });
    await loginAs(app, 'li@example.com', 'expert');
    const li = expertUser('li@example.com');
    for (const id of app.ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ?').pluck().all(datasetId) as number[]) label(li, id, '1');
    const lab = await admin.get(`/datasets/${datasetId}/prompt-lab?criterion=${criterion.id}`);
    const offered = [...lab.text.matchAll(/<tr id="cand-(\d+)"/g)].map((m) => Number(m[1]));
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.filter((id) => items.some((it) => it.response_id === id))).toEqual([]);
  });

  it('an extension draws more from the same frame and queues them after the first draw', () => {
    const first = app.ctx.estimates.draw(null, datasetId, { system: null, size: 4, seed: 3, systems: ['v1', 'v2'] });
    const more = app.ctx.estimates.extend(null, first.sample.id, { size: 4, seed: 9 });
    const all = [...first.items, ...more.items].map((it) => it.response_id);
    expect(new Set(all).size).toBe(8);
    const ranks = all.map((id) => app.ctx.db.prepare('SELECT queue_rank FROM response WHERE id = ?').pluck().get(id) as number);
    expect(ranks.every((r) => r < 0)).toBe(true);
    expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
    expect(more.draw.frame_size).toBe(56);
  });

  it('the planner\'s one-click extension carries the sample as shown: a second click changes nothing', async () => {
    const { sample } = app.ctx.estimates.draw(null, datasetId, { system: null, size: 4, seed: 3, systems: ['v1', 'v2'] });
    await admin.get(`/datasets/${datasetId}/calibration`);
    const once = await admin.post(`/datasets/${datasetId}/estimate/samples/${sample.id}/extend`, { size: 6, items: 4, criterion: criterion.id, run: run().id });
    expect(once.status).toBe(303);
    const twice = await admin.post(`/datasets/${datasetId}/estimate/samples/${sample.id}/extend`, { size: 6, items: 4, criterion: criterion.id, run: run().id });
    expect(twice.status).toBe(422);
    expect(twice.text).toContain('has changed since this page was loaded');
    expect(app.ctx.estimates.sample(sample.id)!.n_items).toBe(10);
  });

  it('refuses bad sizes and seeds beside the field, changing nothing; viewers may not draw', async () => {
    const res = await admin.post(`/datasets/${datasetId}/estimate/samples`, { system: '', size: 0, seed: '' }, { headers: { 'HX-Request': 'true' } });
    expect(res.status).toBe(422);
    expect(res.text).toContain('est-size-error');
    const seed = await admin.post(`/datasets/${datasetId}/estimate/samples`, { system: '', size: 5, seed: '99999999999' });
    expect(seed.status).toBe(422);
    expect(seed.text).toContain('The seed must be a whole number');
    const system = await admin.post(`/datasets/${datasetId}/estimate/samples`, { system: 'nope', size: 5, seed: '' });
    expect(system.status).toBe(422);
    const viewer = await loginAs(app, 'v@example.com', 'viewer');
    await viewer.get(`/datasets/${datasetId}/calibration`);
    expect((await viewer.post(`/datasets/${datasetId}/estimate/samples`, { system: '', size: 5 })).status).toBe(403);
    expect(app.ctx.estimates.samples(datasetId)).toHaveLength(0);
  });
});

describe('the estimate', () => {
  it('uses the gold values of sampled items only', async () => {
    const { items } = app.ctx.estimates.draw(null, datasetId, { system: null, size: 20, seed: 5, systems: ['v1', 'v2'] });
    await loginAs(app, 'li@example.com', 'expert');
    const li = expertUser('li@example.com');
    for (const it of items) label(li, it.response_id, passes(indexOf(it.response_id)) ? '1' : '0');
    const before = estimateJson(estimate());
    expect(before).toMatchObject({ n_labelled: 20, n_unlabelled: 40, sample: { drawn: 20, completed: 20, missing: 0 } });
    // Hand-picked gold elsewhere: every unsampled item the judge gets wrong, labelled "fail".
    const sampled = new Set(items.map((it) => it.response_id));
    const others = app.ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ?').pluck().all(datasetId) as number[];
    for (const id of others) if (!sampled.has(id) && !passes(indexOf(id))) label(li, id, '0');
    expect(estimateJson(estimate())).toEqual(before);
    // A second expert disagrees on a sampled item: without adjudication it has no gold, and is disputed.
    await loginAs(app, 'wang@example.com', 'expert');
    const first = items[0]!.response_id;
    label(expertUser('wang@example.com'), first, passes(indexOf(first)) ? '0' : '1');
    expect(estimate().scope!.sample).toMatchObject({ drawn: 20, completed: 19, missing: 1, disputed: 1, pending: 0 });
  });

  it('prints exactly the keys of estimate --json and sample --json, and the corrected estimate corrects the lenient judge', async () => {
    const drawn = await goldset(['sample', '--dataset', 'HR', '--size', '60', '--seed', '11', '--json']);
    expect(drawn.code, drawn.stdout + drawn.stderr).toBe(0);
    const sample = JSON.parse(drawn.stdout);
    expect(Object.keys(sample)).toEqual(['sample_id', 'seed', 'items']);
    expect(sample.seed).toBe(11);
    expect(Object.keys(sample.items[0])).toEqual(['response_id', 'question', 'system']);
    await loginAs(app, 'li@example.com', 'expert');
    const li = expertUser('li@example.com');
    for (const it of (sample.items as { response_id: number }[]).slice(0, 40)) label(li, it.response_id, passes(indexOf(it.response_id)) ? '1' : '0');
    const res = await goldset(['estimate', '--dataset', 'HR', '--criterion', 'correct', '--run', 'ragas', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(Object.keys(out)).toEqual(['n_labelled', 'n_unlabelled', 'lambda', 'judge_only', 'gold_only', 'corrected', 'effective_labels', 'labels_needed', 'sample', 'bias', 'release']);
    expect(Object.keys(out.corrected)).toEqual(['estimate', 'ci95']);
    expect(Object.keys(out.labels_needed)).toEqual(['half_width', 'corrected', 'gold_only']);
    expect(Object.keys(out.sample)).toEqual(['drawn', 'completed', 'missing']);
    expect(out.sample).toEqual({ drawn: 60, completed: 40, missing: 20 });
    expect(Object.keys(out.bias[0])).toEqual(['factor', 'effect', 'p_value', 'p_adjusted']);
    expect(out.bias.map((b: { factor: string }) => b.factor)).toEqual(['answer_length', 'contexts', 'system=v2']);
    // Truth: 40 of 60 pass (2/3); the judge passes 50 of 60.
    expect(out.judge_only.estimate).toBeCloseTo(50 / 60, 10);
    expect(out.corrected.ci95[0]).toBeLessThanOrEqual(2 / 3);
    expect(out.corrected.ci95[1]).toBeGreaterThanOrEqual(2 / 3);
    expect(out.judge_only.ci95[0]).toBeGreaterThan(2 / 3);
    await expect(cmdEstimate(app.ctx, { dataset: 'HR', criterion: 'correct', run: 'ragas', system: 'nope' }, { json: false, print: () => {} }))
      .rejects.toThrow('no responses of system "nope"');
  });

  it('leads the calibration page with the three intervals, the sample\'s progress and the planner; a recorded calibration keeps it', async () => {
    const { items } = app.ctx.estimates.draw(null, datasetId, { system: null, size: 30, seed: 2, systems: ['v1', 'v2'] });
    await loginAs(app, 'li@example.com', 'expert');
    const li = expertUser('li@example.com');
    for (const it of items.slice(0, 27)) label(li, it.response_id, passes(indexOf(it.response_id)) ? '1' : '0');
    const page = await admin.get(`/datasets/${datasetId}/calibration?criterion=${criterion.id}&run=${run().id}&part=all`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="true-score"');
    expect(page.text.match(/class="mark mark-(judge|gold|corrected)"/g)!.length).toBe(9); // all systems, v1, v2
    expect(page.text).toContain('27 of 30 sampled items have a gold label and a judge score');
    expect(page.text).toContain('more than 5% of the sample missing');
    expect(page.text).toContain('Even labelling all 60 items would not give ±0.05 — experts alone would need');
    expect(page.text).toContain('Compare two systems');
    const overview = await admin.get(`/datasets/${datasetId}`);
    expect(overview.text).toContain('27 of 30 sampled items labelled');
    await admin.post(`/datasets/${datasetId}/calibration/record`, { criterion: criterion.id, run: run().id, part: 'all', threshold: 0.5 });
    const kept = app.ctx.db.prepare('SELECT estimate FROM calibration ORDER BY id DESC LIMIT 1').pluck().get() as string;
    expect(JSON.parse(kept)).toMatchObject({ sample_id: items[0] ? app.ctx.estimates.samples(datasetId)[0]!.id : null, n_labelled: 27, sample: { drawn: 30, completed: 27, missing: 3 } });
  });
});

describe('gate --min-true', () => {
  /** The gate as the CLI runs it, in this process (the CLI's parsing is covered by the estimate test above). */
  async function gate(minTrue: string): Promise<{ code: number; text: string; checks: Record<string, unknown>[] }> {
    let text = '';
    let data: Record<string, unknown> = {};
    const code = await cmdGate(app.ctx, { dataset: 'HR', run: 'ragas', 'min-true': [minTrue] }, { json: false, print: (t, d) => { text = t; data = d; } });
    return { code, text, checks: data.checks as Record<string, unknown>[] };
  }

  it('refuses without a sample or with an incomplete one, fails below the minimum, passes above it', async () => {
    expect(run().status).toBe('done');
    const none = await gate('correct=0.5');
    expect(none.code).toBe(1);
    expect(none.checks[0]).toMatchObject({ ok: false, refused: true });
    expect(none.text).toContain('REFUSED true correct: no estimation sample');
    const { items, sample } = app.ctx.estimates.draw(null, datasetId, { system: null, size: 60, seed: 4, systems: ['v1', 'v2'] });
    const incomplete = await gate('correct=0.5');
    expect(incomplete.checks[0]!.refused).toBe(true);
    expect(incomplete.text).toContain(`sample #${sample.id} is not complete: 60 of 60 items`);
    await loginAs(app, 'li@example.com', 'expert');
    const li = expertUser('li@example.com');
    for (const it of items) label(li, it.response_id, passes(indexOf(it.response_id)) ? '1' : '0');
    // Every item labelled: the corrected estimate is the experts' 2/3, 95% interval 0.547–0.786.
    const fail = await gate('correct=0.6');
    expect(fail.code).toBe(1);
    expect(fail.text).toContain('FAIL true correct: corrected 0.6667, 95% interval from 0.5474 < 0.6');
    const pass = await gate('correct=0.5');
    expect(pass.code).toBe(0);
    expect(pass.checks[0]).toMatchObject({ ok: true, refused: false, sample_id: sample.id });
    await expect(gate('correct')).rejects.toThrow('--min-true takes CRITERION=VALUE');
  });
});
