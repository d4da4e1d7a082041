// Shared building blocks for the statistics modules: input validation, means,
// tie-averaged ranks, quantiles and label ordering. Pure functions, no I/O.

/** A label given by an annotator or expert; nominal statistics accept any of these. */
export type Label = string | number | boolean;

/** Throws when two paired inputs differ in length: a silent truncation would hide a join bug upstream. */
export function assertSameLength(a: ArrayLike<unknown>, b: ArrayLike<unknown>, what = 'inputs'): void {
  if (a.length !== b.length) {
    throw new RangeError(`${what} must have equal lengths (got ${a.length} and ${b.length})`);
  }
}

/** Throws on NaN/±Infinity: they would otherwise leak out as NaN figures. */
export function assertFinite(values: ArrayLike<number>, what = 'values'): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new RangeError(`${what}[${i}] is not a finite number`);
    }
  }
}

export function mean(values: ArrayLike<number>): number | null {
  if (values.length === 0) return null;
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return s / values.length;
}

/** True when every value equals the first; exact comparison because a computed variance of identical floats can be a tiny non-zero. */
export function isConstant(values: ArrayLike<number>): boolean {
  const first = values[0];
  for (let i = 1; i < values.length; i++) if (values[i] !== first) return false;
  return true;
}

/** Indices 0..n-1 ordered by value ascending (stable). */
export function argsort(values: ArrayLike<number>): Uint32Array {
  const order = new Uint32Array(values.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((i, j) => values[i]! - values[j]! || i - j);
  return order;
}

/** 1-based ranks with ties given the average of the ranks they span (the "fractional" ranking Spearman needs). */
export function averageRanks(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const order = argsort(values);
  const ranks = new Float64Array(n);
  let i = 0;
  while (i < n) {
    let j = i + 1;
    const v = values[order[i]!];
    while (j < n && values[order[j]!] === v) j++;
    // Positions i..j-1 (0-based) share ranks i+1..j, whose average is (i+1+j)/2.
    const r = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) ranks[order[k]!] = r;
    i = j;
  }
  return ranks;
}

/** 0-based ranks where equal values share a rank and ranks have no gaps; `distinct` = number of ranks. */
export function denseRanks(values: ArrayLike<number>): { ranks: Uint32Array; distinct: number } {
  const order = argsort(values);
  const ranks = new Uint32Array(values.length);
  let r = -1;
  for (let k = 0; k < order.length; k++) {
    if (k === 0 || values[order[k]!] !== values[order[k - 1]!]) r++;
    ranks[order[k]!] = r;
  }
  return { ranks, distinct: r + 1 };
}

/**
 * Quantile of an ascending-sorted array by linear interpolation between order statistics
 * (Hyndman & Fan 1996 type 7, the default of R and NumPy), so results match common tools.
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  if (n === 0 || !(p >= 0 && p <= 1)) return null;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  const a = sorted[lo]!;
  return a + (h - lo) * (sorted[hi]! - a);
}

function typeRank(v: Label): number {
  return typeof v === 'boolean' ? 0 : typeof v === 'number' ? 1 : 2;
}

/**
 * Total order on labels: booleans (false < true), then numbers ascending, then strings by code
 * unit. Locale-independent so category order never depends on the server's locale.
 */
export function compareLabels(a: Label, b: Label): number {
  const ta = typeRank(a);
  const tb = typeRank(b);
  if (ta !== tb) return ta - tb;
  if (a === b) return 0;
  return (a as number | string) < (b as number | string) ? -1 : 1;
}

/** Distinct labels in {@link compareLabels} order. */
export function distinctSorted<T extends Label>(values: Iterable<T>): T[] {
  return [...new Set(values)].sort(compareLabels);
}
