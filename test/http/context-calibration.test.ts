// Per-context calibration end to end: expert context labels, a context_precision run against the fake
// judge, the per-context report (page, by rank, item level), `report --json`, recording it, the CI gate
// reading its κ, and the calibrated-judge export carrying its figures.
import fs from 'node:fs';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { loginAs, startTestApp, type Client, type TestApp } from '../helpers.ts';
import { cmdGate, cmdReport } from '../../server/calibration/cli.ts';
import type { RunRow } from '../../server/judge/run-queries.ts';
import { contextRows, fakeVerdict, GOLD, kindsOf, runContextPrecision, scriptJudge, seedContexts } from '../calibration/context-fixture.ts';

const N = 24;
const RATIONALE = 'Only the current policy and its footnote on working days answer this.';
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
  const seeded = await seedContexts(app, { name: 'Leave', n: N, expertId, rationale: RATIONALE });
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
      'cohen_kappa', 'roc_auc', 'best_threshold', 'confusion', 'coverage', 'false_failure_rate', 'alignment', 'ci95', 'unit', 'ci_method', 'by_rank', 'item_level', 'release']);
    expect(data).toMatchObject({ n: 4 * N, unit: 'context', ci_method: 'bootstrap over responses' });
    expect(out.text).toContain(`n = ${4 * N} contexts of ${N} responses (intervals: bootstrap over responses)`);
    expect(out.text).toContain('by rank (5 = 5 and beyond)');
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
    const zip = await fetch(`${app.url}/datasets/${datasetId}/metrics/context_precision/export`, { headers: { Cookie: admin.cookie } });
    expect(zip.status).toBe(200);
    const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    const exported = JSON.parse(strFromU8(files['goldset-calibration.json']!)) as { calibration: { figures: Record<string, unknown>; ci95: Record<string, unknown> } };
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

describe('audit queue of contexts', () => {
  const queue = () => `/runs/${run.id}/review/contexts?criterion=${criterionId}`;
  /** The first queued context of a kind, as (response id, rank). */
  function firstOf(kind: 'outdated' | 'footnote') {
    const ids = app.ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(datasetId) as number[];
    const rows = contextRows(N);
    for (const [i, id] of ids.entries()) {
      const k = kindsOf(i).indexOf(kind);
      if (fakeVerdict(rows[i]!.retrieved_contexts[k]!, '').verdict !== GOLD[kind]) return { id, rank: k + 1 };
    }
    throw new Error('none');
  }

  it('lists context disagreements in both directions with the judge\'s reason beside the context', async () => {
    const ctx = expectedContexts();
    const fp = ctx.filter((c) => !c.gold && c.judge).length;
    const fn = ctx.filter((c) => c.gold && !c.judge).length;
    const page = await admin.get(queue());
    expect(page.status).toBe(200);
    expect(page.text).toContain(`Judge relevant, experts not (${fp})`);
    expect(page.text).toContain(`Experts relevant, judge not (${fn})`);
    expect(page.text).toContain('It states a number of leave days.');
    // The question and the context are the item's own texts, marked with the dataset's language.
    expect(page.text).toMatch(/<td lang="en"><a href="[^"]+">[^<]*<\/a><\/td><td class="sub" lang="en">/);
    const only = await admin.get(`${queue()}&direction=experts_relevant`);
    expect(only.text).toContain('It does not give the number of days.');
    expect(only.text).not.toContain('It states a number of leave days.');
    // Rank 1 first: a wrong verdict high in the list costs context precision the most.
    const ranks = [...page.text.matchAll(/<tr id="ctx-\d+-(\d+)"/g)].map((m) => Number(m[1]));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it('shows one context with the judge\'s reason, the experts\' rationale and the other contexts', async () => {
    const { id, rank } = firstOf('outdated');
    const page = await admin.get(`/runs/${run.id}/review/contexts/${id}/${rank}?criterion=${criterionId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`Answer #${id}, context ${rank}`);
    expect(page.text).toContain('It states a number of leave days.');
    expect(page.text).toContain(RATIONALE);
    expect(page.text).toContain('All retrieved contexts');
    expect((await admin.get(`/runs/${run.id}/review/contexts/${id}/9?criterion=${criterionId}`)).status).toBe(404);
  });

  it('records "expert right", refuses a stale form, and corrects the gold value through an audited adjudication', async () => {
    const { id, rank } = firstOf('footnote');
    const item = `/runs/${run.id}/review/contexts/${id}/${rank}?criterion=${criterionId}`;
    await admin.get(item);
    expect((await admin.post(item, { verdict: 'expert_right', note: 'The footnote matters.', verdict_version: 0, gold_version: 0 })).status).toBe(303);
    // A second reviewer who read the page before that verdict is told, and nothing changes.
    const stale = await admin.post(item, { verdict: 'ambiguous', note: '', verdict_version: 0, gold_version: 0 });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('Someone recorded a verdict');
    const criterion = app.ctx.criteria.get(criterionId)!;
    expect(app.ctx.db.prepare('SELECT verdict, version FROM context_verdict WHERE response_id = ? AND context_index = ?').get(id, rank - 1)).toEqual({ verdict: 'expert_right', version: 1 });

    const before = app.ctx.contextCalibration.report({ criterion, run, part: 'all', holdoutSeed: app.ctx.datasets.get(datasetId)!.holdout_seed }).report;
    const missing = await admin.post(item, { verdict: 'judge_right', gold: '0', note: '', verdict_version: 1, gold_version: 0 });
    expect(missing.status).toBe(422);
    const corrected = await admin.post(item, { verdict: 'judge_right', gold: '0', note: 'On reflection the footnote does not say how many days.', verdict_version: 1, gold_version: 0 });
    expect(corrected.status).toBe(303);
    expect(app.ctx.labels.gold(criterion, id, rank - 1)).toBe('0');
    const audit = app.ctx.db.prepare("SELECT action, after FROM audit_event WHERE entity_type = 'adjudication' ORDER BY id DESC LIMIT 1").get() as { action: string; after: string };
    expect(audit.action).toBe('create');
    expect(JSON.parse(audit.after)).toMatchObject({ response: id, context_index: rank - 1, value: '0' });
    expect(app.ctx.db.prepare("SELECT count(*) FROM audit_event WHERE action = 'context_verdict'").pluck().get()).toBe(2);
    // The report follows the corrected gold: one fewer disagreement.
    const after = app.ctx.contextCalibration.report({ criterion, run, part: 'all', holdoutSeed: app.ctx.datasets.get(datasetId)!.holdout_seed }).report;
    expect(after.confusion.fn).toBe(before.confusion.fn - 1);
    expect(after.confusion.tn).toBe(before.confusion.tn + 1);
    // It stays in the queue under its verdict, marked as agreeing now.
    const judged = await admin.get(`${queue()}&verdict=judge_right`);
    expect(judged.text).toContain(`id="ctx-${id}-${rank}"`);
    expect(judged.text).toContain('agrees now');
  });

  it('lets only adjudicators correct gold, viewers only read, and knows only context_precision runs', async () => {
    const { id, rank } = firstOf('outdated');
    const item = `/runs/${run.id}/review/contexts/${id}/${rank}?criterion=${criterionId}`;
    const expert = await loginAs(app, 'zhou@example.com', 'expert');
    await expert.get(item);
    expect((await expert.post(item, { verdict: 'judge_right', gold: '1', note: 'x', verdict_version: 0, gold_version: 0 })).status).toBe(403);
    const viewer = await loginAs(app, 'view2@example.com', 'viewer');
    expect((await viewer.get(item)).status).toBe(200);
    expect((await viewer.post(item, { verdict: 'expert_right', verdict_version: 0 })).status).toBe(403);
    const exact = app.ctx.runner.queries.byName(datasetId, 'exact', 'exact_match')!;
    expect((await admin.get(`/runs/${exact.id}/review/contexts`)).status).toBe(404);
  });
  it('shows a labeller who may still label the items neither queued contexts nor the experts\' labels (the permission module)', async () => {
    const { id, rank } = firstOf('outdated');
    const blind = await loginAs(app, 'blind@example.com', 'expert');
    const blindId = app.ctx.users.queries.byEmail('blind@example.com')!.id;
    const adminId = app.ctx.users.queries.byEmail('boss@example.com')!.id;
    app.ctx.labels.setAssignment(adminId, datasetId, app.ctx.datasets.get(datasetId)!.version, 1, [{ userId: blindId, label: true, adjudicate: false }]);
    const listed = await blind.get(queue());
    expect(listed.status).toBe(200);
    expect(listed.text).not.toMatch(/<tr id="ctx-\d+-\d+"/);
    const item = await blind.get(`/runs/${run.id}/review/contexts/${id}/${rank}?criterion=${criterionId}`);
    expect(item.status).toBe(200);
    expect(item.text).not.toContain(RATIONALE);
    // The admin, who adjudicates, still sees both.
    expect((await admin.get(queue())).text).toMatch(/<tr id="ctx-\d+-\d+"/);
  });
});

describe('an imported Ragas run of context precision', () => {
  it('has no verdicts per context (every context "no score") but its scores compare per answer', async () => {
    const expertId = app.ctx.users.queries.byEmail('li@example.com')!.id;
    const datasetId2 = app.ctx.datasets.create(null, { name: 'Imported', description: '', language: 'en', domain: '' }).id;
    const rows = contextRows(N).map((r, i) => ({ ...r, context_precision: (i % 5) / 4 }));
    const file = `${app.dir}/imported.jsonl`;
    fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n'));
    const result = await app.ctx.imports.importFile(null, datasetId2, file, { format: 'jsonl', annotatorId: expertId, runName: 'ragas' });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    const imported = app.ctx.runner.queries.byName(datasetId2, 'ragas', 'context_precision')!;
    const { report } = app.ctx.contextCalibration.report({ criterion: app.ctx.criteria.queries.byName(datasetId2, 'relevant')!, run: imported, part: 'all',
      holdoutSeed: app.ctx.datasets.get(datasetId2)!.holdout_seed, resamples: 100 });
    expect(report).toMatchObject({ n: 0, excluded: { no_score: 4 * N } });
    expect(report.item_level.n).toBe(N);
    expect(report.item_level.points.map((p) => p.judge)).toEqual(rows.map((r) => r.context_precision));
    const page = await admin.get(`/datasets/${datasetId2}/calibration/contexts?part=all`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('No context has both a gold value and a judge verdict yet.');
  });
});
