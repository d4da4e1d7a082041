// Index-based rank statistics (Spearman, Kendall, ROC AUC) for bootstrap resampling; see
// resample.ts for the plain ones. A resample is reduced to per-item multiplicities, and
// ranks are recomputed by one pass over an order sorted once up front, so no resample
// needs a sort of its own.

import { argsort, assertFinite, assertSameLength, denseRanks } from './basic.ts';
import { tauBFromCounts } from './correlation.ts';
import type { IndexStat } from './bootstrap.ts';

function checkPair(x: ArrayLike<number>, y: ArrayLike<number>): void {
  assertSameLength(x, y, 'x and y');
  assertFinite(x, 'x');
  assertFinite(y, 'y');
}

/** Pre-sorted order with tie-run boundaries: runEnd[p] is one past the last position tied with p. */
interface SortedRuns {
  order: Uint32Array;
  runEnd: Uint32Array;
}

function sortedRuns(v: ArrayLike<number>): SortedRuns {
  const order = argsort(v);
  const n = order.length;
  const runEnd = new Uint32Array(n);
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && v[order[j]!] === v[order[i]!]) j++;
    for (let k = i; k < j; k++) runEnd[k] = j;
    i = j;
  }
  return { order, runEnd };
}

/** Tie-averaged ranks the items would have in the resample whose multiplicities are w. */
function weightedRanks(runs: SortedRuns, w: Uint32Array, out: Float64Array): void {
  const { order, runEnd } = runs;
  let below = 0;
  for (let p = 0; p < order.length; ) {
    const end = runEnd[p]!;
    let runWeight = 0;
    for (let k = p; k < end; k++) runWeight += w[order[k]!]!;
    const rank = below + (runWeight + 1) / 2;
    for (let k = p; k < end; k++) out[order[k]!] = rank;
    below += runWeight;
    p = end;
  }
}

function fillMultiplicities(idx: Uint32Array, w: Uint32Array): void {
  w.fill(0);
  for (let k = 0; k < idx.length; k++) w[idx[k]!]! += 1;
}

/** Spearman's rho on the indexed items (ties, including repeated draws, get average ranks). */
export function spearmanOn(x: ArrayLike<number>, y: ArrayLike<number>): IndexStat {
  checkPair(x, y);
  const n = x.length;
  const xRuns = sortedRuns(x);
  const yRuns = sortedRuns(y);
  const w = new Uint32Array(n);
  const rx = new Float64Array(n);
  const ry = new Float64Array(n);
  return (idx) => {
    const m = idx.length;
    if (m < 2) return null;
    fillMultiplicities(idx, w);
    weightedRanks(xRuns, w, rx);
    weightedRanks(yRuns, w, ry);
    // Average ranks always have mean (m + 1)/2, and that value is exact in floating point.
    const mid = (m + 1) / 2;
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    for (let i = 0; i < n; i++) {
      const wi = w[i]!;
      if (wi === 0) continue;
      const dx = rx[i]! - mid;
      const dy = ry[i]! - mid;
      sxy += wi * dx * dy;
      sxx += wi * dx * dx;
      syy += wi * dy * dy;
    }
    if (sxx === 0 || syy === 0) return null;
    return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
  };
}

/**
 * Kendall's tau-b on the indexed items, without sorting per resample: items are ordered by
 * (x, y) once, and each resample walks that order with its multiplicities, counting
 * discordant pairs with a Fenwick tree over y ranks (O(n log V_y) per resample). Repeated
 * draws of one item are pairs tied in both x and y.
 */
export function kendallOn(x: ArrayLike<number>, y: ArrayLike<number>): IndexStat {
  checkPair(x, y);
  const n = x.length;
  const yRank = denseRanks(y);
  const ry = yRank.ranks;
  const vy = yRank.distinct;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((i, j) => x[i]! - x[j]! || ry[i]! - ry[j]!);
  const xRunEnd = new Uint32Array(n);
  for (let p = 0; p < n; ) {
    let q = p + 1;
    while (q < n && x[order[q]!] === x[order[p]!]) q++;
    xRunEnd.fill(q, p, q);
    p = q;
  }
  const w = new Uint32Array(n);
  const tree = new Float64Array(vy + 1); // Fenwick tree, 1-based, over y ranks
  const yCount = new Float64Array(vy);
  return (idx) => {
    const m = idx.length;
    if (m < 2) return null;
    fillMultiplicities(idx, w);
    tree.fill(0);
    yCount.fill(0);
    let inserted = 0;
    let xTies = 0;
    let jointTies = 0;
    let discordant = 0;
    for (let p = 0; p < n; ) {
      const end = xRunEnd[p]!;
      let runWeight = 0;
      let xyWeight = 0;
      let prevY = -1;
      // Query the whole x-run before inserting it, so only strictly smaller x are counted.
      for (let k = p; k < end; k++) {
        const i = order[k]!;
        const wi = w[i]!;
        if (wi === 0) continue;
        const r = ry[i]!;
        let atMost = 0; // inserted weight with y rank <= r
        for (let t = r + 1; t > 0; t -= t & -t) atMost += tree[t]!;
        discordant += wi * (inserted - atMost);
        runWeight += wi;
        if (r !== prevY) {
          jointTies += (xyWeight * (xyWeight - 1)) / 2;
          xyWeight = 0;
          prevY = r;
        }
        xyWeight += wi;
      }
      jointTies += (xyWeight * (xyWeight - 1)) / 2;
      xTies += (runWeight * (runWeight - 1)) / 2;
      for (let k = p; k < end; k++) {
        const i = order[k]!;
        const wi = w[i]!;
        if (wi === 0) continue;
        const r = ry[i]!;
        yCount[r]! += wi;
        for (let t = r + 1; t <= vy; t += t & -t) tree[t]! += wi;
      }
      inserted += runWeight;
      p = end;
    }
    let yTies = 0;
    for (let r = 0; r < vy; r++) yTies += (yCount[r]! * (yCount[r]! - 1)) / 2;
    return tauBFromCounts(m, xTies, yTies, jointTies, discordant);
  };
}

/** ROC AUC (ties count one half) on the indexed items; null when a class is absent from the resample. */
export function rocAucOn(scores: ArrayLike<number>, labels: ArrayLike<boolean>): IndexStat {
  assertSameLength(scores, labels, 'scores and labels');
  assertFinite(scores, 'scores');
  const runs = sortedRuns(scores);
  const w = new Uint32Array(scores.length);
  return (idx) => {
    fillMultiplicities(idx, w);
    const { order, runEnd } = runs;
    let negBelow = 0;
    let wins = 0; // pairs won by the positive, ties counting one half
    let pos = 0;
    for (let p = 0; p < order.length; ) {
      const end = runEnd[p]!;
      let runPos = 0;
      let runNeg = 0;
      for (let k = p; k < end; k++) {
        const i = order[k]!;
        if (labels[i]) runPos += w[i]!;
        else runNeg += w[i]!;
      }
      wins += runPos * (negBelow + runNeg / 2);
      negBelow += runNeg;
      pos += runPos;
      p = end;
    }
    if (pos === 0 || negBelow === 0) return null;
    return wins / (pos * negBelow);
  };
}
