// Two prompt versions (A = current, B = candidate) of one metric, judged against the same gold on
// the same items: both reports, the items whose verdict flipped, and a paired test of whether B
// differs from A by more than noise.
//
// Items compared: those usable in both versions (see prepareCalibration: not an example, gold,
// a score); the gold must be the same in both inputs. Per item, "agrees" means:
//   binary       (score >= threshold) === expert pass
//   categorical  judged label === gold
//   numeric/ordinal: no yes/no agreement; an item flips to_agree when its absolute error shrinks
//                by more than `tolerance`, to_disagree when it grows by more. Errors are on the
//                0..1 scale (ordinal gold and criterion-scale scores mapped by (v − min)/(max − min)),
//                so A and B compare even when one scores 0..1 and the other on the criterion scale.
// Tests at α = 0.05:
//   binary, categorical: McNemar's exact test, b = items only A agrees on, c = only B agrees on.
//   numeric, ordinal: paired bootstrap of ρ_B − ρ_A (Spearman by default, or Pearson).

import type { CriterionKind } from '../criteria/values.ts';
import { mcnemarFromPairs, pairedBootstrap, pearsonOn, spearmanOn } from '../stats/index.ts';
import { calibrationReport, DEFAULT_RESAMPLES, DEFAULT_SEED, DEFAULT_THRESHOLD, MIN_MEANINGFUL_N, prepareCalibration } from './report.ts';
import type { CalibrationItem, CalibrationPair, CalibrationReport, ExclusionReason, Interval, ScoreScale } from './report.ts';

export const ALPHA = 0.05;
/** Default change in absolute error (0..1 scale) that counts as a flip for numeric/ordinal criteria. */
export const DEFAULT_TOLERANCE = 0.1;

export interface CompareOptions {
  categories?: readonly string[];
  exclude?: ReadonlySet<number>;
  /** Numeric/ordinal: error change on the 0..1 scale that counts as a flip (default 0.1). */
  tolerance?: number;
  /** Numeric/ordinal: the correlation the paired bootstrap compares (default 'spearman'). */
  statistic?: 'spearman' | 'pearson';
  resamples?: number;
  seed?: number;
  scoreScaleA?: ScoreScale;
  scoreScaleB?: ScoreScale;
}

export type PairedTest =
  | { method: 'mcnemar_exact'; b: number; c: number; p_value: number }
  | { method: 'paired_bootstrap'; statistic: 'spearman' | 'pearson'; diff: number | null; ci95: Interval | null; p_value: number | null; n_valid: number };

export type Verdict = 'better' | 'worse' | 'no_clear_difference';

export interface PromptComparison {
  kind: CriterionKind;
  /** Items compared (usable in both versions). */
  n: number;
  meaningful: boolean;
  excluded_a: Record<ExclusionReason, number>;
  excluded_b: Record<ExclusionReason, number>;
  /** Items usable in one version only, so left out of the comparison. */
  not_in_both: number;
  /** Both versions' reports on exactly the compared items. */
  a: CalibrationReport;
  b: CalibrationReport;
  /** Item ids, ascending: to_agree = B agrees (or is closer) where A did not; to_disagree the reverse. */
  flipped: { to_agree: number[]; to_disagree: number[] };
  test: PairedTest;
  /** B against A at α = 0.05. */
  verdict: Verdict;
  alpha: number;
}

export function comparePromptVersions(
  a: readonly CalibrationPair[],
  b: readonly CalibrationPair[],
  kind: CriterionKind,
  threshold = DEFAULT_THRESHOLD,
  options: CompareOptions = {},
): PromptComparison {
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  if (!(tolerance >= 0)) throw new RangeError('compare: tolerance must be >= 0');
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? DEFAULT_SEED;
  const base = { kind, categories: options.categories, exclude: options.exclude };
  const prepA = prepareCalibration({ ...base, pairs: a });
  const prepB = prepareCalibration({ ...base, pairs: b });

  const inB = new Map(prepB.items.map((it) => [it.id, it]));
  const itemsA: CalibrationItem[] = [];
  const itemsB: CalibrationItem[] = [];
  for (const itA of prepA.items) {
    const itB = inB.get(itA.id);
    if (!itB) continue;
    if (itB.gold !== itA.gold) throw new RangeError(`compare: item ${itA.id} has gold ${itA.gold} in A but ${itB.gold} in B`);
    itemsA.push(itA);
    itemsB.push(itB);
  }
  const order = itemsA.map((_, i) => i).sort((i, j) => itemsA[i]!.id - itemsA[j]!.id);
  const sortedA = order.map((i) => itemsA[i]!);
  const sortedB = order.map((i) => itemsB[i]!);
  const n = sortedA.length;

  // The reports see the compared items only; the categories/scale of the full inputs are kept.
  const categories = options.categories ?? (kind === 'categorical' || kind === 'ordinal' ? prepA.categories : undefined);
  const report = (items: CalibrationItem[], scoreScale: ScoreScale | undefined) =>
    calibrationReport({ kind, categories, threshold, resamples, seed, scoreScale, pairs: items.map(toPair) });
  const reportA = report(sortedA, options.scoreScaleA);
  const reportB = report(sortedB, options.scoreScaleB);

  const flipped = { to_agree: [] as number[], to_disagree: [] as number[] };
  let test: PairedTest;
  let verdict: Verdict = 'no_clear_difference';
  if (kind === 'binary' || kind === 'categorical') {
    const agrees = (it: CalibrationItem) => (kind === 'binary' ? it.score! >= threshold === (it.goldValue === 1) : it.label === it.gold);
    const agreeA = sortedA.map(agrees);
    const agreeB = sortedB.map(agrees);
    agreeA.forEach((ok, i) => {
      if (ok !== agreeB[i]) (ok ? flipped.to_disagree : flipped.to_agree).push(sortedA[i]!.id);
    });
    const m = mcnemarFromPairs(agreeA, agreeB);
    test = { method: 'mcnemar_exact', ...m };
    if (m.p_value < ALPHA && m.b !== m.c) verdict = m.c > m.b ? 'better' : 'worse';
  } else {
    const errA = unitErrors(sortedA, reportA);
    const errB = unitErrors(sortedB, reportB);
    if (errA && errB) {
      errA.forEach((ea, i) => {
        const eb = errB[i]!;
        if (eb < ea - tolerance) flipped.to_agree.push(sortedA[i]!.id);
        else if (eb > ea + tolerance) flipped.to_disagree.push(sortedA[i]!.id);
      });
    }
    const statistic = options.statistic ?? 'spearman';
    const on = statistic === 'spearman' ? spearmanOn : pearsonOn;
    const gold = Float64Array.from(sortedA, (it) => it.goldValue!);
    const xA = Float64Array.from(sortedA, (it) => it.score!);
    const xB = Float64Array.from(sortedB, (it) => it.score!);
    // pairedBootstrap gives its first statistic minus its second: B first, so diff > 0 means B is better.
    const r = n > 0 ? pairedBootstrap(n, on(xB, gold), on(xA, gold), { resamples, seed }) : null;
    test = { method: 'paired_bootstrap', statistic, diff: r?.diff ?? null, ci95: r?.ci ?? null, p_value: r?.p_value ?? null, n_valid: r?.n_valid ?? 0 };
    if (r && r.p_value !== null && r.p_value < ALPHA && r.diff !== 0) verdict = r.diff > 0 ? 'better' : 'worse';
  }

  return {
    kind,
    n,
    meaningful: n >= MIN_MEANINGFUL_N,
    excluded_a: prepA.excluded,
    excluded_b: prepB.excluded,
    not_in_both: prepA.items.length + prepB.items.length - 2 * n,
    a: reportA,
    b: reportB,
    flipped: { to_agree: flipped.to_agree, to_disagree: flipped.to_disagree },
    test,
    verdict,
    alpha: ALPHA,
  };
}

function toPair(it: CalibrationItem): CalibrationPair {
  return { id: it.id, score: it.score, scoreStatus: 'ok', gold: it.gold, label: it.label };
}

/** Absolute errors on the 0..1 scale, or null when the scores are on no known scale. */
function unitErrors(items: CalibrationItem[], report: CalibrationReport): Float64Array | null {
  if (report.kind !== 'ordinal') return Float64Array.from(items, (it) => Math.abs(it.score! - it.goldValue!));
  const scale = report.scale;
  if (!scale || scale.max === scale.min || scale.scores_on === 'other') return null;
  const unit = (v: number) => (v - scale.min) / (scale.max - scale.min);
  const onUnit = scale.scores_on === 'unit';
  return Float64Array.from(items, (it) => Math.abs((onUnit ? it.score! : unit(it.score!)) - unit(it.goldValue!)));
}
