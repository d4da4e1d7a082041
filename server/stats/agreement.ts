// Inter-annotator agreement on categorical labels: Cohen's kappa (unweighted and
// weighted), Fleiss' kappa, raw percent agreement and pairwise Cohen between annotators.
// Krippendorff's alpha lives in krippendorff.ts.
//
// percentAgreement definition: for every item with at least two labels, the share of
// unordered label pairs within that item that agree (Σ_c C(n_c, 2) / C(m, 2)); the result
// is the unweighted mean of that share over those items, so each item counts once
// regardless of how many annotators labelled it. Items with fewer than two labels are
// skipped; null when no item has two.

import { compareLabels, distinctSorted } from './basic.ts';
import type { Label } from './basic.ts';
import type { ReliabilityUnits } from './krippendorff.ts';
import { unitCountsOf, type UnitCounts } from './unit-counts.ts';

export type KappaWeights = 'none' | 'linear' | 'quadratic';

export interface CohenOptions {
  /** 'none' (default) for nominal labels; 'linear'/'quadratic' penalise by distance between category positions. */
  weights?: KappaWeights;
  /**
   * Category order, required to be meaningful for weighted kappa. Weights use positions in
   * this list (0, 1, 2, ...), not the label values. Defaults to the distinct labels sorted
   * (booleans, then numbers ascending, then strings). Labels outside the list throw.
   */
  categories?: readonly Label[];
}

function checkLabel(v: Label): void {
  if (typeof v === 'number' && !Number.isFinite(v)) throw new RangeError('labels must be finite numbers, strings or booleans');
}

/**
 * Cohen's kappa for two raters' paired labels, in disagreement form so one code path covers
 * the weighted variants (Cohen 1968): κ_w = 1 − Σ w_ij o_ij / Σ w_ij e_ij with w_ij = 0,
 * |i−j| or (i−j)² (the usual 1/(k−1) scaling cancels). Unweighted this equals
 * (p_o − p_e)/(1 − p_e). Null for empty input or when chance disagreement is 0
 * (expected agreement 1, e.g. both raters used one and the same category throughout).
 */
export function cohenKappa(a: readonly Label[], b: readonly Label[], options: CohenOptions = {}): number | null {
  if (a.length !== b.length) throw new RangeError(`cohenKappa: raters must have equal lengths (got ${a.length} and ${b.length})`);
  const n = a.length;
  if (n === 0) return null;
  for (let i = 0; i < n; i++) {
    checkLabel(a[i]!);
    checkLabel(b[i]!);
  }
  const categories = options.categories ?? distinctSorted([...a, ...b]);
  const index = new Map<Label, number>();
  categories.forEach((c, i) => {
    if (index.has(c)) throw new RangeError(`cohenKappa: duplicate category ${JSON.stringify(c)}`);
    index.set(c, i);
  });
  const k = categories.length;
  const table = new Float64Array(k * k);
  for (let i = 0; i < n; i++) {
    const r = index.get(a[i]!);
    const c = index.get(b[i]!);
    if (r === undefined || c === undefined) {
      throw new RangeError(`cohenKappa: label ${JSON.stringify(r === undefined ? a[i] : b[i])} is not among the categories`);
    }
    table[r * k + c]! += 1;
  }
  return cohenFromTable(table, k, options.weights ?? 'none');
}

/**
 * Cohen's κ from a k×k table of counts (row: the first rater's category index, column: the
 * second's, row-major): the computation behind cohenKappa, for callers that keep the table.
 */
export function cohenFromTable(table: ArrayLike<number>, k: number, weights: KappaWeights): number | null {
  const rowTotals = new Float64Array(k);
  const colTotals = new Float64Array(k);
  let n = 0;
  for (let r = 0; r < k; r++) {
    for (let c = 0; c < k; c++) {
      const count = table[r * k + c]!;
      rowTotals[r]! += count;
      colTotals[c]! += count;
      n += count;
    }
  }
  if (n === 0) return null;
  const weight = weightFunction(weights);
  // Integer sums: exact, so "no chance disagreement" is detected without a tolerance.
  let observed = 0;
  let expected = 0;
  for (let r = 0; r < k; r++) {
    for (let c = 0; c < k; c++) {
      const w = weight(r, c);
      if (w === 0) continue;
      observed += w * table[r * k + c]!;
      expected += w * rowTotals[r]! * colTotals[c]!;
    }
  }
  if (expected === 0) return null;
  return 1 - (observed * n) / expected;
}

function weightFunction(weights: KappaWeights): (i: number, j: number) => number {
  switch (weights) {
    case 'none':
      return (i, j) => (i === j ? 0 : 1);
    case 'linear':
      return (i, j) => Math.abs(i - j);
    case 'quadratic':
      return (i, j) => (i - j) * (i - j);
  }
}

/**
 * Fleiss' (1971) kappa. table[i][k] = number of raters who put item i in category k.
 * Every row must sum to the same n ≥ 2 (else null, since the formula assumes a fixed
 * number of ratings per item; use Krippendorff's alpha otherwise). Null when all ratings
 * fall in one category. Throws on ragged rows or counts that are not non-negative integers.
 */
export function fleissKappa(table: ReadonlyArray<ReadonlyArray<number>>): number | null {
  const items = table.length;
  if (items === 0) return null;
  const k = table[0]!.length;
  const colTotals = new Float64Array(k);
  let raters = -1;
  let sumSquares = 0;
  for (const row of table) {
    if (row.length !== k) throw new RangeError('fleissKappa: every row needs the same number of categories');
    let rowSum = 0;
    for (let j = 0; j < k; j++) {
      const v = row[j]!;
      if (!Number.isInteger(v) || v < 0) throw new RangeError('fleissKappa: counts must be non-negative integers');
      rowSum += v;
      colTotals[j]! += v;
      sumSquares += v * v;
    }
    if (raters === -1) raters = rowSum;
    else if (rowSum !== raters) return null;
  }
  return fleissFromCounts(items, raters, sumSquares, colTotals);
}

/**
 * Fleiss' κ from its sufficient statistics: `items` items with `raters` ratings each, Σ n_ij² over
 * items and categories, and the category totals (the computation behind fleissKappa).
 */
export function fleissFromCounts(items: number, raters: number, sumSquares: number, colTotals: ArrayLike<number>): number | null {
  if (items === 0 || raters < 2) return null;
  const total = items * raters;
  let sumColSquares = 0;
  for (let j = 0; j < colTotals.length; j++) sumColSquares += (colTotals[j] ?? 0) * (colTotals[j] ?? 0);
  // 1 − P̄_e = (total² − Σ col²)/total²; zero only when one category received every rating.
  const chanceDisagreement = total * total - sumColSquares;
  if (chanceDisagreement === 0) return null;
  const pBar = (sumSquares - total) / (total * (raters - 1));
  const pE = sumColSquares / (total * total);
  return (pBar - pE) / (1 - pE);
}

/** Builds a Fleiss count table from per-item label lists (missing entries skipped). */
export function countTable(units: ReliabilityUnits, categories?: readonly Label[]): { categories: Label[]; table: number[][] } {
  const present = units.map((u) => u.filter((v): v is Label => v !== null && v !== undefined));
  const cats = categories ? [...categories] : distinctSorted(present.flat());
  const index = new Map<Label, number>(cats.map((c, i) => [c, i]));
  const table = present.map((u) => {
    const row = new Array<number>(cats.length).fill(0);
    for (const v of u) {
      const i = index.get(v);
      if (i === undefined) throw new RangeError(`countTable: label ${JSON.stringify(v)} is not among the categories`);
      row[i]! += 1;
    }
    return row;
  });
  return { categories: cats, table };
}

/** Mean within-item share of agreeing label pairs; see the module header for the exact definition. */
export function percentAgreement(units: ReliabilityUnits): number | null {
  return percentAgreementFromCounts(unitCountsOf(units.map((u) => u.filter((v): v is Label => v !== null && v !== undefined))).counts);
}

/** percentAgreement from unit counts (unit-counts.ts): the shares of the units of each size summed at once. */
export function percentAgreementFromCounts(counts: UnitCounts): number | null {
  const items = counts.pairableUnits();
  if (items === 0) return null;
  let sum = 0;
  for (let m = 2; m < counts.agreeingBySize.length; m++) sum += (counts.agreeingBySize[m] ?? 0) / ((m * (m - 1)) / 2);
  return sum / items;
}

export interface PairwiseKappa<A> {
  a: A;
  b: A;
  /** Items both annotators labelled. */
  n: number;
  kappa: number | null;
}

/**
 * Cohen's kappa for every pair of annotators (in map insertion order, a before b) over
 * the items both labelled. Without explicit categories, all labels seen across all
 * annotators form one shared category order, so weighted kappas are on the same scale.
 */
export function pairwiseCohen<A, I>(
  ratingsByAnnotator: ReadonlyMap<A, ReadonlyMap<I, Label>>,
  options: CohenOptions = {},
): PairwiseKappa<A>[] {
  let categories = options.categories;
  if (!categories) {
    const all = new Set<Label>();
    for (const ratings of ratingsByAnnotator.values()) for (const v of ratings.values()) all.add(v);
    categories = [...all].sort(compareLabels);
  }
  const opts: CohenOptions = { ...options, categories };
  const annotators = [...ratingsByAnnotator.entries()];
  const out: PairwiseKappa<A>[] = [];
  for (let i = 0; i < annotators.length; i++) {
    const [a, ra] = annotators[i]!;
    for (let j = i + 1; j < annotators.length; j++) {
      const [b, rb] = annotators[j]!;
      const la: Label[] = [];
      const lb: Label[] = [];
      for (const [item, va] of ra) {
        const vb = rb.get(item);
        if (vb === undefined) continue;
        la.push(va);
        lb.push(vb);
      }
      out.push({ a, b, n: la.length, kappa: cohenKappa(la, lb, opts) });
    }
  }
  return out;
}
