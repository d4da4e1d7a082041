// `goldset report` (judge vs experts, as one JSON object other programs read) and `goldset gate` (CI).
import type { AppContext } from '../app-context.ts';
import type { CalibrationReport } from './report.ts';
import { PARTS, strengthOf, type Part } from './service.ts';
import { describeEvalSet, evalSetOf } from '../releases/service.ts';
import { coverageProblem } from '../releases/runs.ts';

export class CalibrationUsageError extends Error {}

type Out = { json: boolean; print(text: string, data: Record<string, unknown>): void };

const COMMON = ['n', 'excluded', 'pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse'] as const;
const BINARY = ['threshold', 'accuracy', 'precision', 'recall', 'f1', 'cohen_kappa', 'roc_auc', 'best_threshold', 'confusion', 'coverage', 'false_failure_rate', 'alignment'] as const;

/** Exactly the keys the issue names, in that order; other programs parse them. */
export function reportJson(report: CalibrationReport): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of COMMON) out[k] = report[k];
  if (report.kind === 'binary') for (const k of BINARY) out[k] = report[k];
  out.ci95 = Object.fromEntries(Object.entries(report.ci95).filter(([k]) => k in out));
  return out;
}

function fmt(v: unknown): string {
  return typeof v === 'number' ? v.toFixed(4) : v === null ? '—' : JSON.stringify(v);
}

export async function cmdReport(ctx: AppContext, o: Record<string, unknown>, out: Out): Promise<number> {
  const need = (k: string) => { const v = o[k]; if (typeof v !== 'string' || !v) throw new CalibrationUsageError(`missing --${k}\nusage: report --dataset NAME --criterion NAME --metric ID --run NAME [--threshold T] [--part all|calibration|held_out] [--json]`); return v; };
  const dataset = ctx.datasets.byName(need('dataset'));
  if (!dataset) throw new CalibrationUsageError(`no dataset named "${String(o.dataset)}"`);
  const criterion = ctx.criteria.queries.byName(dataset.id, need('criterion'));
  if (!criterion) throw new CalibrationUsageError(`no criterion "${String(o.criterion)}" in "${dataset.name}"`);
  if (criterion.target !== 'response') throw new CalibrationUsageError(`criterion "${criterion.name}" is about each context; calibration compares response-level criteria`);
  const run = ctx.runner.queries.byName(dataset.id, need('run'), need('metric'));
  if (!run) throw new CalibrationUsageError(`no run "${String(o.run)}" for metric ${String(o.metric)} in "${dataset.name}" (score it, or import it with: import FILE --dataset NAME --run NAME)`);
  const threshold = o.threshold === undefined ? undefined : Number(o.threshold);
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) throw new CalibrationUsageError('--threshold takes a number from 0 to 1');
  const part = (o.part as Part | undefined) ?? 'all';
  if (!PARTS.includes(part)) throw new CalibrationUsageError('--part takes all, calibration or held_out');
  const input = { criterion, run, part, threshold, holdoutSeed: dataset.holdout_seed };
  const { report, pairs } = ctx.calibration.report(input);
  ctx.calibration.record(null, input, report, pairs.map((p) => p.id));
  const evalSet = evalSetOf(run.selection);
  // Which eval set the figures are about: the release the run was limited to, or null (the working copy).
  const data = { ...reportJson(report), release: evalSet && { tag: evalSet.tag, hash: evalSet.hash } };
  const lines = [`${criterion.name} vs ${run.metric_key} (run "${run.name}", ${part}): n = ${report.n}${report.meaningful ? '' : ' — fewer than 20 items: not yet meaningful'}`,
    `eval set: ${describeEvalSet(evalSet)}`,
    `excluded: ${Object.entries(report.excluded).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    ...Object.entries(data).filter(([k]) => !['n', 'excluded', 'ci95', 'release'].includes(k)).map(([k, v]) => `  ${k.padEnd(20)} ${fmt(v)}${report.ci95[k] ? `  [${report.ci95[k]!.map((x) => x.toFixed(3)).join(', ')}]` : ''}`)];
  out.print(lines.join('\n'), data);
  return 0;
}

/** Non-zero when a metric's mean is below its minimum or its calibration is too weak (or missing) to trust. */
export async function cmdGate(ctx: AppContext, o: Record<string, unknown>, out: Out): Promise<number> {
  if (typeof o.dataset !== 'string' || typeof o.run !== 'string' || !o.min) throw new CalibrationUsageError('usage: gate --dataset NAME --run NAME --min METRIC=VALUE ... [--min-agreement 0.6] [--release TAG]');
  const dataset = ctx.datasets.byName(o.dataset);
  if (!dataset) throw new CalibrationUsageError(`no dataset named "${o.dataset}"`);
  const release = typeof o.release === 'string' ? ctx.releases.byTag(dataset.id, o.release) : null;
  if (typeof o.release === 'string' && !release) throw new CalibrationUsageError(`no release tagged "${o.release}" in "${dataset.name}"`);
  const minAgreement = o['min-agreement'] === undefined ? 0.6 : Number(o['min-agreement']);
  if (!(minAgreement >= -1 && minAgreement <= 1)) throw new CalibrationUsageError('--min-agreement takes a number from -1 to 1');
  const mins = ([o.min].flat() as string[]).map((m) => {
    const [metric, value] = m.split('=');
    if (!metric || value === undefined || !Number.isFinite(Number(value))) throw new CalibrationUsageError(`--min takes METRIC=VALUE, got ${m}`);
    return { metric, min: Number(value) };
  });
  const checks = mins.map(({ metric, min }) => {
    const run = ctx.runner.queries.byName(dataset.id, o.run as string, metric);
    if (!run) return { metric, ok: false, refused: true, reason: `no run "${String(o.run)}" for ${metric}` };
    if (run.status !== 'done') return { metric, ok: false, refused: true, reason: `run "${run.name}" for ${metric} is ${run.status}, not done` };
    const uncovered = release && coverageProblem(ctx, run, release);
    if (uncovered) return { metric, ok: false, refused: true, reason: uncovered };
    const calibration = ctx.calibration.latestFor(dataset.id, metric);
    if (!calibration) return { metric, ok: false, refused: true, reason: `${metric} has never been calibrated against an expert criterion (run: goldset report …)` };
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
  const passed = checks.every((c) => c.ok);
  // The eval set the gate is about: the release asked for, else that of the runs (one line per distinct one).
  const sets = release ? [describeEvalSet(release)] : [...new Set(mins.map(({ metric }) => ctx.runner.queries.byName(dataset.id, o.run as string, metric))
    .filter((r) => r !== undefined).map((r) => describeEvalSet(evalSetOf(r!.selection))))];
  out.print(sets.map((s) => `eval set: ${s}`).join('\n') + '\n' + checks.map((c) => `${c.ok ? 'PASS' : c.refused ? 'REFUSED' : 'FAIL'} ${c.metric}: ${c.reason}`).join('\n') + `\n${passed ? 'gate passed' : 'gate failed'}`,
    { passed, release: release && { tag: release.tag, hash: release.hash }, checks });
  return passed ? 0 : 1;
}

export { strengthOf };
