// Paired statistics over a resample given as cell multiplicities, for bootstrap resampling.
//
// Every paired figure (Pearson, Spearman, Kendall, MAE/RMSE, ROC AUC, confusion counts, κ) is a
// function of the multiset of (x, y) pairs drawn, so items with the same pair are interchangeable.
// cellsOf() groups the items into "cells", one per distinct (x, y), sorted by x then y, once; a
// resample is then reduced to how often each cell was drawn (one pass over the drawn indices) and
// each statistic is one O(cells) pass over that count. With gold values on a few scale points and
// judge scores on a grid (0.01 steps, 1–5 points) 10,000 items make a few hundred cells at most;
// with continuous scores there are about as many cells as items and the cost is that of a pass
// over the items, as before. The count is shared: a report counts once per resample for all its
// figures (see calibration/report.ts), and the *On factories in resample.ts / resample-rank.ts
// are these statistics on their own count, so both give the same numbers to the last digit.

import { assertFinite, assertSameLength } from './basic.ts';
import { betterThreshold, type Confusion, type ThresholdChoice } from './binary.ts';
import type { IndexStat } from './bootstrap.ts';
import { tauBFromCounts } from './correlation.ts';

export interface Cells {
  /** Item → its cell. */
  readonly cellOf: Uint32Array;
  /** Per cell, cells sorted by (x, y). */
  readonly x: Float64Array;
  readonly y: Float64Array;
  /** Per cell: one past the last cell with the same x. */
  readonly xRunEnd: Uint32Array;
  /** Per cell: dense 0-based rank of its y; vy = number of distinct y. */
  readonly yRank: Uint32Array;
  readonly vy: number;
  /** Cells in (y, x) order, and per position of that order one past the last position with the same y. */
  readonly yOrder: Uint32Array;
  readonly yRunEnd: Uint32Array;
  /** Per cell: how many items it holds (the full sample as a resample: every figure's point value, see fullSample). */
  readonly size: Float64Array;
}

/** A statistic of a resample given as cell multiplicities w (m = Σ w, the resample size); null when undefined. */
export type CellStat = (w: Float64Array, m: number) => number | null;

/** Groups items by distinct (x, y). O(n log n), once per data set. */
export function cellsOf(x: ArrayLike<number>, y: ArrayLike<number>): Cells {
  assertSameLength(x, y, 'x and y');
  assertFinite(x, 'x');
  assertFinite(y, 'y');
  const n = x.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((i, j) => x[i]! - x[j]! || y[i]! - y[j]!);
  const cellOf = new Uint32Array(n);
  const cx = new Float64Array(n);
  const cy = new Float64Array(n);
  const sizes = new Float64Array(n);
  let cells = 0;
  for (let p = 0; p < n; p++) {
    const i = order[p]!;
    if (cells === 0 || x[i] !== cx[cells - 1] || y[i] !== cy[cells - 1]) {
      cx[cells] = x[i]!;
      cy[cells] = y[i]!;
      cells++;
    }
    sizes[cells - 1]! += 1;
    cellOf[i] = cells - 1;
  }
  const xs = cx.slice(0, cells);
  const ys = cy.slice(0, cells);
  const xRunEnd = new Uint32Array(cells);
  for (let p = 0; p < cells; ) {
    let q = p + 1;
    while (q < cells && xs[q] === xs[p]) q++;
    xRunEnd.fill(q, p, q);
    p = q;
  }
  const yOrder = new Uint32Array(cells);
  for (let c = 0; c < cells; c++) yOrder[c] = c;
  yOrder.sort((a, b) => ys[a]! - ys[b]! || a - b);
  const yRank = new Uint32Array(cells);
  const yRunEnd = new Uint32Array(cells);
  let r = -1;
  for (let p = 0; p < cells; ) {
    let q = p + 1;
    while (q < cells && ys[yOrder[q]!] === ys[yOrder[p]!]) q++;
    r++;
    for (let k = p; k < q; k++) yRank[yOrder[k]!] = r;
    yRunEnd.fill(q, p, q);
    p = q;
  }
  return { cellOf, x: xs, y: ys, xRunEnd, yRank, vy: r + 1, yOrder, yRunEnd, size: sizes.slice(0, cells) };
}

/** A statistic's value on the full sample (every cell at its size): the point figure, from the one sort cellsOf made. */
export function fullSample(cells: Cells, stat: CellStat): number | null {
  return stat(cells.size, cells.cellOf.length);
}

/**
 * Tie-averaged 1-based ranks of x and of y for every item (what averageRanks gives: equal values
 * share the mean of their positions), read off the cells' sorted orders instead of two more sorts.
 * Ranks are halves of integers, exact in floating point, so they equal averageRanks' to the bit.
 */
export function itemRanks(cells: Cells): { x: Float64Array; y: Float64Array } {
  const { xRunEnd, yOrder, yRunEnd, size, cellOf } = cells;
  const k = size.length;
  const rx = new Float64Array(k);
  const ry = new Float64Array(k);
  let below = 0;
  for (let p = 0; p < k; ) {
    const end = xRunEnd[p]!;
    let run = 0;
    for (let c = p; c < end; c++) run += size[c]!;
    const rank = below + (run + 1) / 2;
    for (let c = p; c < end; c++) rx[c] = rank;
    below += run;
    p = end;
  }
  below = 0;
  for (let p = 0; p < k; ) {
    const end = yRunEnd[p]!;
    let run = 0;
    for (let q = p; q < end; q++) run += size[yOrder[q]!]!;
    const rank = below + (run + 1) / 2;
    for (let q = p; q < end; q++) ry[yOrder[q]!] = rank;
    below += run;
    p = end;
  }
  const n = cellOf.length;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = rx[cellOf[i]!]!;
    y[i] = ry[cellOf[i]!]!;
  }
  return { x, y };
}

/** How often each cell occurs in the resample idx (w has one slot per cell). */
export function countCells(cells: Cells, idx: Uint32Array, w: Float64Array): void {
  w.fill(0);
  const cellOf = cells.cellOf;
  for (let k = 0; k < idx.length; k++) w[cellOf[idx[k]!]!]! += 1;
}

/** A CellStat as an IndexStat: counts the cells of each resample itself. */
export function onIndices(cells: Cells, stat: CellStat): IndexStat {
  const w = new Float64Array(cells.x.length);
  return (idx) => {
    countCells(cells, idx, w);
    return stat(w, idx.length);
  };
}

/** True when every drawn cell has the same x (cells are in x order: compare the first and last drawn). */
function xConstant(c: Cells, w: Float64Array): boolean {
  let a = 0;
  let b = w.length - 1;
  while (a < b && w[a] === 0) a++;
  while (b > a && w[b] === 0) b--;
  return c.x[a] === c.x[b];
}

/** True when every drawn cell has the same y (first and last drawn in y order). */
function yConstant(c: Cells, w: Float64Array): boolean {
  const o = c.yOrder;
  let a = 0;
  let b = o.length - 1;
  while (a < b && w[o[a]!] === 0) a++;
  while (b > a && w[o[b]!] === 0) b--;
  return c.y[o[a]!] === c.y[o[b]!];
}

/** Pearson correlation; null when either side is constant on the resample. */
export function pearsonCells(c: Cells): CellStat {
  const { x, y } = c;
  const cells = x.length;
  return (w, m) => {
    if (m < 2 || xConstant(c, w) || yConstant(c, w)) return null;
    let sx = 0;
    let sy = 0;
    for (let k = 0; k < cells; k++) {
      sx += w[k]! * x[k]!;
      sy += w[k]! * y[k]!;
    }
    const mx = sx / m;
    const my = sy / m;
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    for (let k = 0; k < cells; k++) {
      const wk = w[k]!;
      const dx = x[k]! - mx;
      const dy = y[k]! - my;
      sxy += wk * dx * dy;
      sxx += wk * dx * dx;
      syy += wk * dy * dy;
    }
    return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
  };
}

/** Spearman's ρ: tie-averaged ranks of the resample, from one walk of each sorted order. */
export function spearmanCells(c: Cells): CellStat {
  const { xRunEnd, yOrder, yRunEnd } = c;
  const cells = c.x.length;
  const rx = new Float64Array(cells);
  const ry = new Float64Array(cells);
  return (w, m) => {
    if (m < 2) return null;
    let below = 0;
    for (let p = 0; p < cells; ) {
      const end = xRunEnd[p]!;
      let runWeight = 0;
      for (let k = p; k < end; k++) runWeight += w[k]!;
      const rank = below + (runWeight + 1) / 2;
      for (let k = p; k < end; k++) rx[k] = rank;
      below += runWeight;
      p = end;
    }
    below = 0;
    for (let p = 0; p < cells; ) {
      const end = yRunEnd[p]!;
      let runWeight = 0;
      for (let k = p; k < end; k++) runWeight += w[yOrder[k]!]!;
      const rank = below + (runWeight + 1) / 2;
      for (let k = p; k < end; k++) ry[yOrder[k]!] = rank;
      below += runWeight;
      p = end;
    }
    // Average ranks always have mean (m + 1)/2, and that value is exact in floating point.
    const mid = (m + 1) / 2;
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    for (let k = 0; k < cells; k++) {
      const wk = w[k]!;
      const dx = rx[k]! - mid;
      const dy = ry[k]! - mid;
      sxy += wk * dx * dy;
      sxx += wk * dx * dx;
      syy += wk * dy * dy;
    }
    if (sxx === 0 || syy === 0) return null;
    return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
  };
}

/**
 * Kendall's τ-b: cells are in (x, y) order, so one walk with a Fenwick tree over y ranks counts
 * the discordant pairs (O(cells · log vy)). Repeats of one cell are pairs tied in both x and y.
 */
export function kendallCells(c: Cells): CellStat {
  const { xRunEnd, yRank, vy } = c;
  const cells = c.x.length;
  const tree = new Float64Array(vy + 1); // Fenwick tree, 1-based, over y ranks
  const yCount = new Float64Array(vy);
  return (w, m) => {
    if (m < 2) return null;
    tree.fill(0);
    yCount.fill(0);
    let inserted = 0;
    let xTies = 0;
    let jointTies = 0;
    let discordant = 0;
    for (let p = 0; p < cells; ) {
      const end = xRunEnd[p]!;
      let runWeight = 0;
      // Query the whole x-run before inserting it, so only strictly smaller x are counted.
      for (let k = p; k < end; k++) {
        const wk = w[k]!;
        if (wk === 0) continue;
        const r = yRank[k]!;
        let atMost = 0; // inserted weight with y rank <= r
        for (let t = r + 1; t > 0; t -= t & -t) atMost += tree[t]!;
        discordant += wk * (inserted - atMost);
        jointTies += (wk * (wk - 1)) / 2;
        runWeight += wk;
      }
      xTies += (runWeight * (runWeight - 1)) / 2;
      for (let k = p; k < end; k++) {
        const wk = w[k]!;
        if (wk === 0) continue;
        const r = yRank[k]!;
        yCount[r]! += wk;
        for (let t = r + 1; t <= vy; t += t & -t) tree[t]! += wk;
      }
      inserted += runWeight;
      p = end;
    }
    let yTies = 0;
    for (let r = 0; r < vy; r++) yTies += (yCount[r]! * (yCount[r]! - 1)) / 2;
    return tauBFromCounts(m, xTies, yTies, jointTies, discordant);
  };
}

/** MAE or RMSE of x against y. */
export function errorCells(c: Cells, kind: 'mae' | 'rmse'): CellStat {
  const cells = c.x.length;
  const d = new Float64Array(cells);
  for (let k = 0; k < cells; k++) {
    const v = c.x[k]! - c.y[k]!;
    d[k] = kind === 'mae' ? Math.abs(v) : v * v;
  }
  return (w, m) => {
    if (m === 0) return null;
    let s = 0;
    for (let k = 0; k < cells; k++) s += w[k]! * d[k]!;
    return kind === 'mae' ? s / m : Math.sqrt(s / m);
  };
}

/** ROC AUC of x for the items with y = 1 against the rest (ties count one half); null when a class is absent. */
export function rocAucCells(c: Cells): CellStat {
  const { xRunEnd, y } = c;
  const cells = c.x.length;
  return (w) => {
    let negBelow = 0;
    let wins = 0;
    let pos = 0;
    for (let p = 0; p < cells; ) {
      const end = xRunEnd[p]!;
      let runPos = 0;
      let runNeg = 0;
      for (let k = p; k < end; k++) {
        if (y[k] === 1) runPos += w[k]!;
        else runNeg += w[k]!;
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

/** Any confusion-based figure at a fixed threshold: the judge passes when x >= threshold, the expert when y = 1. */
export function confusionCells(c: Cells, threshold: number, metric: (k: Confusion) => number | null): CellStat {
  const cells = c.x.length;
  const code = new Uint8Array(cells); // bit 1 = judge passes, bit 0 = expert passes
  for (let k = 0; k < cells; k++) code[k] = (c.x[k]! >= threshold ? 2 : 0) | (c.y[k] === 1 ? 1 : 0);
  const counts = new Float64Array(4);
  return (w) => {
    counts.fill(0);
    for (let k = 0; k < cells; k++) counts[code[k]!]! += w[k]!;
    return metric({ tn: counts[0]!, fn: counts[1]!, fp: counts[2]!, tp: counts[3]! });
  };
}

/**
 * Cohen's κ (unweighted or quadratic) with rows = y − offset (the gold) and columns = x − offset
 * (the judge), both integer category indices in 0..k−1. Null on a resample whose rows all fall
 * in one category.
 */
export function kappaCells(c: Cells, offset: number, k: number, weights: 'none' | 'quadratic'): CellStat {
  const cells = c.x.length;
  const rows = new Uint32Array(cells);
  const cols = new Uint32Array(cells);
  for (let j = 0; j < cells; j++) {
    const r = c.y[j]! - offset;
    const q = c.x[j]! - offset;
    if (!Number.isInteger(r) || !Number.isInteger(q) || r < 0 || q < 0 || r >= k || q >= k) throw new RangeError('kappaCells: values must be category indices');
    rows[j] = r;
    cols[j] = q;
  }
  const table = new Float64Array(k * k);
  const rowTotals = new Float64Array(k);
  const colTotals = new Float64Array(k);
  const wt = new Float64Array(k * k);
  for (let r = 0; r < k; r++) for (let q = 0; q < k; q++) wt[r * k + q] = weights === 'none' ? (r === q ? 0 : 1) : (r - q) * (r - q);
  return (w, m) => {
    if (m === 0) return null;
    table.fill(0);
    rowTotals.fill(0);
    colTotals.fill(0);
    for (let j = 0; j < cells; j++) {
      const wj = w[j]!;
      table[rows[j]! * k + cols[j]!]! += wj;
      rowTotals[rows[j]!]! += wj;
      colTotals[cols[j]!]! += wj;
    }
    let rowsUsed = 0;
    for (let r = 0; r < k; r++) if (rowTotals[r]! > 0) rowsUsed++;
    if (rowsUsed < 2) return null;
    let observed = 0;
    let expected = 0;
    for (let r = 0; r < k; r++) {
      for (let q = 0; q < k; q++) {
        observed += wt[r * k + q]! * table[r * k + q]!;
        expected += wt[r * k + q]! * rowTotals[r]! * colTotals[q]!;
      }
    }
    return expected === 0 ? null : 1 - (observed * m) / expected;
  };
}

/**
 * bestThreshold on the full sample, from the cells (x = score, y = 1 for an expert pass): the same
 * sweep over the distinct scores from the highest down, with the same counts, so the same choice.
 */
export function bestThresholdCells(c: Cells): ThresholdChoice | null {
  const { x, y, size } = c;
  const cells = x.length;
  let totalPos = 0;
  let totalNeg = 0;
  for (let k = 0; k < cells; k++) {
    if (y[k] === 1) totalPos += size[k]!;
    else totalNeg += size[k]!;
  }
  if (totalPos === 0 || totalNeg === 0) return null;
  let best: ThresholdChoice | null = null;
  let tp = 0;
  let fp = 0;
  for (let end = cells; end > 0; ) {
    const t = x[end - 1]!;
    let p = end - 1;
    while (p > 0 && x[p - 1] === t) p--;
    for (let k = p; k < end; k++) {
      if (y[k] === 1) tp += size[k]!;
      else fp += size[k]!;
    }
    best = betterThreshold(best, t, { tp, fp, tn: totalNeg - fp, fn: totalPos - tp });
    end = p;
  }
  return best;
}

/** What binaryCells gives for one resample (the same object each time: read it before the next). */
export interface BinaryOfResample { confusion: Confusion; rocAuc: number | null }

/**
 * The confusion count at a fixed threshold (judge passes when x >= threshold, expert when y = 1)
 * and ROC AUC, from one walk of the cells in x order: what confusionCells and rocAucCells give,
 * to the bit (all are sums of whole and half counts, exact in floating point). The cells at and
 * above the threshold are a suffix of the x order, so the confusion is the walk's totals split there.
 */
export function binaryCells(c: Cells, threshold: number): (w: Float64Array) => BinaryOfResample {
  const { x, xRunEnd } = c;
  const cells = x.length;
  const positive = Float64Array.from(c.y, (v) => (v === 1 ? 1 : 0));
  let firstPass = 0;
  while (firstPass < cells && !(x[firstPass]! >= threshold)) firstPass++;
  let untied = true;
  for (let k = 0; k < cells; k++) if (xRunEnd[k] !== k + 1) untied = false;
  const confusion: Confusion = { tp: 0, fp: 0, tn: 0, fn: 0 };
  const out: BinaryOfResample = { confusion, rocAuc: null };
  return (w) => {
    let negBelow = 0;
    let wins = 0;
    let pos = 0;
    let posFailed = 0;
    let negFailed = 0;
    if (untied) {
      // Every score distinct among the cells: a run is one cell, either a pass or a fail.
      for (let k = 0; k < cells; k++) {
        if (k === firstPass) {
          posFailed = pos;
          negFailed = negBelow;
        }
        const pk = w[k]! * positive[k]!;
        wins += pk * negBelow;
        negBelow += w[k]! - pk;
        pos += pk;
      }
    } else {
      for (let p = 0; p < cells; ) {
        if (p === firstPass) {
          posFailed = pos;
          negFailed = negBelow;
        }
        const end = xRunEnd[p]!;
        let runPos = 0;
        let runNeg = 0;
        for (let k = p; k < end; k++) {
          const pk = w[k]! * positive[k]!;
          runPos += pk;
          runNeg += w[k]! - pk;
        }
        wins += runPos * (negBelow + runNeg / 2);
        negBelow += runNeg;
        pos += runPos;
        p = end;
      }
    }
    if (firstPass === cells) {
      posFailed = pos;
      negFailed = negBelow;
    }
    confusion.fn = posFailed;
    confusion.tn = negFailed;
    confusion.tp = pos - posFailed;
    confusion.fp = negBelow - negFailed;
    out.rocAuc = pos === 0 || negBelow === 0 ? null : wins / (pos * negBelow);
    return out;
  };
}
