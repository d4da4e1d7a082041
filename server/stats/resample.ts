// Index-based versions of the common statistics, built for bootstrap resampling
// (see bootstrap.ts). Each factory validates its data once and owns its scratch buffers,
// so evaluating a resample allocates nothing. Rank statistics are in resample-rank.ts.

import { assertFinite, assertSameLength } from './basic.ts';
import type { IndexStat } from './bootstrap.ts';
import type { Confusion } from './binary.ts';

function checkPair(x: ArrayLike<number>, y: ArrayLike<number>): void {
  assertSameLength(x, y, 'x and y');
  assertFinite(x, 'x');
  assertFinite(y, 'y');
}

/** Pearson correlation on the indexed items; null when either side is constant on the resample. */
export function pearsonOn(x: ArrayLike<number>, y: ArrayLike<number>): IndexStat {
  checkPair(x, y);
  return (idx) => {
    const m = idx.length;
    if (m < 2) return null;
    let sx = 0;
    let sy = 0;
    let xMin = Infinity;
    let xMax = -Infinity;
    let yMin = Infinity;
    let yMax = -Infinity;
    for (let k = 0; k < m; k++) {
      const i = idx[k]!;
      const xi = x[i]!;
      const yi = y[i]!;
      sx += xi;
      sy += yi;
      if (xi < xMin) xMin = xi;
      if (xi > xMax) xMax = xi;
      if (yi < yMin) yMin = yi;
      if (yi > yMax) yMax = yi;
    }
    // Exact constancy test: the centred sums of identical floats need not be exactly zero.
    if (xMin === xMax || yMin === yMax) return null;
    const mx = sx / m;
    const my = sy / m;
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    for (let k = 0; k < m; k++) {
      const i = idx[k]!;
      const dx = x[i]! - mx;
      const dy = y[i]! - my;
      sxy += dx * dy;
      sxx += dx * dx;
      syy += dy * dy;
    }
    return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
  };
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
  checkPair(x, y);
  return (idx) => {
    if (idx.length === 0) return null;
    let s = 0;
    for (let k = 0; k < idx.length; k++) s += Math.abs(x[idx[k]!]! - y[idx[k]!]!);
    return s / idx.length;
  };
}

export function rmseOn(x: ArrayLike<number>, y: ArrayLike<number>): IndexStat {
  checkPair(x, y);
  return (idx) => {
    if (idx.length === 0) return null;
    let s = 0;
    for (let k = 0; k < idx.length; k++) {
      const d = x[idx[k]!]! - y[idx[k]!]!;
      s += d * d;
    }
    return Math.sqrt(s / idx.length);
  };
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
  assertFinite(scores, 'scores');
  // cell code per item: bit 1 = judge passes, bit 0 = expert passes
  const cell = new Uint8Array(scores.length);
  for (let i = 0; i < cell.length; i++) cell[i] = (scores[i]! >= threshold ? 2 : 0) | (labels[i] ? 1 : 0);
  const counts = new Uint32Array(4);
  return (idx) => {
    counts.fill(0);
    for (let k = 0; k < idx.length; k++) counts[cell[idx[k]!]!]! += 1;
    return metric({ tn: counts[0]!, fn: counts[1]!, fp: counts[2]!, tp: counts[3]! });
  };
}
