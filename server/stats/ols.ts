// Ordinary least squares with the t-tests statsmodels' OLS reports (classical, non-robust standard
// errors), and Holm's step-down adjustment of several p-values (statsmodels' multipletests with
// method='holm'). Pure functions, no I/O.
//
//   β̂ = (XᵀX)⁻¹Xᵀy,  σ̂² = RSS / (n − p),  se(β̂ⱼ) = √(σ̂² · [(XᵀX)⁻¹]ⱼⱼ),  t = β̂ⱼ / se,
//   p = P(|T| ≥ |t|) with T ~ Student's t on n − p degrees of freedom.
// X is factored as QR by modified Gram–Schmidt; a column that is (numerically) a combination of
// the columns before it is dropped and reported in `dropped` rather than given an arbitrary
// coefficient, so a factor that does not vary in the data is said not to be testable.

import { studentTTwoSided } from './distributions.ts';

export interface OlsResult {
  /** One entry per column of X; null for a dropped column. */
  coef: (number | null)[];
  se: (number | null)[];
  t: (number | null)[];
  p: (number | null)[];
  /** Residual degrees of freedom n − p (p = the columns kept). */
  df: number;
  /** Indices of columns dropped as collinear with earlier ones. */
  dropped: number[];
}

const COLLINEAR = 1e-9;

/** OLS of y on the columns of X (each a Float64Array of length n; include a column of ones for an intercept). */
export function ols(columns: readonly ArrayLike<number>[], y: ArrayLike<number>): OlsResult {
  const n = y.length;
  const p = columns.length;
  for (const c of columns) if (c.length !== n) throw new RangeError('ols: every column must have as many rows as y');
  for (let i = 0; i < n; i++) if (!Number.isFinite(y[i])) throw new RangeError(`ols: y[${i}] is not a finite number`);
  // Modified Gram–Schmidt: q holds the orthonormal columns kept, r the upper triangle (kept × kept).
  const q: Float64Array[] = [];
  const kept: number[] = [];
  const dropped: number[] = [];
  const rCols: number[][] = []; // rCols[k][j] = R[j][k] for the k-th kept column
  for (let j = 0; j < p; j++) {
    const v = Float64Array.from(columns[j]!);
    for (let i = 0; i < n; i++) if (!Number.isFinite(v[i])) throw new RangeError(`ols: column ${j} row ${i} is not a finite number`);
    const norm0 = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    const rc: number[] = [];
    for (let k = 0; k < q.length; k++) {
      let d = 0;
      const qk = q[k]!;
      for (let i = 0; i < n; i++) d += qk[i]! * v[i]!;
      rc.push(d);
      for (let i = 0; i < n; i++) v[i]! -= d * qk[i]!;
    }
    const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    if (norm0 === 0 || norm <= COLLINEAR * norm0 || q.length >= n) {
      dropped.push(j);
      continue;
    }
    for (let i = 0; i < n; i++) v[i]! /= norm;
    rc.push(norm);
    q.push(v);
    kept.push(j);
    rCols.push(rc);
  }
  const k = kept.length;
  const R = Array.from({ length: k }, (_, row) => Array.from({ length: k }, (_, col) => (row <= col ? rCols[col]![row]! : 0)));
  // β = R⁻¹ Qᵀ y by back substitution.
  const qty = q.map((qk) => {
    let d = 0;
    for (let i = 0; i < n; i++) d += qk[i]! * y[i]!;
    return d;
  });
  const beta = new Array<number>(k).fill(0);
  for (let row = k - 1; row >= 0; row--) {
    let s = qty[row]!;
    for (let col = row + 1; col < k; col++) s -= R[row]![col]! * beta[col]!;
    beta[row] = s / R[row]![row]!;
  }
  // R⁻¹ (upper triangular), then diag((XᵀX)⁻¹) = row sums of squares of R⁻¹.
  const Rinv = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let col = 0; col < k; col++) {
    Rinv[col]![col] = 1 / R[col]![col]!;
    for (let row = col - 1; row >= 0; row--) {
      let s = 0;
      for (let m = row + 1; m <= col; m++) s += R[row]![m]! * Rinv[m]![col]!;
      Rinv[row]![col] = -s / R[row]![row]!;
    }
  }
  let rss = 0;
  for (let i = 0; i < n; i++) {
    let fit = 0;
    for (let m = 0; m < k; m++) fit += columns[kept[m]!]![i]! * beta[m]!;
    rss += (y[i]! - fit) ** 2;
  }
  const df = n - k;
  const coef: (number | null)[] = new Array(p).fill(null);
  const se: (number | null)[] = new Array(p).fill(null);
  const t: (number | null)[] = new Array(p).fill(null);
  const pv: (number | null)[] = new Array(p).fill(null);
  const sigma2 = df > 0 ? rss / df : null;
  kept.forEach((j, m) => {
    coef[j] = beta[m]!;
    if (sigma2 === null) return;
    let d = 0;
    for (let col = m; col < k; col++) d += Rinv[m]![col]! ** 2;
    const s = Math.sqrt(sigma2 * d);
    se[j] = s;
    if (s > 0) {
      t[j] = beta[m]! / s;
      pv[j] = studentTTwoSided(t[j]!, df);
    } else {
      // A perfect fit: statsmodels reports t = ±inf and p = 0 (or NaN for a zero coefficient).
      t[j] = null;
      pv[j] = beta[m] === 0 ? null : 0;
    }
  });
  return { coef, se, t, p: pv, df, dropped };
}

/**
 * Holm's step-down adjusted p-values, in the order given: sorted ascending, the i-th smallest
 * (0-based) becomes max over j ≤ i of min(1, (m − j)·p₍ⱼ₎). Nulls are left out of m and stay null.
 */
export function holm(pvalues: readonly (number | null)[]): (number | null)[] {
  const idx = pvalues.map((p, i) => ({ p, i })).filter((x): x is { p: number; i: number } => x.p !== null);
  for (const x of idx) if (!(x.p >= 0 && x.p <= 1)) throw new RangeError('holm: p-values must be in [0, 1]');
  idx.sort((a, b) => a.p - b.p || a.i - b.i);
  const m = idx.length;
  const out: (number | null)[] = pvalues.map(() => null);
  let running = 0;
  idx.forEach((x, j) => {
    running = Math.max(running, Math.min(1, (m - j) * x.p));
    out[x.i] = running;
  });
  return out;
}
