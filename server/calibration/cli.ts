// `goldset report` (judge vs experts, as one JSON object other programs read) and `goldset gate` (CI).
import type { AppContext } from '../app-context.ts';
import type { CalibrationReport } from './report.ts';
import { contextJson, isContextReport, type ContextReport } from './report-context.ts';
import { isContextPrecisionMetric } from './context-service.ts';
import { PARTS, strengthOf, type Part } from './service.ts';
import { keepEstimate, minTrueChecks } from '../estimate/cli.ts';
import { describeChange, identityOfRun } from './judge-identity.ts';
import { describeEvalSet, evalSetOf } from '../releases/service.ts';
import { coverageProblem } from '../releases/runs.ts';
import { cliRefusal, namedCriterion, namedDataset, taggedRelease } from '../datasets/named.ts';
import type { Printer } from '../io/cli-out.ts';

export class CalibrationUsageError extends Error {}

const COMMON = ['n', 'excluded', 'pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse'] as const;
const BINARY = ['threshold', 'accuracy', 'precision', 'recall', 'f1', 'cohen_kappa', 'roc_auc', 'best_threshold', 'confusion', 'coverage', 'false_failure_rate', 'alignment'] as const;

/** Exactly the keys the issue names, in that order; other programs parse them. */
export function reportJson(report: CalibrationReport | ContextReport): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of COMMON) out[k] = report[k];
  if (report.kind === 'binary') for (const k of BINARY) out[k] = report[k];
  out.ci95 = Object.fromEntries(Object.entries(report.ci95).filter(([k]) => k in out));
  if (isContextReport(report)) Object.assign(out, contextJson(report));
  return out;
}

function fmt(v: unknown): string {
  return typeof v === 'number' ? v.toFixed(4) : v === null ? '—' : JSON.stringify(v);
}

export async function cmdReport(ctx: AppContext, o: Record<string, unknown>, out: Printer): Promise<number> {
  const need = (k: string) => { const v = o[k]; if (typeof v !== 'string' || !v) throw new CalibrationUsageError(`missing --${k}\nusage: report --dataset NAME --criterion NAME --metric ID --run NAME [--threshold T] [--part all|calibration|held_out] [--json]`); return v; };
  const dataset = namedDataset(ctx, need('dataset'), CalibrationUsageError);
  const criterion = namedCriterion(ctx, dataset, need('criterion'), CalibrationUsageError);
  const run = ctx.runner.queries.byName(dataset.id, need('run'), need('metric'));
  if (!run) throw cliRefusal(ctx, CalibrationUsageError, 'cli.no_run_for_metric', { run: need('run'), metric: need('metric'), dataset: dataset.name });
  if (criterion.target === 'context' && !isContextPrecisionMetric(run.metric_key)) {
    throw cliRefusal(ctx, CalibrationUsageError, 'cli.context_criterion', { criterion: criterion.name, metric: run.metric_key });
  }
  const threshold = o.threshold === undefined ? undefined : Number(o.threshold);
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) throw new CalibrationUsageError('--threshold takes a number from 0 to 1');
  const part = (o.part as Part | undefined) ?? 'all';
  if (!PARTS.includes(part)) throw new CalibrationUsageError('--part takes all, calibration or held_out');
  const input = { criterion, run, part, threshold, holdoutSeed: dataset.holdout_seed };
  const { report, ids } = criterion.target === 'context'
    ? (({ report, responses }) => ({ report, ids: responses.map((r) => r.id) }))(ctx.contextCalibration.report(input))
    : (({ report, pairs }) => ({ report, ids: pairs.map((p) => p.id) }))(ctx.calibration.report(input));
  const calibrationId = ctx.calibration.record(null, input, report, ids);
  // The true score is an answer-level figure: a per-context calibration keeps none.
  if (criterion.target !== 'context') keepEstimate(ctx, calibrationId, { criterion, run, threshold: threshold ?? 0.5 });
  const evalSet = evalSetOf(run.selection);
  // Which eval set the figures are about: the release the run was limited to, or null (the working copy).
  const data = { ...reportJson(report), release: evalSet && { tag: evalSet.tag, hash: evalSet.hash } };
  const unit = isContextReport(report) ? ` contexts of ${report.responses} responses (intervals: bootstrap over responses)` : '';
  const lines = [`${criterion.name} vs ${run.metric_key} (run "${run.name}", ${part}): n = ${report.n}${unit}${report.meaningful ? '' : ' — fewer than 20 items: not yet meaningful'}`,
    `eval set: ${describeEvalSet(evalSet)}`,
    `excluded: ${Object.entries(report.excluded).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    ...Object.entries(data).filter(([k]) => !['n', 'excluded', 'ci95', 'release', ...CONTEXT_KEYS].includes(k)).map(([k, v]) => `  ${k.padEnd(20)} ${fmt(v)}${report.ci95[k] ? `  [${report.ci95[k]!.map((x) => x.toFixed(3)).join(', ')}]` : ''}`),
    ...(isContextReport(report) ? contextLines(report) : [])];
  out.print(lines.join('\n'), data);
  return 0;
}

const CONTEXT_KEYS = ['unit', 'ci_method', 'by_rank', 'item_level'];

/** The per-context report's by-rank table and per-answer figures, as text. */
function contextLines(report: ContextReport): string[] {
  const item = report.item_level;
  const ci = (k: 'pearson' | 'spearman' | 'mae') => (item.ci95[k] ? ` [${item.ci95[k]!.map((x) => x.toFixed(3)).join(', ')}]` : '');
  return [
    'by rank (5 = 5 and beyond):  rank  n  kappa  accuracy  gold_rate  judge_rate',
    ...report.by_rank.map((r) => `  ${String(r.rank).padStart(4)} ${String(r.n).padStart(6)}  ${fmt(r.kappa)}  ${fmt(r.accuracy)}  ${fmt(r.gold_rate)}  ${fmt(r.judge_rate)}`),
    `per answer, context precision from gold vs the judge's score: n = ${item.n} (apart: ${item.no_relevant} with no relevant context, ${item.partial_gold} with partial gold)`,
    `  pearson ${fmt(item.pearson)}${ci('pearson')}  spearman ${fmt(item.spearman)}${ci('spearman')}  mae ${fmt(item.mae)}${ci('mae')}`,
  ];
}

/** Non-zero when a metric's mean is below its minimum or its calibration is too weak (or missing) to trust. */
export async function cmdGate(ctx: AppContext, o: Record<string, unknown>, out: Printer): Promise<number> {
  if (typeof o.dataset !== 'string' || typeof o.run !== 'string' || (!o.min && !o['min-true'])) {
    throw new CalibrationUsageError('usage: gate --dataset NAME --run NAME [--min METRIC=VALUE ...] [--min-true CRITERION=VALUE ...] [--min-agreement 0.6] [--release TAG]');
  }
  const dataset = namedDataset(ctx, o.dataset, CalibrationUsageError);
  const release = typeof o.release === 'string' ? taggedRelease(ctx, dataset, o.release, CalibrationUsageError) : null;
  const minAgreement = o['min-agreement'] === undefined ? 0.6 : Number(o['min-agreement']);
  if (!(minAgreement >= -1 && minAgreement <= 1)) throw new CalibrationUsageError('--min-agreement takes a number from -1 to 1');
  const mins = ([o.min ?? []].flat() as string[]).map(parseMin);
  const checks = mins.map(({ metric, min }) => {
    const run = ctx.runner.queries.byName(dataset.id, o.run as string, metric);
    if (!run) return { metric, ok: false, refused: true, reason: `no run "${String(o.run)}" for ${metric}` };
    if (run.status !== 'done') return { metric, ok: false, refused: true, reason: `run "${run.name}" for ${metric} is ${run.status}, not done` };
    const uncovered = release && coverageProblem(ctx, run, release);
    if (uncovered) return { metric, ok: false, refused: true, reason: uncovered };
    // Only a calibration of the judge being gated counts: same judge model, embedding model, prompt versions and settings.
    const match = ctx.calibration.matching(dataset.id, metric, identityOfRun(run));
    if (!match.found) {
      if (!match.latest) return { metric, ok: false, refused: true, reason: `${metric} has never been calibrated against an expert criterion (run: goldset report …)` };
      return { metric, ok: false, refused: true, changes: match.changes.map(describeChange),
        reason: `${metric}'s calibrations are of another judge than run "${run.name}": ${match.changes.map(describeChange).join('; ')} `
          + `(latest: run "${match.latest.run}"); re-check this judge against the experts (goldset report --run "${run.name}" …)` };
    }
    const calibration = match.found;
    if (calibration.strength === null || calibration.strength < minAgreement) {
      return { metric, ok: false, refused: true, calibration: { criterion: calibration.criterion, [calibration.strength_name]: calibration.strength },
        reason: `${metric}'s latest calibration against "${calibration.criterion}" has ${calibration.strength_name} = ${calibration.strength === null ? 'none' : calibration.strength.toFixed(3)}, below ${minAgreement}: the judge is not trusted` };
    }
    const summary = ctx.runner.queries.summary(run.id);
    const ok = summary.mean !== null && summary.mean >= min;
    return { metric, ok, refused: false, mean: summary.mean, min, scored: summary.scored, errored: summary.errored, skipped: summary.skipped,
      calibration: { criterion: calibration.criterion, [calibration.strength_name]: calibration.strength },
      reason: ok ? `mean ${summary.mean!.toFixed(4)} ≥ ${min}` : `mean ${summary.mean === null ? 'none' : summary.mean.toFixed(4)} < ${min}` };
  });
  checks.push(...minTrueChecks(ctx, dataset, o.run, [o['min-true'] ?? []].flat() as string[]));
  const passed = checks.every((c) => c.ok);
  // The eval set the gate is about: the release asked for, else that of the runs (one line per distinct one).
  const sets = release ? [describeEvalSet(release)] : [...new Set(mins.map(({ metric }) => ctx.runner.queries.byName(dataset.id, o.run as string, metric))
    .filter((r) => r !== undefined).map((r) => describeEvalSet(evalSetOf(r!.selection))))];
  out.print(sets.map((s) => `eval set: ${s}`).join('\n') + '\n' + checks.map((c) => `${c.ok ? 'PASS' : c.refused ? 'REFUSED' : 'FAIL'} ${c.metric}: ${c.reason}`).join('\n') + `\n${passed ? 'gate passed' : 'gate failed'}`,
    { passed, release: release && { tag: release.tag, hash: release.hash }, checks });
  return passed ? 0 : 1;
}

export { strengthOf };

/** METRIC=VALUE, split on the last '=' so metric names may hold '=' and '(' (factual_correctness(mode=f1)=0.3). */
export function parseMin(m: string): { metric: string; min: number } {
  const at = m.lastIndexOf('=');
  const metric = at > 0 ? m.slice(0, at).trim() : '';
  const value = at > 0 ? m.slice(at + 1).trim() : '';
  if (!metric || value === '' || !Number.isFinite(Number(value))) throw new CalibrationUsageError(`--min takes METRIC=VALUE, got ${m}`);
  return { metric, min: Number(value) };
}
