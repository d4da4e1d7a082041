// `goldset sample` (draw or extend an estimation sample), `goldset estimate` (the true score as one
// JSON object other programs read) and the `--min-true` checks of `goldset gate`.
import type { AppContext } from '../app-context.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { RunRow } from '../judge/run-queries.ts';
import { translator } from '../i18n/index.ts';
import { systemNames } from '../responses/queries.ts';
import { EstimateError, type DrawResult, type EstimateResult } from './service.ts';
import { describeEvalSet, evalSetOf } from '../releases/service.ts';
import { cliRefusal, namedCriterion, namedDataset } from '../datasets/named.ts';
import type { MessageKey, Params } from '../i18n/index.ts';
import { clip } from '../limits.ts';
import type { Printer } from '../io/cli-out.ts';

export class EstimateUsageError extends Error {}

const en = translator('en');

function wholeNumber(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const s = String(value);
  if (!/^\d{1,15}$/.test(s)) throw new EstimateUsageError(`${name} takes a whole number, got ${s}`);
  return Number(s);
}

function datasetNamed(ctx: AppContext, name: unknown): DatasetRow {
  if (typeof name !== 'string' || !name) throw new EstimateUsageError('missing --dataset NAME');
  return namedDataset(ctx, name, EstimateUsageError);
}

/** Exactly the keys the issue names: `sample_id`, `seed`, `items` ([{response_id, question, system}]). */
export function sampleJson(r: DrawResult): Record<string, unknown> {
  return { sample_id: r.sample.id, seed: r.draw.seed, items: r.items.map((it) => ({ response_id: it.response_id, question: it.question, system: it.system })) };
}

export async function cmdSample(ctx: AppContext, o: Record<string, unknown>, out: Printer): Promise<number> {
  const usage = 'usage: sample --dataset NAME [--system S] --size K [--seed N] [--extend SAMPLE_ID] [--json]';
  const dataset = datasetNamed(ctx, o.dataset);
  const size = wholeNumber(o.size, '--size');
  if (size === undefined) throw new EstimateUsageError(`missing --size K\n${usage}`);
  const seed = wholeNumber(o.seed, '--seed');
  const extend = wholeNumber(o.extend, '--extend');
  let result: DrawResult;
  try {
    if (extend !== undefined) {
      const sample = ctx.estimates.sample(extend);
      if (!sample || sample.dataset_id !== dataset.id) throw new EstimateError('est.err_no_such_sample', { id: extend });
      if (o.system !== undefined && o.system !== (sample.system ?? undefined)) {
        throw cliRefusal(ctx, EstimateUsageError, sample.system === null ? 'cli.sample_of_all_systems' : 'cli.sample_of_system', { id: extend, system: sample.system ?? '' });
      }
      result = ctx.estimates.extend(null, extend, { size, seed });
    } else {
      const system = typeof o.system === 'string' ? o.system : null;
      result = ctx.estimates.draw(null, dataset.id, { system, size, seed, systems: systemNames(ctx, dataset.id) });
    }
  } catch (err) {
    if (err instanceof EstimateError) throw new EstimateUsageError(translator(ctx.config.cliLocale)(err.key, err.params));
    throw err;
  }
  const data = sampleJson(result);
  out.print([`sample #${result.sample.id} (${result.sample.system ?? 'all systems'}): drew ${result.draw.drawn} of ${result.draw.frame_size} responses with seed ${result.draw.seed}` +
    (result.draw.drawn < result.draw.requested ? ` (asked for ${result.draw.requested}; that is every response left to draw)` : ''),
  ...result.items.map((it) => `  ${it.response_id}\t${it.system}\t${clip(it.question.replace(/\s+/g, ' '), 80).text}`)].join('\n'), data);
  return 0;
}

const fig = (f: { estimate: number | null; ci95: [number, number] | null }) => ({ estimate: f.estimate, ci95: f.ci95 });

/** Exactly the keys the issue names, in its order; a figure that cannot be computed is null. */
export function estimateJson(r: Readonly<EstimateResult>): Record<string, unknown> {
  const s = r.scope!;
  return {
    n_labelled: s.n_labelled,
    n_unlabelled: s.n_unlabelled,
    lambda: s.lambda,
    judge_only: fig(s.judge_only),
    gold_only: fig(s.gold_only),
    corrected: fig(s.corrected),
    effective_labels: s.effective_labels,
    labels_needed: { half_width: s.labels_needed.half_width, corrected: s.labels_needed.corrected, gold_only: s.labels_needed.gold_only },
    sample: { drawn: s.sample.drawn, completed: s.sample.completed, missing: s.sample.missing },
    bias: (r.bias?.rows ?? []).map((b) => ({ factor: b.factor, effect: b.effect, p_value: b.p_value, p_adjusted: b.p_adjusted })),
  };
}

/** Why no run was found: a message key and its values (an estimate's refusal, or a line of gate's report). */
interface NoRun { key: MessageKey; params: Params }

/** The run named `name` in the dataset: the one of that name, or of `metric` when several metrics share it. */
export function runNamed(ctx: AppContext, dataset: DatasetRow, name: string, metric: string | undefined, criterion: Criterion): { run: RunRow } | NoRun {
  const runs = ctx.runner.queries.byNameAny(dataset.id, name);
  const metrics = runs.map((r) => r.metric_key).join(', ');
  if (runs.length === 0) return { key: 'cli.no_run', params: { run: name, dataset: dataset.name } };
  // Several metrics under one name, none chosen: the one whose calibration against this criterion was recorded last.
  const key = metric ?? (runs.length === 1 ? runs[0]!.metric_key : ctx.estimates.queries.latestCalibrationMetric.get(dataset.id, criterion.id));
  const run = runs.find((r) => r.metric_key === key);
  if (run) return { run };
  return metric !== undefined ? { key: 'cli.run_lacks_metric', params: { run: name, metric, metrics } }
    : { key: 'cli.run_ambiguous', params: { run: name, metrics, criterion: criterion.name } };
}

function fmtCi(f: { estimate: number | null; ci95: [number, number] | null }): string {
  return f.estimate === null ? '—' : `${f.estimate.toFixed(4)}${f.ci95 ? ` [${f.ci95[0].toFixed(4)}, ${f.ci95[1].toFixed(4)}]` : ''}`;
}

export async function cmdEstimate(ctx: AppContext, o: Record<string, unknown>, out: Printer): Promise<number> {
  const usage = 'usage: estimate --dataset NAME --criterion C --run R [--metric ID] [--system S] [--threshold T] [--half-width H] [--json]';
  const dataset = datasetNamed(ctx, o.dataset);
  if (typeof o.criterion !== 'string' || typeof o.run !== 'string') throw new EstimateUsageError(`missing --criterion or --run\n${usage}`);
  const criterion = namedCriterion(ctx, dataset, o.criterion, EstimateUsageError);
  const found = runNamed(ctx, dataset, o.run, o.metric as string | undefined, criterion);
  if (!('run' in found)) throw cliRefusal(ctx, EstimateUsageError, found.key, found.params);
  const { run } = found;
  const threshold = o.threshold === undefined ? 0.5 : Number(o.threshold);
  if (!(threshold >= 0 && threshold <= 1)) throw new EstimateUsageError('--threshold takes a number from 0 to 1');
  const halfWidth = o['half-width'] === undefined ? undefined : Number(o['half-width']);
  if (halfWidth !== undefined && !(halfWidth > 0 && Number.isFinite(halfWidth))) throw new EstimateUsageError('--half-width takes a positive number (in the criterion\'s units)');
  const system = typeof o.system === 'string' ? o.system : null;
  if (system !== null && !systemNames(ctx, dataset.id).includes(system)) throw new EstimateUsageError(translator(ctx.config.cliLocale)('est.err_system', { system }));
  const r = ctx.estimates.estimate({ criterion, run, system, threshold, halfWidth });
  if (r.refusal) throw new EstimateUsageError(translator(ctx.config.cliLocale)(`est.refused_${r.refusal}`));
  const evalSet = evalSetOf(run.selection);
  // Which eval set the estimate is about: the release the run was limited to, or null (the working copy).
  const data = { ...estimateJson(r), release: evalSet && { tag: evalSet.tag, hash: evalSet.hash } };
  const s = r.scope!;
  const lines = [
    `${criterion.name} · run "${run.name}" (${run.metric_key}) · ${system ?? 'all systems'}: ${r.sample ? `sample #${r.sample.id}` : 'no estimation sample (draw one: goldset sample …)'}`,
    `  eval set: ${describeEvalSet(evalSet)}`,
    `  judge only     ${fmtCi(s.judge_only)}  n = ${s.judge_only.n}  (assumes the judge is right)`,
    `  experts only   ${fmtCi(s.gold_only)}  n = ${s.gold_only.n}`,
    `  corrected      ${fmtCi(s.corrected)}  λ = ${s.lambda === null ? '—' : s.lambda.toFixed(3)}, effective labels ${s.effective_labels === null ? '—' : Math.round(s.effective_labels)}`,
    `  sample: ${s.sample.completed} of ${s.sample.drawn} completed, ${s.sample.missing} missing (pending ${s.sample.pending}, disputed ${s.sample.disputed}, no score ${s.sample.no_score})`,
    `  labels for ±${s.labels_needed.half_width}: ${s.labels_needed.corrected ?? '—'} with the correction, ${s.labels_needed.gold_only ?? '—'} experts alone`,
    ...(r.bias?.rows ?? []).map((b) => `  bias ${b.factor.padEnd(16)} effect ${b.effect === null ? '—' : b.effect.toFixed(4)}  p ${b.p_value === null ? '—' : b.p_value.toFixed(4)}  Holm ${b.p_adjusted === null ? '—' : b.p_adjusted.toFixed(4)}`),
    ...s.notes.map((n) => `  note: ${en(`est.note_${n}`)}`),
    ...(r.not_covered > 0 ? [`  note: ${en('est.not_covered', { n: r.not_covered })}`] : []),
  ];
  out.print(lines.join('\n'), data);
  return 0;
}

export interface MinTrueCheck { metric: string; ok: boolean; refused: boolean; reason: string; [k: string]: unknown }

/**
 * `gate --min-true CRITERION=VALUE`: passes only when the corrected interval's lower bound is at
 * least VALUE; refuses without a complete sample (more than 5 % missing, or no interval), naming it.
 * No calibration-strength check: the correction is valid for any judge (a weak one only widens it).
 */
export function minTrueChecks(ctx: AppContext, dataset: DatasetRow, runName: string, specs: readonly string[]): MinTrueCheck[] {
  return specs.map((spec) => {
    const at = spec.lastIndexOf('=');
    const name = at > 0 ? spec.slice(0, at) : '';
    const min = at > 0 && spec.slice(at + 1).trim() !== '' ? Number(spec.slice(at + 1)) : NaN;
    if (!name || !Number.isFinite(min)) throw new EstimateUsageError(`--min-true takes CRITERION=VALUE, got ${spec}`);
    const label = `true ${name}`;
    const criterion = ctx.criteria.queries.byName(dataset.id, name);
    if (!criterion) return { metric: label, ok: false, refused: true, reason: `no criterion "${name}" in "${dataset.name}"` };
    const found = runNamed(ctx, dataset, runName, undefined, criterion);
    if (!('run' in found)) return { metric: label, ok: false, refused: true, reason: en(found.key, found.params) };
    const { run } = found;
    if (run.status !== 'done') return { metric: label, ok: false, refused: true, reason: `run "${run.name}" for ${run.metric_key} is ${run.status}, not done` };
    const threshold = ctx.estimates.queries.latestCalibrationThreshold.get(dataset.id, criterion.id, run.metric_key) ?? 0.5;
    const r = ctx.estimates.estimate({ criterion, run, system: null, threshold });
    if (r.refusal) return { metric: label, ok: false, refused: true, reason: en(`est.refused_${r.refusal}`) };
    const s = r.scope!;
    if (!r.sample) return { metric: label, ok: false, refused: true, reason: `no estimation sample covers "${dataset.name}"'s responses (draw one: goldset sample --dataset "${dataset.name}" --size K)` };
    const base = { metric: label, criterion: criterion.name, run_metric: run.metric_key, sample_id: r.sample.id, min, corrected: fig(s.corrected),
      judge_only: fig(s.judge_only), sample: { drawn: s.sample.drawn, completed: s.sample.completed, missing: s.sample.missing } };
    if (s.notes.includes('missing_over_5_percent') || s.corrected.ci95 === null) {
      return { ...base, ok: false, refused: true,
        reason: `sample #${r.sample.id} is not complete: ${s.sample.missing} of ${s.sample.drawn} items have no usable gold label and score (at most 5% may be missing)` };
    }
    const low = s.corrected.ci95[0];
    const ok = low >= min;
    return { ...base, ok, refused: false,
      reason: `corrected ${s.corrected.estimate!.toFixed(4)}, 95% interval from ${low.toFixed(4)} ${ok ? '≥' : '<'} ${min} (judge alone: ${s.judge_only.estimate === null ? '—' : s.judge_only.estimate.toFixed(4)}; sample #${r.sample.id})` };
  });
}

/** A recorded calibration keeps the estimate of its criterion and run (all systems), in the `estimate --json` shape. */
export function keepEstimate(ctx: AppContext, calibrationId: number, input: { criterion: Criterion; run: RunRow; threshold: number }): void {
  const r = ctx.estimates.estimate({ ...input, system: null });
  ctx.estimates.keepWithCalibration(calibrationId, r.scope ? { sample_id: r.sample?.id ?? null, threshold: input.threshold, ...estimateJson(r) } : null);
}
