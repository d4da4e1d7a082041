// Correlation and error figures between two paired numeric series, e.g. expert scores
// against LLM-judge scores on the same items. All functions return null when the
// figure is undefined (too few items, constant input) and throw on unequal lengths.

import { assertFinite, assertSameLength, averageRanks, isConstant } from './basic.ts';

function checkPair(x: ArrayLike<number>, y: ArrayLike<number>): void {
  assertSameLength(x, y, 'x and y');
  assertFinite(x, 'x');
  assertFinite(y, 'y');
}

/** Pearson product-moment correlation (centred two-pass sums for numerical stability). */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  checkPair(x, y);
  const n = x.length;
  if (n < 2 || isConstant(x) || isConstant(y)) return null;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i]!;
    my += y[i]!;
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return null;
  const r = sxy / Math.sqrt(sxx * syy);
  // Rounding can push |r| a hair past 1 for perfectly linear data.
  return Math.max(-1, Math.min(1, r));
}

/** Spearman's rho: Pearson correlation of tie-averaged ranks (the standard tie handling). */
export function spearman(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  checkPair(x, y);
  if (x.length < 2 || isConstant(x) || isConstant(y)) return null;
  return pearson(averageRanks(x), averageRanks(y));
}

/**
 * Kendall's tau-b, exact, in O(n log n) by Knight's (1966) method: sort by (x, y), count
 * ties, then count discordant pairs as the inversions a merge sort on y has to undo.
 *   tau_b = (n0 - n1 - n2 + n3 - 2·D) / sqrt((n0 - n1)(n0 - n2))
 * with n0 = n(n-1)/2, n1/n2 = pairs tied in x/y, n3 = pairs tied in both, D = discordant
 * pairs; the numerator is concordant minus discordant because every pair untied in both
 * variables is one or the other. Null when either variable has no untied pair.
 */
export function kendallTauB(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  checkPair(x, y);
  const n = x.length;
  if (n < 2) return null;

  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((i, j) => x[i]! - x[j]! || y[i]! - y[j]!);

  const ys = new Float64Array(n);
  for (let i = 0; i < n; i++) ys[i] = y[order[i]!]!;

  let xTies = 0;
  let jointTies = 0;
  for (let i = 0; i < n; ) {
    const xi = x[order[i]!]!;
    let j = i + 1;
    while (j < n && x[order[j]!] === xi) j++;
    xTies += ((j - i) * (j - i - 1)) / 2;
    // Inside an x-tie run y is ascending, so equal y values are adjacent.
    for (let k = i; k < j; ) {
      let l = k + 1;
      while (l < j && ys[l] === ys[k]) l++;
      jointTies += ((l - k) * (l - k - 1)) / 2;
      k = l;
    }
    i = j;
  }

  // Within x-tie runs y is already ascending, so inversions only come from pairs with x_i < x_j.
  const discordant = sortCountingInversions(ys);

  let yTies = 0;
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && ys[j] === ys[i]) j++;
    yTies += ((j - i) * (j - i - 1)) / 2;
    i = j;
  }

  return tauBFromCounts(n, xTies, yTies, jointTies, discordant);
}

/** Tau-b from pair counts (see {@link kendallTauB}); null when either variable has no untied pair. */
export function tauBFromCounts(n: number, xTies: number, yTies: number, jointTies: number, discordant: number): number | null {
  const n0 = (n * (n - 1)) / 2;
  const denomX = n0 - xTies;
  const denomY = n0 - yTies;
  if (denomX === 0 || denomY === 0) return null;
  const tau = (n0 - xTies - yTies + jointTies - 2 * discordant) / Math.sqrt(denomX * denomY);
  return Math.max(-1, Math.min(1, tau));
}

/**
 * Sorts `a` ascending in place (bottom-up merge sort) and returns the number of pairs
 * i < j with a[i] > a[j]. Equal values are not inversions: ties in y are neither
 * concordant nor discordant.
 */
function sortCountingInversions(a: Float64Array<ArrayBuffer>): number {
  const n = a.length;
  let src = a;
  let dst = new Float64Array(n);
  let inversions = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        if (src[i]! <= src[j]!) {
          dst[k++] = src[i++]!;
        } else {
          // src[j] jumps over every element still waiting in the left run.
          inversions += mid - i;
          dst[k++] = src[j++]!;
        }
      }
      while (i < mid) dst[k++] = src[i++]!;
      while (j < hi) dst[k++] = src[j++]!;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src !== a) a.set(src);
  return inversions;
}

/** Mean absolute error between paired values; null for empty input. */
export function mae(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  checkPair(x, y);
  const n = x.length;
  if (n === 0) return null;
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.abs(x[i]! - y[i]!);
  return s / n;
}

/** Root mean squared error between paired values; null for empty input. */
export function rmse(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  checkPair(x, y);
  const n = x.length;
  if (n === 0) return null;
  let s = 0;
  for (let i = 0; i < n; i++) {
    const d = x[i]! - y[i]!;
    s += d * d;
  }
  return Math.sqrt(s / n);
}
