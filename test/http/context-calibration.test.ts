// Per-context calibration end to end: expert context labels, a context_precision run against the fake
// judge, the per-context report (page, by rank, item level), `report --json`, recording it, the CI gate
// reading its κ, and the calibrated-judge export carrying its figures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { loginAs, startTestApp, type Client, type TestApp } from '../helpers.ts';
import { cmdGate, cmdReport } from '../../server/calibration/cli.ts';
import type { RunRow } from '../../server/judge/run-queries.ts';
import { contextRows, fakeVerdict, GOLD, kindsOf, runContextPrecision, scriptJudge, seedContexts } from '../calibration/context-fixture.ts';

const N = 24;
let fake: FakeOpenAI;
let app: TestApp;
let admin: Client;
let datasetId: number;
let criterionId: number;
let run: RunRow;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  scriptJudge(fake);
  app = await startTestApp({ OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'k', GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' });
  admin = await loginAs(app, 'boss@example.com', 'admin');
  const expertId = app.ctx.users.queries.insert({ email: 'li@example.com', name: 'Li', role: 'expert', password_hash: null });
  const seeded = await seedContexts(app, { name: 'Leave', n: N, expertId });
  datasetId = seeded.datasetId;
  criterionId = seeded.criterion.id;
  run = await runContextPrecision(app, datasetId, 'cp-v1');
  expect(run.status).toBe('done');
}, 60_000);
afterAll(async () => { await app.close(); await fake.close(); });

/** What the fixture makes of every context: (rank, gold, judge), counted independently of the report. */
function expectedContexts() {
  return contextRows(N).flatMap((row, i) => kindsOf(i).map((kind, k) => ({ rank: k + 1, gold: GOLD[kind], judge: fakeVerdict(row.retrieved_contexts[k]!, '').verdict })));
}

function capture() {
  const out = { json: true, text: '', data: {} as Record<string, unknown>, print(text: string, data: Record<string, unknown>) { out.text = text; out.data = data; } };
  return out;
}

describe('per-context report', () => {
  it('shows the figures over contexts, resampled by response', async () => {
    const page = await admin.get(`/datasets/${datasetId}/calibration/contexts?criterion=${criterionId}&run=${run.id}&part=all`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`n = ${4 * N} contexts of ${N} responses`);
    expect(page.text).toContain('bootstrap over responses');
    const ctx = expectedContexts();
    const tp = ctx.filter((c) => c.gold && c.judge).length;
    const tn = ctx.filter((c) => !c.gold && !c.judge).length;
    const { report } = app.ctx.contextCalibration.report({ criterion: app.ctx.criteria.get(criterionId)!, run, part: 'all', holdoutSeed: app.ctx.datasets.get(datasetId)!.holdout_seed });
    expect(report.confusion).toEqual({ tp, tn, fp: ctx.filter((c) => !c.gold && c.judge).length, fn: ctx.filter((c) => c.gold && !c.judge).length });
    expect(report.accuracy).toBeCloseTo((tp + tn) / ctx.length, 12);
    expect(page.text).toContain((100 * report.accuracy!).toFixed(1) + '%');
    for (const chart of ['chart-confusion', 'chart-relevance-by-rank', 'chart-agreement-by-rank', 'chart-item-scatter']) expect(page.text).toContain(chart);
  });

  it('splits by rank as the fixture puts the contexts, and compares context precision per response', () => {
    const { report } = app.ctx.contextCalibration.report({ criterion: app.ctx.criteria.get(criterionId)!, run, part: 'all', holdoutSeed: app.ctx.datasets.get(datasetId)!.holdout_seed });
    const ctx = expectedContexts();
    expect(report.by_rank.map((r) => [r.rank, r.n, r.gold_rate, r.judge_rate])).toEqual([1, 2, 3, 4].map((rank) => {
      const at = ctx.filter((c) => c.rank === rank);
      return [rank, at.length, at.filter((c) => c.gold).length / at.length, at.filter((c) => c.judge).length / at.length];
    }));
    // Every response has gold on all four contexts, two of them relevant: all are compared.
    expect(report.item_level).toMatchObject({ n: N, no_relevant: 0, partial_gold: 0 });
    const scores = new Map((app.ctx.db.prepare('SELECT response_id, value FROM score WHERE run_id = ?').all(run.id) as { response_id: number; value: number }[]).map((s) => [s.response_id, s.value]));
    for (const p of report.item_level.points) expect(p.judge).toBe(scores.get(p.id));
  });

  it('prints the report --json keys of a per-context criterion and records the calibration', async () => {
    const out = capture();
    expect(await cmdReport(app.ctx, { dataset: 'Leave', criterion: 'relevant', metric: 'context_precision', run: 'cp-v1', part: 'all' }, out)).toBe(0);
    const data = out.data;
    expect(Object.keys(data)).toEqual(['n', 'excluded', 'pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse', 'threshold', 'accuracy', 'precision', 'recall', 'f1',
      'cohen_kappa', 'roc_auc', 'best_threshold', 'confusion', 'coverage', 'false_failure_rate', 'alignment', 'ci95', 'unit', 'ci_method', 'by_rank', 'item_level']);
    expect(data).toMatchObject({ n: 4 * N, unit: 'context', ci_method: 'bootstrap over responses' });
    expect(Object.keys((data.by_rank as object[])[0]!)).toEqual(['rank', 'n', 'kappa', 'accuracy', 'gold_rate', 'judge_rate']);
    expect(Object.keys(data.item_level as object)).toEqual(['n', 'no_relevant', 'partial_gold', 'pearson', 'spearman', 'mae', 'ci95']);
    expect(Object.keys((data.item_level as { ci95: object }).ci95)).toEqual(['pearson', 'spearman', 'mae']);
    const latest = app.ctx.calibration.latestFor(datasetId, 'context_precision')!;
    expect(latest).toMatchObject({ criterion: 'relevant', strength_name: 'cohen_kappa' });
    expect(latest.strength).toBeCloseTo(data.cohen_kappa as number, 12);
  });

  it('refuses a per-context criterion against a run of another metric', async () => {
    await expect(cmdReport(app.ctx, { dataset: 'Leave', criterion: 'relevant', metric: 'faithfulness', run: 'cp-v1' }, capture())).rejects.toThrow(/no run/);
    const other = app.ctx.runner.create(null, datasetId, { name: 'exact', metricKey: 'exact_match' });
    await app.ctx.runner.start(other.id);
    await expect(cmdReport(app.ctx, { dataset: 'Leave', criterion: 'relevant', metric: 'exact_match', run: 'exact' }, capture())).rejects.toThrow(/context_precision run/);
  });

  it('lets the CI gate read its κ', async () => {
    const kappa = app.ctx.calibration.latestFor(datasetId, 'context_precision')!.strength!;
    const passed = capture();
    expect(await cmdGate(app.ctx, { dataset: 'Leave', run: 'cp-v1', min: ['context_precision=0.1'], 'min-agreement': String(kappa - 0.01) }, passed)).toBe(0);
    const refused = capture();
    expect(await cmdGate(app.ctx, { dataset: 'Leave', run: 'cp-v1', min: ['context_precision=0.1'], 'min-agreement': String(kappa + 0.01) }, refused)).toBe(1);
    expect(refused.text).toContain(`calibration against "relevant" has cohen_kappa = ${kappa.toFixed(3)}`);
  });

  it('records from the page (experts only) and the calibrated-judge export carries the per-context figures', async () => {
    await admin.get(`/datasets/${datasetId}/calibration/contexts?criterion=${criterionId}&run=${run.id}&part=calibration`);
    const recorded = await admin.post(`/datasets/${datasetId}/calibration/contexts/record`, { criterion: criterionId, run: run.id, part: 'calibration' });
    expect(recorded.status).toBe(303);
    expect(app.ctx.calibration.latestFor(datasetId, 'context_precision')).toMatchObject({ part: 'calibration', strength_name: 'cohen_kappa' });
    const exported = JSON.parse((await admin.get(`/datasets/${datasetId}/metrics/context_precision/export`)).text) as { calibration: { figures: Record<string, unknown>; ci95: Record<string, unknown> } };
    expect(exported.calibration.figures).toMatchObject({ unit: 'context', ci_method: 'bootstrap over responses' });
    expect(exported.calibration.figures.by_rank).toBeInstanceOf(Array);
    expect(exported.calibration.figures.item_level).toMatchObject({ n: expect.any(Number) });
    expect(exported.calibration.ci95.cohen_kappa).toBeInstanceOf(Array);

    const viewer = await loginAs(app, 'view@example.com', 'viewer');
    expect((await viewer.get(`/datasets/${datasetId}/calibration/contexts`)).status).toBe(200);
    expect((await viewer.post(`/datasets/${datasetId}/calibration/contexts/record`, { criterion: criterionId, run: run.id, part: 'all' })).status).toBe(403);
  });

  it('sends a per-context criterion from the calibration page to its report, and links it', async () => {
    const moved = await admin.get(`/datasets/${datasetId}/calibration?criterion=${criterionId}&run=${run.id}`);
    expect(moved.status).toBe(302);
    expect(moved.headers.get('location')).toBe(`/datasets/${datasetId}/calibration/contexts?criterion=${criterionId}&run=${run.id}`);
    expect((await admin.get(`/datasets/${datasetId}/calibration`)).text).toContain(`href="/datasets/${datasetId}/calibration/contexts"`);
  });

  it('answers the htmx form with the report alone, and in Chinese', async () => {
    const fragment = await admin.get(`/datasets/${datasetId}/calibration/contexts?criterion=${criterionId}&run=${run.id}&part=all`, { 'HX-Request': 'true' });
    expect(fragment.text.startsWith('<div id="report"')).toBe(true);
    const zh = await loginAs(app, 'wang@example.com', 'expert', 'zh');
    const page = await zh.get(`/datasets/${datasetId}/calibration/contexts?part=all`);
    expect(page.text).toContain('逐条上下文校准');
    expect(page.text).toContain(`n = ${4 * N} 条上下文，来自 ${N} 个回答`);
  });

  it('says what it needs when the dataset has no per-context criterion', async () => {
    const empty = app.ctx.datasets.create(null, { name: 'Empty', description: '', language: 'en', domain: '' });
    const page = await admin.get(`/datasets/${empty.id}/calibration/contexts`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('needs a per-context criterion');
  });
});
