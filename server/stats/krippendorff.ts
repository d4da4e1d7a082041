// Krippendorff's alpha for any number of annotators with missing labels, following the
// coincidence-matrix formulation of Krippendorff (2011), "Computing Krippendorff's
// Alpha-Reliability":
//   alpha = 1 - D_o / D_e
//   D_o = (1/n) Σ_c Σ_k o_ck δ²_ck            o_ck = Σ_u (number of c-k pairs in unit u) / (m_u - 1)
//   D_e = 1/(n(n-1)) Σ_c Σ_k n_c n_k δ²_ck     n_c  = Σ_k o_ck,  n = Σ_c n_c
// Only units with at least two values are pairable; the others are ignored.

import { compareLabels } from './basic.ts';
import type { Label } from './basic.ts';
import { CODE_SPAN, exactSum, unitCountsOf, type UnitCounts } from './unit-counts.ts';

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
  const present = units.map((unit) => unit.filter((v): v is Label => v !== null && v !== undefined));
  for (const unit of present) if (unit.length >= 2) for (const v of unit) checkValue(v, level);
  const { counts, values } = unitCountsOf(present);
  return alphaFromCounts(counts, (code) => values[code]!, level);
}

/**
 * α from a dataset's unit counts (unit-counts.ts), `valueOf` giving the label of each code: the one
 * computation behind krippendorffAlpha and the kept agreement figures. The coincidence matrix is
 * never materialised: the marginals n_c are the counts of pairable values per code, and D_o sums
 * the kept pair counts weighted by δ² directly, so memory stays proportional to the number of
 * distinct values and value pairs even for continuous scores.
 */
export function alphaFromCounts(counts: UnitCounts, valueOf: (code: number) => Label, level: MeasurementLevel): KrippendorffResult {
  // Values in ascending order (the ordinal δ and the interval sums need it); codes no pairable value has are left out.
  const codes: number[] = [];
  counts.marginal.forEach((nc, code) => { if (nc > 0) codes.push(code); });
  codes.sort((x, y) => compareLabels(valueOf(x), valueOf(y)));
  const values = codes.map(valueOf);
  const marg = codes.map((code) => counts.marginal[code]!);
  const index = new Map<number, number>();
  codes.forEach((code, i) => index.set(code, i));
  let n = 0;
  for (const nc of marg) n += nc;

  const sizes = { n_pairable_values: n, n_items: counts.pairableUnits() };
  if (values.length < 2) {
    // A single value (or none) leaves no variation to tell agreement apart from chance.
    const d = n > 0 ? 0 : null;
    return { alpha: null, observed_disagreement: d, expected_disagreement: d, ...sizes };
  }

  const delta2 = distanceFunction(level, values, marg);
  // Σ_c Σ_k o_ck δ²_ck: ordered pairs (c,k) and (k,c) both count, hence 2·. Summed exactly, so
  // the figure does not depend on the order in which the kept counts are visited.
  function* observedTerms(): Generator<number> {
    for (const [m, pairs] of counts.pairsBySize) {
      for (const [key, count] of pairs) {
        const c = index.get(Math.floor(key / CODE_SPAN))!;
        const k = index.get(key % CODE_SPAN)!;
        yield (2 * count * delta2(c, k)) / (m - 1);
      }
    }
  }
  const observedSum = exactSum(observedTerms());

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
