// Binary figures of a calibration report (accuracy, precision, recall, F1, κ, confusion, ROC AUC,
// best threshold, EvalGen's coverage / false-failure rate / alignment) and the κ-against-threshold
// curve. Shared by the response-level binary report and the per-context report.

import {
  accuracy, bestThreshold, confusionAt, confusionCells, evalGenAlignment, f1, kappaFromConfusion, precision, recall, rocAuc, rocAucCells,
} from '../stats/index.ts';
import type { Cells, Confusion } from '../stats/index.ts';
import { expertKappa, one, type StatGroup } from './report-shared.ts';

export function binaryFigures(x: Float64Array, g: Float64Array, cells: Cells, threshold: number, stats: StatGroup[]) {
  const pass = Array.from(g, (v) => v === 1);
  const c = confusionAt(x, pass, threshold);
  const eg = evalGenAlignment(c);
  const best = bestThreshold(x, pass);
  const figures = {
    threshold,
    accuracy: accuracy(c),
    precision: precision(c),
    recall: recall(c),
    f1: f1(c),
    cohen_kappa: expertKappa(c),
    roc_auc: rocAuc(x, pass),
    best_threshold: best?.threshold ?? null,
    best_threshold_kappa: best?.kappa ?? null,
    confusion: c,
    coverage: eg.coverage,
    false_failure_rate: eg.false_failure_rate,
    alignment: eg.alignment,
  };
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
  if (defined.length > 0) {
    const out = new Array<number | null>(defined.length).fill(null);
    let current: Confusion | null = null;
    const counts = confusionCells(cells, threshold, (k) => ((current = k), 0));
    stats.push({
      names: defined.map((m) => m[0]),
      cells,
      stat: (w, m) => {
        counts(w, m);
        for (let k = 0; k < defined.length; k++) out[k] = defined[k]![1](current!);
        return out;
      },
    });
  }
  stats.push(one('roc_auc', figures.roc_auc === null ? null : cells, rocAucCells));
  const n = x.length;
  const figure_n = {
    accuracy: n, precision: c.tp + c.fp, recall: c.tp + c.fn, f1: n, cohen_kappa: n, roc_auc: n, best_threshold: n,
    coverage: c.tn + c.fp, false_failure_rate: c.tp + c.fn, alignment: n,
  };
  return { figures, figure_n };
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
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => scores[i]! - scores[j]!);
  const sorted = Float64Array.from(order, (i) => scores[i]!);
  if (!sorted.every(Number.isFinite)) throw new RangeError('kappaCurve: scores must be finite');
  const posBelow = new Uint32Array(n + 1); // expert passes among the k lowest scores
  for (let k = 0; k < n; k++) posBelow[k + 1] = posBelow[k]! + (labels[order[k]!] ? 1 : 0);
  const totalPos = posBelow[n]!;
  const lo = Math.min(0, n ? sorted[0]! : 0);
  const hi = Math.max(1, n ? sorted[n - 1]! : 1);
  const out: { threshold: number; kappa: number | null }[] = [];
  for (let s = 0; s < steps; s++) {
    const t = s === steps - 1 ? hi : lo + ((hi - lo) * s) / (steps - 1);
    let a = 0, b = n; // first position with score >= t
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (sorted[mid]! < t) a = mid + 1;
      else b = mid;
    }
    const fn = posBelow[a]!;
    const c: Confusion = { tp: totalPos - fn, fn, tn: a - fn, fp: n - a - (totalPos - fn) };
    out.push({ threshold: t, kappa: kappaFromConfusion(c) });
  }
  return out;
}
