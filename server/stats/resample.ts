// Index-based versions of the common statistics, built for bootstrap resampling
// (see bootstrap.ts). Each factory validates its data once and owns its scratch buffers,
// so evaluating a resample allocates nothing. They count the resample's distinct (x, y)
// pairs and hand the count to the statistics of resample-cells.ts, which a calibration
// report shares across all its figures. Rank statistics are in resample-rank.ts.

import { assertSameLength } from './basic.ts';
import type { IndexStat } from './bootstrap.ts';
import type { Confusion } from './binary.ts';
import { cellsOf, confusionCells, errorCells, onIndices, pearsonCells } from './resample-cells.ts';

/** Pearson correlation on the indexed items; null when either side is constant on the resample. */
export function pearsonOn(x: ArrayLike<number>, y: ArrayLike<number>): IndexStat {
  const cells = cellsOf(x, y);
  return onIndices(cells, pearsonCells(cells));
}

/**
 * Applies any paired statistic to the indexed items, gathered into reused buffers.
 * Costs whatever fn costs (e.g. O(m log m) for Kendall); prefer the dedicated factories.
 */
export function gatheredOn(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  fn: (xs: Float64Array, ys: Float64Array) => number | null,
): IndexStat {
  assertSameLength(x, y, 'x and y');
  let xs = new Float64Array(0);
  let ys = new Float64Array(0);
  return (idx) => {
    const m = idx.length;
    if (xs.length !== m) {
      xs = new Float64Array(m);
      ys = new Float64Array(m);
    }
    for (let k = 0; k < m; k++) {
      xs[k] = x[idx[k]!]!;
      ys[k] = y[idx[k]!]!;
    }
    return fn(xs, ys);
  };
}

export function maeOn(x: ArrayLike<number>, y: ArrayLike<number>): IndexStat {
  const cells = cellsOf(x, y);
  return onIndices(cells, errorCells(cells, 'mae'));
}

export function rmseOn(x: ArrayLike<number>, y: ArrayLike<number>): IndexStat {
  const cells = cellsOf(x, y);
  return onIndices(cells, errorCells(cells, 'rmse'));
}

/**
 * Any confusion-based figure (accuracy, kappaFromConfusion, evalGen alignment, ...) at a
 * fixed threshold on the indexed items. O(m) per resample.
 */
export function confusionMetricOn(
  scores: ArrayLike<number>,
  labels: ArrayLike<boolean>,
  threshold: number,
  metric: (c: Confusion) => number | null,
): IndexStat {
  assertSameLength(scores, labels, 'scores and labels');
  const cells = cellsOf(scores, Float64Array.from(labels, (l) => (l ? 1 : 0)));
  return onIndices(cells, confusionCells(cells, threshold, metric));
}
