// Sufficient statistics of the reliability figures (Krippendorff's α, Fleiss' κ, percent agreement)
// over units of value codes (small non-negative integers standing for the distinct labels). Every
// figure is a function of these counts, and they are integers, so adding a unit and taking it away
// again leaves them exactly as before: a kept copy can follow a change of one unit instead of
// counting a whole dataset again, and gives the same figures bit for bit as counting afresh.
//
// What is counted, per unit u holding m_u values of which n_uc equal code c:
// - units by size m (every size, 1 included) and their agreeing value pairs Σ_c C(n_uc, 2) by size;
// - for units with m_u ≥ 2 (the pairable ones): n_c (values per code), Σ_c n_uc², and, by size m,
//   Σ_u n_uc·n_uk for every pair of codes c < k: Krippendorff's coincidence o_ck is the sum over m
//   of these counts / (m − 1), so the matrix is kept without a division.

import type { Label } from './basic.ts';

/** Codes below this (2^26) pack a code pair c·CODE_SPAN + k exactly into a number. */
export const CODE_SPAN = 1 << 26;

export class UnitCounts {
  /** Per code: how many values of pairable units have it (n_c; Fleiss' column totals). */
  readonly marginal: number[] = [];
  /** Index m: how many units hold m values. */
  readonly unitsBySize: number[] = [];
  /** Index m: agreeing value pairs summed over the units holding m values. */
  readonly agreeingBySize: number[] = [];
  /** Per unit size m ≥ 2: code pair c·CODE_SPAN + k (c < k) → Σ_u n_uc·n_uk. */
  readonly pairsBySize = new Map<number, Map<number, number>>();
  private readonly totals = { sumSquares: 0 };

  /** Σ over pairable units of Σ_c n_uc² (Fleiss). */
  get sumSquares(): number {
    return this.totals.sumSquares;
  }

  /** Adds a unit's value codes (sign 1) or takes a unit added before away again (sign −1). */
  add(codes: readonly number[], sign: 1 | -1): void {
    const m = codes.length;
    if (m === 0) return;
    this.unitsBySize[m] = (this.unitsBySize[m] ?? 0) + sign;
    if (m < 2) return;
    const local = codeCounts(codes);
    let agreeing = 0;
    for (const [c, n] of local) {
      if (c >= CODE_SPAN) throw new RangeError(`unit counts: code ${c} out of range`);
      this.marginal[c] = (this.marginal[c] ?? 0) + sign * n;
      this.totals.sumSquares += sign * n * n;
      agreeing += (n * (n - 1)) / 2;
    }
    this.agreeingBySize[m] = (this.agreeingBySize[m] ?? 0) + sign * agreeing;
    if (local.size < 2) return; // a unanimous unit adds no coincidence of two different values
    let pairs = this.pairsBySize.get(m);
    if (!pairs) this.pairsBySize.set(m, (pairs = new Map()));
    const entries = [...local];
    for (let a = 0; a < entries.length; a++) {
      for (let b = a + 1; b < entries.length; b++) {
        const [c, nc] = entries[a]!;
        const [k, nk] = entries[b]!;
        const key = c < k ? c * CODE_SPAN + k : k * CODE_SPAN + c;
        const now = (pairs.get(key) ?? 0) + sign * nc * nk;
        if (now === 0) pairs.delete(key);
        else pairs.set(key, now);
      }
    }
  }

  /** Units with at least two values. */
  pairableUnits(): number {
    let n = 0;
    for (let m = 2; m < this.unitsBySize.length; m++) n += this.unitsBySize[m] ?? 0;
    return n;
  }

  /** Units with at least one value. */
  units(): number {
    return (this.unitsBySize[1] ?? 0) + this.pairableUnits();
  }

  /** The number of values every pairable unit holds, or null when it differs between them (or there is none). */
  commonSize(): number | null {
    let size: number | null = null;
    for (let m = 2; m < this.unitsBySize.length; m++) {
      if (!this.unitsBySize[m]) continue;
      if (size !== null) return null;
      size = m;
    }
    return size;
  }
}

/** How many times each code occurs in a unit. */
function codeCounts(codes: readonly number[]): Map<number, number> {
  const local = new Map<number, number>();
  for (const c of codes) local.set(c, (local.get(c) ?? 0) + 1);
  return local;
}

/**
 * Codes labels as they come (first seen, first code) and counts the units: the route from label
 * lists to UnitCounts for the functions that take units of labels.
 */
export function unitCountsOf(units: Iterable<readonly Label[]>): { counts: UnitCounts; values: Label[] } {
  const counts = new UnitCounts();
  const values: Label[] = [];
  const code = new Map<Label, number>();
  for (const unit of units) {
    counts.add(unit.map((v) => {
      let c = code.get(v);
      if (c === undefined) code.set(v, (c = values.push(v) - 1));
      return c;
    }), 1);
  }
  return { counts, values };
}

/**
 * The correctly rounded sum of `terms` (Shewchuk's exact partials, as Python's math.fsum): the same
 * result whatever order the terms come in, so kept counts visited in another order give the same figure.
 */
export function exactSum(terms: Iterable<number>): number {
  const partials: number[] = [];
  let plain = 0;
  for (let x of terms) {
    plain += x;
    let i = 0;
    for (let y of partials) {
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) partials[i++] = lo;
      x = hi;
    }
    partials.length = i;
    partials.push(x);
  }
  if (!Number.isFinite(plain)) return plain; // an overflow or a non-finite term: nothing exact to say
  // Add the partials from the largest down and round the result once, half-way cases included.
  let n = partials.length;
  if (n === 0) return 0;
  let hi = partials[--n]!;
  let lo = 0;
  while (n > 0) {
    const x = hi;
    const y = partials[--n]!;
    hi = x + y;
    lo = y - (hi - x);
    if (lo !== 0) break;
  }
  if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
    const y = lo * 2;
    const x = hi + y;
    if (y === x - hi) hi = x;
  }
  return hi;
}
