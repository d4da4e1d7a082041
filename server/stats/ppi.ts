// Prediction-powered inference for a mean: what the experts would say on average over every item,
// from their gold labels on a random sample and the judge's predictions on every item
// (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, "Prediction-powered inference", Science 382,
// 2023; with the power-tuning weight λ of PPI++, Angelopoulos, Duchi & Zrnic, arXiv 2311.01453).
// The definitions are those of the ppi_py package (ppi_mean_pointestimate, ppi_mean_ci with
// lam=None, _calc_lam_glm with clip=True; classical_mean_ci), so the same data give the same
// numbers. Pure functions, no I/O.
//
// With Y the gold values and Ŷ the predictions of the n labelled items, Ŷᵤ the predictions of the
// N unlabelled items:
//   λ  = Cov(Y, Ŷ) / ((1 + n/N) · Var(Ŷ ∪ Ŷᵤ)), clipped to [0, 1]
//        Cov over the n labelled items with 1/n; Var over all n + N predictions with 1/(n + N − 1)
//   θ̂  = λ · mean(Ŷᵤ) + mean(Y − λŶ)
//   se = √( Var(λŶᵤ)/N + Var(Y − λŶ)/n ),  both variances with 1/N and 1/n
//   95 % interval θ̂ ± z·se with z = Φ⁻¹(0.975)
// The classical ("experts only") and judge-only intervals: mean ± z·sd/√n with sd over 1/n.
//
// Where ppi_py would divide by zero or return NaN, these functions decide and say so in `notes`:
//   n = 0          no estimate (no_labels)
//   n = 1          no interval and no λ: a variance needs two values (too_few_labels)
//   N = 0          every item is labelled: λ = 0, the classical mean (no_unlabelled)
//   Var(Ŷ) = 0     constant predictions carry no information: λ = 0 (constant_predictions)
//   λ outside [0,1] clipped, with lambda_clipped_low / lambda_clipped_high

import { Z95 } from './distributions.ts';

export { Z95 };

export type Interval = [number, number];

export interface MeanEstimate {
  estimate: number | null;
  se: number | null;
  ci95: Interval | null;
  n: number;
}

export type MeanNote = 'no_values' | 'one_value' | 'constant_values';

export type PpiNote = 'no_labels' | 'too_few_labels' | 'no_unlabelled' | 'constant_predictions' | 'lambda_clipped_low' | 'lambda_clipped_high';

export interface PpiEstimate extends MeanEstimate {
  /** The number of unlabelled items. */
  N: number;
  /** The weight used, after clipping; null when it could not be estimated (n < 2). */
  lambda: number | null;
  /** λ before clipping; null where it is undefined. */
  lambda_raw: number | null;
  notes: PpiNote[];
}

function check(values: ArrayLike<number>, what: string): void {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) throw new RangeError(`${what}[${i}] is not a finite number`);
}

function allEqual(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  const first = a.length ? a[0] : b[0];
  for (let i = 0; i < a.length; i++) if (a[i] !== first) return false;
  for (let i = 0; i < b.length; i++) if (b[i] !== first) return false;
  return true;
}

function sum(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]!;
  return s;
}

/** Σ (v − mean)² / n, by two passes (the one-pass formula loses digits when the mean is large). */
function variance1n(v: ArrayLike<number>, scale = 1): number {
  const n = v.length;
  if (n === 0) return 0;
  const m = (scale * sum(v)) / n;
  let s = 0;
  for (let i = 0; i < n; i++) s += (scale * v[i]! - m) ** 2;
  return s / n;
}

export function normalInterval(estimate: number, se: number): Interval {
  return [estimate - Z95 * se, estimate + Z95 * se];
}

/** The sample mean with a normal 95 % interval, sd over 1/n (ppi_py's classical_mean_ci); no interval below two values. */
export function classicalMean(values: ArrayLike<number>): MeanEstimate & { notes: MeanNote[] } {
  check(values, 'values');
  const n = values.length;
  if (n === 0) return { estimate: null, se: null, ci95: null, n, notes: ['no_values'] };
  const estimate = sum(values) / n;
  if (n < 2) return { estimate, se: null, ci95: null, n, notes: ['one_value'] };
  const se = Math.sqrt(variance1n(values) / n);
  return { estimate, se, ci95: normalInterval(estimate, se), n, notes: se === 0 ? ['constant_values'] : [] };
}

/** Cov(Y, Ŷ) over the labelled items with 1/n. */
export function covariance1n(y: ArrayLike<number>, yhat: ArrayLike<number>): number {
  const n = y.length;
  if (n === 0) return 0;
  const my = sum(y) / n;
  const mh = sum(yhat) / n;
  let s = 0;
  for (let i = 0; i < n; i++) s += (y[i]! - my) * (yhat[i]! - mh);
  return s / n;
}

/** Var of every prediction, labelled and unlabelled together, with 1/(n + N − 1) (numpy.cov's default). */
export function predictionVariance(yhat: ArrayLike<number>, yhatU: ArrayLike<number>): number {
  const m = yhat.length + yhatU.length;
  if (m < 2) return 0;
  const mean = (sum(yhat) + sum(yhatU)) / m;
  let s = 0;
  for (let i = 0; i < yhat.length; i++) s += (yhat[i]! - mean) ** 2;
  for (let i = 0; i < yhatU.length; i++) s += (yhatU[i]! - mean) ** 2;
  return s / (m - 1);
}

/** The power-tuning weight λ of PPI++ for a mean (see the module header for the formula and its edge cases). */
export function powerTuning(y: ArrayLike<number>, yhat: ArrayLike<number>, yhatU: ArrayLike<number>): { lambda: number | null; lambda_raw: number | null; notes: PpiNote[] } {
  const n = y.length;
  const N = yhatU.length;
  if (n === 0) return { lambda: null, lambda_raw: null, notes: ['no_labels'] };
  if (n < 2) return { lambda: null, lambda_raw: null, notes: ['too_few_labels'] };
  if (N === 0) return { lambda: 0, lambda_raw: null, notes: ['no_unlabelled'] };
  const v = predictionVariance(yhat, yhatU);
  // Exact comparison: the computed variance of identical floats can be a tiny non-zero.
  if (allEqual(yhat, yhatU)) return { lambda: 0, lambda_raw: null, notes: ['constant_predictions'] };
  const raw = covariance1n(y, yhat) / ((1 + n / N) * v);
  if (raw < 0) return { lambda: 0, lambda_raw: raw, notes: ['lambda_clipped_low'] };
  if (raw > 1) return { lambda: 1, lambda_raw: raw, notes: ['lambda_clipped_high'] };
  return { lambda: raw, lambda_raw: raw, notes: [] };
}

/**
 * The corrected (prediction-powered) mean with its 95 % interval: λ tuned from the data unless
 * given (λ = 1 is the original PPI, λ = 0 the classical mean of Y).
 */
export function ppiMean(y: ArrayLike<number>, yhat: ArrayLike<number>, yhatU: ArrayLike<number>, options: { lambda?: number } = {}): PpiEstimate {
  if (y.length !== yhat.length) throw new RangeError(`ppiMean: Y and Ŷ must have equal lengths (got ${y.length} and ${yhat.length})`);
  check(y, 'Y');
  check(yhat, 'Ŷ');
  check(yhatU, 'Ŷᵤ');
  const n = y.length;
  const N = yhatU.length;
  const tuned = options.lambda === undefined ? powerTuning(y, yhat, yhatU) : { lambda: options.lambda, lambda_raw: options.lambda, notes: [] as PpiNote[] };
  if (options.lambda !== undefined && !(options.lambda >= 0 && options.lambda <= 1)) throw new RangeError('ppiMean: lambda must be in [0, 1]');
  const notes = [...tuned.notes];
  if (n === 0 || tuned.lambda === null) return { estimate: null, se: null, ci95: null, n, N, lambda: null, lambda_raw: null, notes };
  const lambda = N === 0 ? 0 : tuned.lambda;
  if (N === 0 && !notes.includes('no_unlabelled')) notes.push('no_unlabelled');
  const rectifier = Float64Array.from({ length: n }, (_, i) => y[i]! - lambda * yhat[i]!);
  const imputed = N === 0 ? 0 : (lambda * sum(yhatU)) / N;
  const estimate = imputed + sum(rectifier) / n;
  const imputedVar = N === 0 ? 0 : variance1n(yhatU, lambda) / N;
  const se = Math.sqrt(imputedVar + variance1n(rectifier) / n);
  return { estimate, se, ci95: normalInterval(estimate, se), n, N, lambda, lambda_raw: tuned.lambda_raw, notes };
}

/**
 * The number of expert labels that would give the experts-only interval the width of the corrected
 * one: Var(Y)/se², Var over 1/n as in that interval (its half-width is z·√(Var(Y)/n)). With λ at its
 * optimum this is Broska et al.'s n·(n + N)/(n + (1 − ρ²)·N) (ppi_py's ppi_power). Null when
 * undefined (no interval, or both variances zero).
 */
export function effectiveLabels(y: ArrayLike<number>, corrected: Pick<PpiEstimate, 'se'>): number | null {
  if (corrected.se === null || y.length < 2) return null;
  const v = variance1n(y);
  if (corrected.se === 0) return null;
  return v / corrected.se ** 2;
}

export interface PlanInput {
  /** Var(Y) over the labelled items, 1/n. */
  varY: number;
  /** Var of every prediction, 1/(M − 1). */
  varYhat: number;
  /** Cov(Y, Ŷ) over the labelled items, 1/n. */
  cov: number;
  /** M = n + N, the items the estimate is about. */
  population: number;
  halfWidth: number;
}

export interface LabelPlan {
  /** The fewest labels (of the M items) that give ±halfWidth with the correction; null when even labelling every item would not. */
  corrected: number | null;
  /** Labels the experts alone need for ±halfWidth: ⌈z²·Var(Y)/h²⌉; may exceed M. Null when Var(Y) is 0 (nothing to plan from). */
  gold_only: number | null;
}

/**
 * The predicted variance of the corrected mean with n of the M items labelled, if the variances
 * and the covariance measured so far hold: λₙ = clip(Cov / ((1 + n/(M − n))·Var(Ŷ)), 0, 1) and
 * V(n) = λₙ²·Var(Ŷ)/(M − n) + (Var(Y) − 2λₙ·Cov + λₙ²·Var(Ŷ))/n (the se² of ppiMean, with one
 * Var(Ŷ) for labelled and unlabelled items); V(M) = Var(Y)/M.
 */
export function plannedVariance(p: Omit<PlanInput, 'halfWidth'>, n: number): number {
  const N = p.population - n;
  if (N <= 0 || p.varYhat <= 0) return p.varY / n;
  const lambda = Math.min(1, Math.max(0, p.cov / ((1 + n / N) * p.varYhat)));
  return (lambda * lambda * p.varYhat) / N + Math.max(0, p.varY - 2 * lambda * p.cov + lambda * lambda * p.varYhat) / n;
}

/** How many labels an interval of ±halfWidth needs, with the correction and with experts alone (see plannedVariance). */
export function labelsNeeded(p: PlanInput): LabelPlan {
  if (!(p.halfWidth > 0)) throw new RangeError('labelsNeeded: halfWidth must be positive');
  if (!(p.varY >= 0 && p.varYhat >= 0) || !Number.isInteger(p.population) || p.population < 0) throw new RangeError('labelsNeeded: bad input');
  if (p.varY === 0) return { corrected: null, gold_only: null };
  const target = (p.halfWidth / Z95) ** 2;
  const gold_only = Math.max(2, Math.ceil(p.varY / target - 1e-9));
  let corrected: number | null = null;
  // V(n) need not be monotone near n = M, so every n is tried: M closed-form evaluations.
  for (let n = 2; n <= p.population; n++) {
    if (plannedVariance(p, n) <= target) {
      corrected = n;
      break;
    }
  }
  return { corrected, gold_only };
}

/**
 * An estimate as a sum of per-item contributions ψ around it (its influence function divided by
 * the sample size), each item tagged with its cluster (the sample it answers: two systems'
 * responses to the same question are not independent). se² = Σ over clusters of (Σ ψ)²; with one
 * item per cluster that is exactly the variance ppiMean and classicalMean report.
 */
export interface Linearised {
  estimate: number;
  psi: Float64Array;
  clusters: ArrayLike<number>;
  /** When every cluster is an integer below this, sums are kept in an array instead of a Map (both sides must agree). */
  nClusters?: number;
}

/** ψ of the corrected mean: (λŶᵤ − mean)/N for unlabelled items, then (Y − λŶ − mean)/n for labelled ones (in that order). */
export function ppiContributions(y: ArrayLike<number>, yhat: ArrayLike<number>, yhatU: ArrayLike<number>, lambda: number): Float64Array {
  const n = y.length;
  const N = yhatU.length;
  const out = new Float64Array(N + n);
  if (N > 0) {
    const mu = (lambda * sum(yhatU)) / N;
    for (let j = 0; j < N; j++) out[j] = (lambda * yhatU[j]! - mu) / N;
  }
  let mr = 0;
  for (let i = 0; i < n; i++) mr += y[i]! - lambda * yhat[i]!;
  mr /= n;
  for (let i = 0; i < n; i++) out[N + i] = (y[i]! - lambda * yhat[i]! - mr) / n;
  return out;
}

/** ψ of a plain mean: (v − mean)/n. */
export function meanContributions(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const m = sum(values) / n;
  return Float64Array.from({ length: n }, (_, i) => (values[i]! - m) / n);
}

/**
 * a − b with a 95 % normal interval, se² = Σ over clusters of (Σ ψₐ − Σ ψ_b)²: items of both sides
 * that answer the same sample are paired; different samples are taken as independent. Null se
 * when fewer than two clusters carry the difference.
 */
export function clusteredDifference(a: Linearised, b: Linearised): MeanEstimate {
  for (const x of [a, b]) if (x.psi.length !== x.clusters.length) throw new RangeError('clusteredDifference: psi and clusters must have equal lengths');
  const estimate = a.estimate - b.estimate;
  let sumSq = 0;
  let n = 0;
  if (a.nClusters !== undefined && a.nClusters === b.nClusters) {
    const by = new Float64Array(a.nClusters);
    const seen = new Uint8Array(a.nClusters);
    for (const [x, sign] of [[a, 1], [b, -1]] as const) {
      for (let i = 0; i < x.psi.length; i++) {
        const c = x.clusters[i]!;
        if (!(c >= 0 && c < a.nClusters && Number.isInteger(c))) throw new RangeError('clusteredDifference: cluster outside 0..nClusters−1');
        by[c]! += sign * x.psi[i]!;
        if (!seen[c]) { seen[c] = 1; n++; }
      }
    }
    for (let c = 0; c < by.length; c++) sumSq += by[c]! * by[c]!;
  } else {
    const byCluster = new Map<number, number>();
    for (const [x, sign] of [[a, 1], [b, -1]] as const) {
      for (let i = 0; i < x.psi.length; i++) {
        const c = x.clusters[i]!;
        byCluster.set(c, (byCluster.get(c) ?? 0) + sign * x.psi[i]!);
      }
    }
    n = byCluster.size;
    for (const v of byCluster.values()) sumSq += v * v;
  }
  if (n < 2) return { estimate, se: null, ci95: null, n };
  const se = Math.sqrt(sumSq);
  return { estimate, se, ci95: normalInterval(estimate, se), n };
}
