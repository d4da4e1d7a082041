// Krippendorff's alpha for any number of annotators with missing labels, following the
// coincidence-matrix formulation of Krippendorff (2011), "Computing Krippendorff's
// Alpha-Reliability":
//   alpha = 1 - D_o / D_e
//   D_o = (1/n) Σ_c Σ_k o_ck δ²_ck            o_ck = Σ_u (number of c-k pairs in unit u) / (m_u - 1)
//   D_e = 1/(n(n-1)) Σ_c Σ_k n_c n_k δ²_ck     n_c  = Σ_k o_ck,  n = Σ_c n_c
// Only units with at least two values are pairable; the others are ignored.
// The matrix is never materialised: the marginals n_c equal the number of pairable values
// equal to c, and D_o sums each unit's contribution to o_ck directly, so memory stays
// proportional to the number of distinct values even for continuous scores.

import { compareLabels } from './basic.ts';
import type { Label } from './basic.ts';

export type MeasurementLevel = 'nominal' | 'ordinal' | 'interval' | 'ratio';

export interface KrippendorffResult {
  /** null when nothing is pairable or only one distinct value occurs (D_e = 0). */
  alpha: number | null;
  observed_disagreement: number | null;
  expected_disagreement: number | null;
  /** n in the paper: number of values in pairable units. */
  n_pairable_values: number;
  /** Number of units (items) with at least two values. */
  n_items: number;
}

/** One array per item holding the labels it received; null/undefined entries count as missing. */
export type ReliabilityUnits = ReadonlyArray<ReadonlyArray<Label | null | undefined>>;

export function krippendorffAlpha(units: ReliabilityUnits, level: MeasurementLevel): KrippendorffResult {
  const pairable: Label[][] = [];
  for (const unit of units) {
    const present = unit.filter((v): v is Label => v !== null && v !== undefined);
    if (present.length >= 2) pairable.push(present);
  }
  for (const unit of pairable) for (const v of unit) checkValue(v, level);

  // Marginals n_c: each pairable value contributes exactly one to its row of the coincidence matrix.
  const counts = new Map<Label, number>();
  let n = 0;
  for (const unit of pairable) {
    for (const v of unit) counts.set(v, (counts.get(v) ?? 0) + 1);
    n += unit.length;
  }
  const values = [...counts.keys()].sort(compareLabels);
  const index = new Map<Label, number>();
  values.forEach((v, i) => index.set(v, i));
  const marg = values.map((v) => counts.get(v)!);

  const sizes = { n_pairable_values: n, n_items: pairable.length };
  if (values.length < 2) {
    // A single value (or none) leaves no variation to tell agreement apart from chance.
    const d = n > 0 ? 0 : null;
    return { alpha: null, observed_disagreement: d, expected_disagreement: d, ...sizes };
  }

  const delta2 = distanceFunction(level, values, marg);

  let observedSum = 0;
  for (const unit of pairable) {
    const local = new Map<number, number>();
    for (const v of unit) {
      const c = index.get(v)!;
      local.set(c, (local.get(c) ?? 0) + 1);
    }
    if (local.size < 2) continue; // unanimous unit: every pair has δ = 0
    const entries = [...local.entries()];
    let unitSum = 0;
    for (let a = 0; a < entries.length; a++) {
      const [c, nc] = entries[a]!;
      for (let b = a + 1; b < entries.length; b++) {
        const [k, nk] = entries[b]!;
        unitSum += nc * nk * delta2(c, k);
      }
    }
    // Ordered pairs (c,k) and (k,c) both count, hence 2·.
    observedSum += (2 * unitSum) / (unit.length - 1);
  }

  const expectedSum = expectedDisagreementSum(level, values, marg, delta2);
  const dObserved = observedSum / n;
  const dExpected = expectedSum / (n * (n - 1));
  const alpha = dExpected > 0 ? 1 - dObserved / dExpected : null;
  return { alpha, observed_disagreement: dObserved, expected_disagreement: dExpected, ...sizes };
}

function checkValue(v: Label, level: MeasurementLevel): void {
  if (typeof v === 'number' && !Number.isFinite(v)) throw new RangeError('krippendorffAlpha: non-finite value');
  if (level === 'nominal') return;
  if (typeof v !== 'number') throw new TypeError(`krippendorffAlpha: ${level} level needs numeric values, got ${JSON.stringify(v)}`);
  if (level === 'ratio' && v < 0) throw new RangeError('krippendorffAlpha: ratio level needs non-negative values');
}

/** δ²_ck for value indices c, k (values sorted ascending). */
function distanceFunction(level: MeasurementLevel, values: readonly Label[], marg: readonly number[]): (c: number, k: number) => number {
  switch (level) {
    case 'nominal':
      return (c, k) => (c === k ? 0 : 1);
    case 'interval': {
      const v = values as readonly number[];
      return (c, k) => (v[c]! - v[k]!) ** 2;
    }
    case 'ratio': {
      const v = values as readonly number[];
      return (c, k) => {
        const s = v[c]! + v[k]!;
        return s === 0 ? 0 : ((v[c]! - v[k]!) / s) ** 2;
      };
    }
    case 'ordinal': {
      // δ_ck = Σ_{g=c..k} n_g − (n_c + n_k)/2: distance in cumulative marginal frequency, so
      // only the order of values matters, not their spacing.
      const prefix = new Float64Array(marg.length + 1);
      for (let g = 0; g < marg.length; g++) prefix[g + 1] = prefix[g]! + marg[g]!;
      return (c, k) => {
        const lo = Math.min(c, k);
        const hi = Math.max(c, k);
        if (lo === hi) return 0;
        const d = prefix[hi + 1]! - prefix[lo]! - (marg[lo]! + marg[hi]!) / 2;
        return d * d;
      };
    }
  }
}

/** Σ_c Σ_k n_c n_k δ²_ck over ordered pairs. */
function expectedDisagreementSum(
  level: MeasurementLevel,
  values: readonly Label[],
  marg: readonly number[],
  delta2: (c: number, k: number) => number,
): number {
  if (level === 'interval') {
    // Σ_c Σ_k n_c n_k (v_c − v_k)² = 2(n Σ n_c v_c² − (Σ n_c v_c)²), evaluated around the mean
    // to avoid cancellation; keeps continuous scores O(V) instead of O(V²).
    const v = values as readonly number[];
    let n = 0;
    let s = 0;
    for (let c = 0; c < v.length; c++) {
      n += marg[c]!;
      s += marg[c]! * v[c]!;
    }
    const m = s / n;
    let ss = 0;
    for (let c = 0; c < v.length; c++) ss += marg[c]! * (v[c]! - m) ** 2;
    return 2 * n * ss;
  }
  if (level === 'nominal') {
    // Σ_{c≠k} n_c n_k = n² − Σ n_c², so many distinct free-text labels stay O(V).
    let n = 0;
    let squares = 0;
    for (const m of marg) {
      n += m;
      squares += m * m;
    }
    return n * n - squares;
  }
  let sum = 0;
  for (let c = 0; c < marg.length; c++) {
    for (let k = c + 1; k < marg.length; k++) sum += marg[c]! * marg[k]! * delta2(c, k);
  }
  return 2 * sum;
}
