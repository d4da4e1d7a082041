/**
 * Calibration benchmark: the calibration report with 95 % bootstrap intervals (1,000 resamples)
 * over 10,000 labelled items (`ctx.calibration.report`), compared in the same run with the time
 * to read those (score, gold) pairs from the database (`ctx.calibration.pairs`), which the report
 * itself starts with. Target: the report under 2 s, and within 10× of the read. Every timed call
 * starts with nothing kept (the dataset's data version is moved before it, as a label change
 * does); the kept report (the same view again, from the derived-results cache) is timed beside it.
 *
 *   npx tsx bench/calibration.ts [--items 10000] [--repeat 5] [--resamples 1000] [--profile]
 *
 * Four variants on the same items, each measured: a binary criterion against a 0..1 judge score on
 * a 0.01 grid (the common case: many ties), the same criterion against full-precision scores (no
 * ties, e.g. an embedding similarity), an ordinal 1–5 criterion against the 0.01-grid score
 * (Kendall's τ-b with five gold values), and the ordinal criterion against a run whose scores are
 * the integers 1–5 (adds quadratic-weighted κ). The headline is the worst variant.
 * After the timed runs, a breakdown times the report's parts on the pairs already read (point
 * figures, the index draw, then each resampled statistic alone on pre-drawn resamples; CPU time);
 * --profile adds a V8 CPU profile of the report calls (in-process, node:inspector) with the top
 * functions by self time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector';
import type { DB } from '../server/db/connection.ts';
import type { AppContext } from '../server/app-context.ts';
import type { Criterion } from '../server/criteria/queries.ts';
import type { RunRow } from '../server/judge/run-queries.ts';
import type { CalibrationInput } from '../server/calibration/service.ts';
import { calibrationReport, prepareCalibration, scoreScaleOf, weightedKappaOn, type CalibrationReport } from '../server/calibration/report.ts';
import { choices } from '../server/criteria/values.ts';
import {
  confusionMetricOn, createRng, kappaFromConfusion, kendallOn, maeOn, pearsonOn, rmseOn, rocAucOn, spearmanOn, type IndexStat,
} from '../server/stats/index.ts';
import {
  failOnChecks, flag, intArg, isMain, median, ms, openBenchApp, PASSWORD, printChecks, prng, ROOT, runInfo, table, tempDir, timed, writeResult,
} from './common.ts';

const TARGET_S = 2;
const TARGET_RATIO = 10;

const ITEMS = intArg('items', 10_000);
const REPEAT = intArg('repeat', 5);
const RESAMPLES = intArg('resamples', 1000);
const PROFILE = flag('profile');

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

// ---------------------------------------------------------------------------------------------
// Setup: ITEMS samples + responses, one submitted annotation per response carrying a binary and an
// ordinal label, and two imported runs scoring every response. Nothing here is timed.

export interface Setup {
  db: DB;
  ctx: AppContext;
  holdoutSeed: number;
  binary: Criterion;
  ordinal: Criterion;
  unitRun: RunRow;
  exactRun: RunRow;
  pointsRun: RunRow;
}

export async function setup(file: string): Promise<Setup> {
  const { db, ctx } = openBenchApp(file);
  const admin = await ctx.users.createFirstAdmin({ email: 'admin@bench.test', name: 'Admin', password: PASSWORD });
  const expert = await ctx.users.createUser(admin.id, { email: 'expert@bench.test', name: 'Expert', role: 'expert', password: PASSWORD });
  const dataset = ctx.datasets.create(admin.id, { name: 'calibration bench', description: 'bench/calibration.ts', language: 'en', domain: 'support' });
  const binary = ctx.criteria.create(admin.id, dataset.id, {
    name: 'correct', kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null,
    guidelines: 'Is the answer correct and supported by the retrieved contexts?',
  });
  const ordinal = ctx.criteria.create(admin.id, dataset.id, {
    name: 'quality', kind: 'ordinal', target: 'response', options: [], scale_min: 1, scale_max: 5,
    guidelines: 'Overall quality of the answer, 1 (useless) to 5 (perfect).',
  });

  const insertSample = db.prepare('INSERT INTO sample (dataset_id, question_key, question, ground_truth) VALUES (?, ?, ?, ?)');
  const insertResponse = db.prepare(`INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, content_hash, n_submitted)
    VALUES (?, ?, ?, ?, ?, ?, 1)`);
  const insertAnnotation = db.prepare(`INSERT INTO annotation (response_id, dataset_id, annotator_id, state, submitted_at)
    VALUES (?, ?, ?, 'submitted', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);
  const insertLabel = db.prepare('INSERT INTO label (annotation_id, criterion_id, context_index, value) VALUES (?, ?, -1, ?)');
  const insertRun = db.prepare(`INSERT INTO run (dataset_id, name, metric_key, source, status, n_total, created_by, started_at, finished_at)
    VALUES (?, ?, ?, 'imported', 'done', ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);
  const insertScore = db.prepare("INSERT INTO score (run_id, response_id, status, value) VALUES (?, ?, 'ok', ?)");

  const rand = prng(20240613);
  const noise = (): number => (rand() + rand() + rand() - 1.5) / 1.5; // roughly normal, in [-1, 1]
  db.transaction(() => {
    const unitRunId = Number(insertRun.run(dataset.id, 'ragas import', 'faithfulness', ITEMS, admin.id).lastInsertRowid);
    const exactRunId = Number(insertRun.run(dataset.id, 'embedding judge', 'answer_similarity', ITEMS, admin.id).lastInsertRowid);
    const pointsRunId = Number(insertRun.run(dataset.id, 'rubric judge', 'quality_1_5', ITEMS, admin.id).lastInsertRowid);
    for (let i = 0; i < ITEMS; i++) {
      const question = `Question ${i + 1}: how long is the warranty of product ${i % 97}?`;
      const sampleId = Number(insertSample.run(dataset.id, question.toLowerCase(), question, 'Two years.').lastInsertRowid);
      const system = i % 2 ? 'rag-v2' : 'rag-v1';
      const responseId = Number(insertResponse.run(sampleId, dataset.id, system, `Answer ${i + 1}: the warranty lasts two years.`,
        '["Products carry a two-year warranty."]', `bench-${i}`).lastInsertRowid);
      // A latent quality q drives both the experts' gold values and the judge's scores.
      const q = rand();
      const pass = q + 0.25 * noise() > 0.5 ? '1' : '0';
      const grade = String(clamp(Math.round(1 + 4 * (q + 0.15 * noise())), 1, 5));
      const annotationId = Number(insertAnnotation.run(responseId, dataset.id, expert.id).lastInsertRowid);
      insertLabel.run(annotationId, binary.id, pass);
      insertLabel.run(annotationId, ordinal.id, grade);
      // 0..1 score rounded to 2 decimals (at most 101 distinct values: many ties, and exact 0s and 1s from the clamp).
      const score = clamp(q + 0.2 * noise(), 0, 1);
      insertScore.run(unitRunId, responseId, Math.round(100 * score) / 100);
      insertScore.run(exactRunId, responseId, 0.001 + 0.998 * score + 1e-9 * i); // full precision: (nearly) every score distinct
      insertScore.run(pointsRunId, responseId, clamp(Math.round(1 + 4 * (q + 0.2 * noise())), 1, 5));
    }
  })();
  db.prepare('UPDATE dataset SET slots_filled = ? WHERE id = ?').run(ITEMS, dataset.id);
  // No ANALYZE: the app never runs it, so the planner works without statistics, as in production.
  db.pragma('wal_checkpoint(TRUNCATE)');
  const runs = db.prepare<[number], RunRow>('SELECT * FROM run WHERE dataset_id = ? ORDER BY id').all(dataset.id);
  return { db, ctx, holdoutSeed: dataset.holdout_seed, binary, ordinal, unitRun: runs[0]!, exactRun: runs[1]!, pointsRun: runs[2]! };
}

// ---------------------------------------------------------------------------------------------
// Breakdown: the report's parts, timed on pairs already read, in CPU time (steadier than wall time
// on a busy machine). It mirrors calibrationReport's statistics; the timed runs above always call
// the service itself.

interface Part { name: string; ms: number }

/** Median CPU ms of 3 calls after one warm-up call. */
function cpuMs(fn: () => unknown): number {
  fn();
  return median([0, 1, 2].map(() => timed(fn).cpuMs));
}

const PREDRAWN = 50;

function breakdown(input: CalibrationInput): { parts: Part[]; perStat: Part[]; cells: number } {
  const pairs = S.ctx.calibration.pairs(input);
  const kind = input.criterion.kind;
  const categories = kind === 'ordinal' ? choices(input.criterion).map((o) => o.value) : undefined;
  const base = { kind, pairs, ...(categories ? { categories } : {}) };
  const parts: Part[] = [
    { name: 'prepareCalibration (exclusions, gold parsing)', ms: cpuMs(() => prepareCalibration(base)) },
    { name: 'calibrationReport, resamples = 1 (point figures)', ms: cpuMs(() => calibrationReport({ ...base, resamples: 1 })) },
    { name: `calibrationReport, resamples = ${RESAMPLES}`, ms: cpuMs(() => calibrationReport({ ...base, resamples: RESAMPLES })) },
  ];

  const prep = prepareCalibration(base);
  const n = prep.items.length;
  const x = Float64Array.from(prep.items, (it) => it.score!);
  const g = Float64Array.from(prep.items, (it) => it.goldValue!);
  // The draw as bootstrapIntervals does it: n indices per resample from the seeded generator.
  parts.push({ name: `bootstrap: drawing ${n} indices × ${RESAMPLES}`, ms: cpuMs(() => {
    const rng = createRng(1);
    const idx = new Uint32Array(n);
    for (let r = 0; r < RESAMPLES; r++) for (let i = 0; i < n; i++) idx[i] = Math.floor(rng() * n);
  }) });

  // Each resampled statistic alone, evaluated RESAMPLES times on PREDRAWN resamples drawn beforehand
  // (no generator in the timing; the statistics neither keep nor change the indices).
  const rng = createRng(2);
  const draws = Array.from({ length: PREDRAWN }, () => {
    const idx = new Uint32Array(n);
    for (let i = 0; i < n; i++) idx[i] = Math.floor(rng() * n);
    return idx;
  });
  const stats: [string, IndexStat][] = [
    ['pearson', pearsonOn(x, g)],
    ['spearman', spearmanOn(x, g)],
    ['kendall_tau_b', kendallOn(x, g)],
  ];
  let errorGold: Float64Array | null = g;
  if (kind === 'ordinal' && prep.scale) {
    const scale = prep.scale;
    const on = scoreScaleOf(x, scale);
    if (on === 'unit') errorGold = g.map((v) => (v - scale.min) / (scale.max - scale.min));
    if (on === 'criterion' && x.every(Number.isInteger)) {
      stats.push(['quadratic_kappa', weightedKappaOn(Uint32Array.from(g, (v) => v - scale.min), Uint32Array.from(x, (v) => v - scale.min),
        scale.max - scale.min + 1, 'quadratic')]);
    }
  }
  stats.push(['mae', maeOn(x, errorGold)], ['rmse', rmseOn(x, errorGold)]);
  if (kind === 'binary') {
    const pass = Array.from(g, (v) => v === 1);
    stats.push(['accuracy, f1, κ, alignment (one confusion count)', confusionMetricOn(x, pass, input.threshold ?? 0.5, kappaFromConfusion)]);
    stats.push(['roc_auc', rocAucOn(x, pass)]);
  }
  const perStat = stats.map(([name, stat]): Part => ({
    name, ms: cpuMs(() => { for (let r = 0; r < RESAMPLES; r++) stat(draws[r % PREDRAWN]!); }),
  }));
  // Distinct (score, gold) pairs: what a resample reduces to (see the README's findings).
  const cells = new Set(prep.items.map((it) => `${it.score}|${it.goldValue}`)).size;
  return { parts, perStat, cells };
}

// ---------------------------------------------------------------------------------------------
// CPU profile of the report calls (--profile), in-process through the inspector protocol

interface ProfileNode { id: number; callFrame: { functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number }; hitCount?: number }

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))));
}

/**
 * Top functions by self time over `times` × every variant's report call. tsx's transformed code
 * gives anonymous closures no useful line, so an anonymous function is named after the nearest
 * `function NAME(` before it in the executed source (the factory that returned it, e.g. kendallOn).
 */
async function profileReports(inputs: CalibrationInput[], times: number): Promise<[string, number][]> {
  const session = new Session();
  session.connect();
  try {
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.setSamplingInterval', { interval: 100 });
    await post(session, 'Profiler.start');
    for (let i = 0; i < times; i++) for (const input of inputs) S.ctx.calibration.report({ ...input, resamples: RESAMPLES });
    const { profile } = await post<{ profile: { nodes: ProfileNode[]; samples: number[] } }>(session, 'Profiler.stop');
    await post(session, 'Debugger.enable');
    const sources = new Map<string, string[]>();
    const sourceLines = async (id: string): Promise<string[]> => {
      if (!sources.has(id)) {
        const r = await post<{ scriptSource: string }>(session, 'Debugger.getScriptSource', { scriptId: id }).catch(() => ({ scriptSource: '' }));
        sources.set(id, r.scriptSource.split('\n'));
      }
      return sources.get(id)!;
    };
    const self = new Map<string, number>();
    for (const nd of profile.nodes) {
      const hits = nd.hitCount ?? 0;
      if (!hits) continue;
      const f = nd.callFrame;
      const url = f.url.replace(/^file:\/\//, '');
      let name = f.functionName;
      if (!name && url) {
        const lines = await sourceLines(f.scriptId);
        const before = [...lines.slice(0, f.lineNumber), (lines[f.lineNumber] ?? '').slice(0, f.columnNumber)].join('\n');
        const all = [...before.matchAll(/function\s+([\w$]+)\s*\(/g)];
        name = all.length ? `(closure in ${all[all.length - 1]![1]})` : '(anonymous)';
      }
      const key = `${name || '(anonymous)'}  ${url ? path.relative(ROOT, url) : '(native/V8)'}`;
      self.set(key, (self.get(key) ?? 0) + hits);
    }
    await post(session, 'Debugger.disable');
    const total = profile.samples.length;
    return [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([k, v]) => [k, (100 * v) / total]);
  } finally {
    session.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// Main

let S: Setup;

interface Variant { name: string; what: string; input: CalibrationInput }

interface VariantResult {
  name: string; what: string; n: number;
  readMs: number; reportMs: number; ratio: number; readCpuMs: number; reportCpuMs: number; cpuRatio: number;
  /** The report viewed again with nothing changed: read from the derived-results cache. */
  keptMs: number;
  firstReadMs: number; firstReportMs: number;
  runs: { readMs: number; reportMs: number; keptMs: number }[];
  figures: Record<string, number | null>;
  ci95: CalibrationReport['ci95'];
}

function figuresOf(r: CalibrationReport): Record<string, number | null> {
  const f: Record<string, number | null> = { pearson: r.pearson, spearman: r.spearman, kendall_tau_b: r.kendall_tau_b, mae: r.mae, rmse: r.rmse };
  if (r.kind === 'binary') Object.assign(f, { accuracy: r.accuracy, cohen_kappa: r.cohen_kappa, roc_auc: r.roc_auc });
  if (r.kind === 'ordinal') f.quadratic_kappa = r.quadratic_kappa;
  return f;
}

/**
 * Moves the dataset's data version, as any label change does: every kept result (gold values,
 * pairs, reports) is then stale and the next call computes from the database. Not timed.
 */
function invalidate(): void {
  S.db.prepare('UPDATE dataset SET data_version = data_version + 1 WHERE id = ?').run(S.binary.dataset_id);
}

function measure(v: Variant): VariantResult {
  const { ctx } = S;
  // Both sides start from nothing kept: the read and the report compute from the database.
  const read = () => ctx.calibration.pairs(v.input);
  const report = () => ctx.calibration.report({ ...v.input, resamples: RESAMPLES });
  // The first call of each (cold: statement caches, JIT) is kept apart from the medians.
  invalidate();
  const firstRead = timed(read);
  invalidate();
  const firstReport = timed(report);
  const runs: { readMs: number; reportMs: number; readCpuMs: number; reportCpuMs: number; keptMs: number }[] = [];
  let last: ReturnType<typeof report> | null = null;
  for (let i = 0; i < REPEAT; i++) {
    // Alternate which goes first, so a slow phase of the machine hits both alike.
    let a: ReturnType<typeof timed<ReturnType<typeof read>>>;
    let b: ReturnType<typeof timed<ReturnType<typeof report>>>;
    if (i % 2 === 0) {
      invalidate();
      a = timed(read);
      invalidate();
      b = timed(report);
    } else {
      invalidate();
      b = timed(report);
      invalidate();
      a = timed(read);
    }
    // The view after it with nothing changed in between: the kept report (what the next visitor gets).
    invalidate();
    const fresh = report();
    const kept = timed(report);
    if (kept.value !== fresh) throw new Error(`${v.name}: the report was not kept`);
    if (a.value.length !== ITEMS) throw new Error(`${v.name}: pairs returned ${a.value.length} rows, expected ${ITEMS}`);
    last = b.value;
    runs.push({ readMs: a.ms, reportMs: b.ms, readCpuMs: a.cpuMs, reportCpuMs: b.cpuMs, keptMs: kept.ms });
  }
  const readMs = median(runs.map((r) => r.readMs));
  const reportMs = median(runs.map((r) => r.reportMs));
  const rep = last!.report;
  return {
    name: v.name, what: v.what, n: rep.n,
    readMs, reportMs, ratio: median(runs.map((r) => r.reportMs / r.readMs)),
    readCpuMs: median(runs.map((r) => r.readCpuMs)), reportCpuMs: median(runs.map((r) => r.reportCpuMs)),
    cpuRatio: median(runs.map((r) => r.reportCpuMs / Math.max(r.readCpuMs, 0.001))),
    keptMs: median(runs.map((r) => r.keptMs)),
    firstReadMs: firstRead.ms, firstReportMs: firstReport.ms,
    runs: runs.map((r) => ({ readMs: Number(r.readMs.toFixed(2)), reportMs: Number(r.reportMs.toFixed(2)), keptMs: Number(r.keptMs.toFixed(3)) })),
    figures: figuresOf(rep), ci95: rep.ci95,
  };
}

async function main(): Promise<void> {
  const dir = tempDir('goldset-bench-calibration-');
  const dbFile = path.join(dir, 'calibration.db');
  try {
    console.log(`calibration bench: ${ITEMS} labelled items, ${RESAMPLES} resamples, ${REPEAT} repetition(s), node ${process.version}, ${os.cpus().length} CPU(s)`);
    const t = process.hrtime.bigint();
    S = await setup(dbFile);
    console.log(`  setup: ${ITEMS} samples, responses, annotations (2 labels each) and 3 × ${ITEMS} scores in ${(ms(t) / 1000).toFixed(1)} s ` +
      `(${(fs.statSync(dbFile).size / 1024 / 1024).toFixed(1)} MB)`);

    const common = { part: 'all' as const, holdoutSeed: S.holdoutSeed };
    const variants: Variant[] = [
      { name: 'binary', what: 'binary gold vs 0..1 score (0.01 grid)', input: { criterion: S.binary, run: S.unitRun, ...common } },
      { name: 'binary-exact', what: 'binary gold vs 0..1 score (full precision, no ties)', input: { criterion: S.binary, run: S.exactRun, ...common } },
      { name: 'ordinal', what: 'ordinal 1–5 gold vs 0..1 score (0.01 grid)', input: { criterion: S.ordinal, run: S.unitRun, ...common } },
      { name: 'ordinal-points', what: 'ordinal 1–5 gold vs 1–5 score (+ quadratic κ)', input: { criterion: S.ordinal, run: S.pointsRun, ...common } },
    ];

    const results: VariantResult[] = [];
    for (const v of variants) {
      const r = measure(v);
      results.push(r);
      console.log(`  ${v.name}: read ${r.readMs.toFixed(1)} ms, report ${r.reportMs.toFixed(0)} ms, report/read ${r.ratio.toFixed(1)}× ` +
        `(runs: ${r.runs.map((x) => `${x.readMs.toFixed(1)}/${x.reportMs.toFixed(0)}`).join(', ')} ms)`);
    }

    // ---- Checks: the report is the one asked for, on every item, with intervals
    const checks: [string, boolean][] = [];
    for (const r of results) {
      checks.push([`${r.name}: n = ${ITEMS} (every item counted)`, r.n === ITEMS]);
      checks.push([`${r.name}: τ-b and Spearman positive (scores follow the gold)`, (r.figures.kendall_tau_b ?? 0) > 0.3 && (r.figures.spearman ?? 0) > 0.3]);
      // A binary criterion's intervals are on its headline figures; other kinds on the correlations and errors.
      const want = r.name.startsWith('binary') ? ['accuracy', 'f1', 'cohen_kappa', 'roc_auc', 'alignment']
        : ['pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse', ...(r.name === 'ordinal-points' ? ['quadratic_kappa'] : [])];
      checks.push([`${r.name}: 95 % interval for ${want.join(', ')}`, want.every((k) => {
        const ci = r.ci95[k];
        return Array.isArray(ci) && ci[0] <= ci[1] && r.figures[k] !== null;
      })]);
    }
    const ok = checks.every(([, v]) => v);

    // ---- Where the time goes
    const breakdowns = variants.map((v) => ({ name: v.name, ...breakdown(v.input) }));
    let profile: [string, number][] | null = null;
    if (PROFILE) profile = await profileReports(variants.map((v) => v.input), REPEAT);

    // ---- Report
    const worst = results.reduce((a, b) => (b.reportMs > a.reportMs ? b : a));
    const worstRatio = results.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    const rows: [string, string][] = [
      ['labelled items (all scored, part "all")', `${ITEMS}; ${RESAMPLES} resamples; ${REPEAT} run(s) per side, median shown`],
    ];
    for (const r of results) {
      rows.push([`${r.name}: ${r.what}`, '']);
      rows.push(['  read: ctx.calibration.pairs', `${r.readMs.toFixed(1)} ms  (CPU ${r.readCpuMs.toFixed(1)} ms; first call ${r.firstReadMs.toFixed(1)} ms)`]);
      rows.push(['  report: ctx.calibration.report', `${(r.reportMs / 1000).toFixed(3)} s  (CPU ${(r.reportCpuMs / 1000).toFixed(3)} s; first call ${(r.firstReportMs / 1000).toFixed(3)} s; target < ${TARGET_S} s)`]);
      rows.push(['  report / read', `${r.ratio.toFixed(1)}×  (target ≤ ${TARGET_RATIO}×; in CPU time ${r.cpuRatio.toFixed(1)}×)`]);
      rows.push(['  kept report (viewed again, nothing changed)', `${r.keptMs.toFixed(3)} ms  (the derived-results cache; not the headline)`]);
      rows.push(['  figures', Object.entries(r.figures).map(([k, v]) => `${k} ${v === null ? '—' : v.toFixed(3)}`).join(', ')]);
    }
    console.log('\n' + table(rows));

    console.log(`\nwhere the report time goes (on pairs already read; CPU ms, median of 3; each statistic alone over ${RESAMPLES} resamples):`);
    for (const b of breakdowns) {
      console.log(`  ${b.name} (${b.cells} distinct (score, gold) pairs):`);
      console.log(table([
        ...b.parts.map((p): [string, string] => [`  ${p.name}`, `${p.ms.toFixed(1)} ms`]),
        ...b.perStat.map((p): [string, string] => [`  bootstrap: ${p.name}`, `${p.ms.toFixed(1)} ms`]),
      ]));
    }
    if (profile) {
      console.log(`\nCPU profile of ${REPEAT} × ${variants.length} report calls, top functions by self time:`);
      console.log(table(profile.map(([k, v]) => [`${v.toFixed(1)}%`.padStart(6), k])));
    }

    printChecks(checks);

    const within = worst.reportMs < TARGET_S * 1000 && worstRatio.ratio <= TARGET_RATIO;
    const summary = `calibration: report = ${(worst.reportMs / 1000).toFixed(2)} s (target < ${TARGET_S} s), ` +
      `report/read = ${worstRatio.ratio.toFixed(1)}× (target ≤ ${TARGET_RATIO}×), computed from the database on every repetition; ` +
      `kept report ${Math.max(...results.map((r) => r.keptMs)).toFixed(2)} ms`;
    console.log(`\n${summary} ${within ? 'within target' : 'MISSES TARGET'}  [worst variants: time ${worst.name}, ratio ${worstRatio.name}; ` +
      `read ${worstRatio.readMs.toFixed(1)} ms]`);

    const round = (v: number, d = 2) => Number(v.toFixed(d));
    const result = {
      bench: 'calibration',
      summary,
      withinTarget: within,
      checksPassed: ok,
      items: ITEMS, resamples: RESAMPLES, repeat: REPEAT,
      targetSeconds: TARGET_S, targetRatio: TARGET_RATIO,
      reportSeconds: round(worst.reportMs / 1000, 3), ratio: round(worstRatio.ratio, 1),
      variants: results.map((r) => ({
        name: r.name, what: r.what, n: r.n,
        readMs: round(r.readMs), reportMs: round(r.reportMs), ratio: round(r.ratio, 1),
        readCpuMs: round(r.readCpuMs), reportCpuMs: round(r.reportCpuMs), cpuRatio: round(r.cpuRatio, 1),
        keptMs: round(r.keptMs, 3), firstReadMs: round(r.firstReadMs), firstReportMs: round(r.firstReportMs),
        runs: r.runs, figures: Object.fromEntries(Object.entries(r.figures).map(([k, v]) => [k, v === null ? null : round(v, 4)])), ci95: r.ci95,
      })),
      breakdown: Object.fromEntries(breakdowns.map((b) => [b.name, {
        distinctPairs: b.cells,
        cpuMs: Object.fromEntries(b.parts.map((p) => [p.name, round(p.ms)])),
        bootstrapPerStatCpuMs: Object.fromEntries(b.perStat.map((p) => [p.name, round(p.ms)])),
      }])),
      profile: profile && Object.fromEntries(profile.map(([k, v]) => [k, round(v, 1)])),
      checks: Object.fromEntries(checks),
      ...runInfo(),
    };
    writeResult('calibration.json', result);
    failOnChecks('calibration', ok);
    S.db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await main();
