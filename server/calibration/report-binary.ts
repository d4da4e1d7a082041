// Binary figures of a calibration report (accuracy, precision, recall, F1, κ, confusion, ROC AUC,
// best threshold, EvalGen's coverage / false-failure rate / alignment) and the κ-against-threshold
// curve. Shared by the response-level binary report and the per-context report.

import {
  accuracy, bestThresholdCells, binaryCells, confusionAt, evalGenAlignment, f1, fullSample, kappaFromConfusion, precision, recall, rocAucCells,
} from '../stats/index.ts';
import type { Cells, Confusion } from '../stats/index.ts';
import { expertKappa, one, type StatGroup } from './report-shared.ts';

export function binaryFigures(x: Float64Array, g: Float64Array, cells: Cells, threshold: number, stats: StatGroup[]) {
  const pass = Array.from(g, (v) => v === 1);
  const c = confusionAt(x, pass, threshold);
  // ROC AUC and the best threshold from the sorted cells (no sort of their own; the same counts, so the same figures).
  const best = bestThresholdCells(cells);
  const figures = confusionFigures(c, threshold, { roc_auc: fullSample(cells, rocAucCells(cells)), best_threshold: best?.threshold ?? null, best_threshold_kappa: best?.kappa ?? null });
  binaryIntervals(cells, threshold, figures, stats);
  return { figures, figure_n: binaryFigureN(c, x.length) };
}

/** The binary figures of a confusion count, in the report's key order; ROC AUC and the best threshold come from the scores. */
export function confusionFigures(c: Confusion, threshold: number, fromScores: { roc_auc: number | null; best_threshold: number | null; best_threshold_kappa: number | null }) {
  const eg = evalGenAlignment(c);
  return {
    threshold,
    accuracy: accuracy(c),
    precision: precision(c),
    recall: recall(c),
    f1: f1(c),
    cohen_kappa: expertKappa(c),
    roc_auc: fromScores.roc_auc,
    best_threshold: fromScores.best_threshold,
    best_threshold_kappa: fromScores.best_threshold_kappa,
    confusion: c,
    coverage: eg.coverage,
    false_failure_rate: eg.false_failure_rate,
    alignment: eg.alignment,
  };
}

/** What each binary figure's value rests on: all n items, or those the judge / the experts pass or fail. */
export function binaryFigureN(c: Confusion, n: number): Record<string, number> {
  return {
    accuracy: n, precision: c.tp + c.fp, recall: c.tp + c.fn, f1: n, cohen_kappa: n, roc_auc: n, best_threshold: n,
    coverage: c.tn + c.fp, false_failure_rate: c.tp + c.fn, alignment: n,
  };
}

/** The resampled binary figures (κ, accuracy, F1, alignment from one confusion count per resample; ROC AUC). */
export function binaryIntervals(cells: Cells, threshold: number, figures: ReturnType<typeof confusionFigures>, stats: StatGroup[]): void {
  // One confusion count per resample serves all four confusion-based figures; a figure undefined
  // on the full sample gets no interval.
  const metrics: [string, (c: Confusion) => number | null, number | null][] = [
    ['accuracy', accuracy, figures.accuracy],
    ['f1', f1, figures.f1],
    ['cohen_kappa', expertKappa, figures.cohen_kappa],
    ['alignment', (k) => evalGenAlignment(k).alignment, figures.alignment],
  ];
  const defined = metrics.filter((m) => m[2] !== null);
  for (const [name, , value] of metrics) if (value === null) stats.push(one(name, null));
  const withAuc = figures.roc_auc !== null;
  if (!withAuc) stats.push(one('roc_auc', null));
  if (defined.length === 0 && !withAuc) return;
  // One walk of the cells per resample gives the confusion count and ROC AUC together.
  const walk = binaryCells(cells, threshold);
  const out = new Array<number | null>(defined.length + (withAuc ? 1 : 0)).fill(null);
  stats.push({
    names: [...defined.map((m) => m[0]), ...(withAuc ? ['roc_auc'] : [])],
    cells,
    stat: (w) => {
      const r = walk(w);
      for (let k = 0; k < defined.length; k++) out[k] = defined[k]![1](r.confusion);
      if (withAuc) out[defined.length] = r.rocAuc;
      return out;
    },
  });
}

/**
 * Cohen's κ of judge (score >= t) against expert at `steps` evenly spaced thresholds from
 * min(0, lowest score) to max(1, highest score), for the κ-vs-threshold chart. κ is null where
 * undefined (no items, or judge and experts all give one and the same verdict). One sort, then a
 * binary search per threshold.
 */
export function kappaCurve(scores: ArrayLike<number>, labels: ArrayLike<boolean>, steps = 101): { threshold: number; kappa: number | null }[] {
  if (scores.length !== labels.length) throw new RangeError('kappaCurve: scores and labels must have equal lengths');
  if (!Number.isInteger(steps) || steps < 2) throw new RangeError('kappaCurve: steps must be an integer >= 2');
  const n = scores.length;
  // κ at t needs only how many scores, and how many experts' passes, lie below t: two sorted lists of
  // numbers (a native sort, no comparator), searched once per threshold.
  const sorted = Float64Array.from(scores).sort();
  if (!sorted.every(Number.isFinite)) throw new RangeError('kappaCurve: scores must be finite');
  const passes = Float64Array.from({ length: n }, (_, i) => (labels[i] ? scores[i]! : NaN)).filter((v) => !Number.isNaN(v)).sort();
  const totalPos = passes.length;
  const lo = Math.min(0, n ? sorted[0]! : 0);
  const hi = Math.max(1, n ? sorted[n - 1]! : 1);
  const out: { threshold: number; kappa: number | null }[] = [];
  for (let s = 0; s < steps; s++) {
    const t = s === steps - 1 ? hi : lo + ((hi - lo) * s) / (steps - 1);
    const a = countBelow(sorted, t);
    const fn = countBelow(passes, t);
    const c: Confusion = { tp: totalPos - fn, fn, tn: a - fn, fp: n - a - (totalPos - fn) };
    out.push({ threshold: t, kappa: kappaFromConfusion(c) });
  }
  return out;
}

/** How many values of an ascending list are below t. */
function countBelow(sorted: Float64Array, t: number): number {
  let a = 0, b = sorted.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (sorted[mid]! < t) a = mid + 1;
    else b = mid;
  }
  return a;
}
