// Exact binomial and multinomial draws, for bootstrap resamples given as counts.
//
// A bootstrap resample of n items drawn with replacement from units holding s_1, …, s_k of them
// (cells of equal (score, gold), or clusters of one shape) is, counted per unit, one draw of
// Multinomial(n; s_1/n, …, s_k/n). Drawing those k counts directly costs k binomial draws instead of
// n index draws, the same distribution of resamples: with 100,000 items in a few dozen cells, about
// 50 steps per cell instead of 100,000 draws per resample.
//
// Multinomial: the conditional-binomial method (each count is Binomial(items left, s_c / mass left)).
// Binomial(N, p), p ≤ ½ (else N − Binomial(N, 1 − p)), by inversion: u uniform in [0, 1) is matched
// against the probabilities in a fixed order of the support, which gives each value exactly its
// probability whatever the order. The order is 0, 1, 2, … when the mean is small, and outward from the
// mode otherwise (mode, mode+1, mode−1, …), so a draw costs about as many steps as the standard deviation.
// The probability at the mode is Loader's saddle-point form (C. Loader, "Fast and accurate computation
// of binomial probabilities", 2000: Stirling's-series error terms and the deviance bd0), accurate to
// ~10^−14 relative where ln Γ differences of numbers near 10^6 would lose six digits; its
// neighbours follow by the ratio f(x+1)/f(x) = (N − x)/(x + 1) · p/q. Exact up to that rounding and to the
// 53-bit uniform.

/** Uniform in [0, 1) with 53 random bits. */
export type Uniform = () => number;

/** Below this mean, inversion from 0 (q^N does not underflow: it is at least e^−16). */
const SMALL_MEAN = 16;
const HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);

/** ln n! for n = 0..15, from the factorials (exact in a double). */
const LOG_FACTORIAL = Array.from({ length: 16 }, (_, n) => {
  let f = 1;
  for (let i = 2; i <= n; i++) f *= i;
  return Math.log(f);
});

/** Stirling's series error for an integer n ≥ 1: ln n! − (n + ½) ln n + n − ½ ln 2π (Loader 2000, with her cut-offs). */
export function stirlingError(n: number): number {
  if (n <= 15) return LOG_FACTORIAL[n]! - (n + 0.5) * Math.log(n) + n - HALF_LOG_TWO_PI;
  const nn = n * n;
  const s0 = 1 / 12, s1 = 1 / 360, s2 = 1 / 1260, s3 = 1 / 1680, s4 = 1 / 1188;
  if (n > 500) return (s0 - s1 / nn) / n;
  if (n > 80) return (s0 - (s1 - s2 / nn) / nn) / n;
  if (n > 35) return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n;
  return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n;
}

/** The deviance term x ln(x / m) + m − x, by its series when x is near m (where the plain form cancels). */
export function deviance(x: number, m: number): number {
  if (Math.abs(x - m) >= 0.1 * (x + m)) return x * Math.log(x / m) + m - x;
  let v = (x - m) / (x + m);
  let s = (x - m) * v;
  let term = 2 * x * v;
  v *= v;
  for (let j = 1; j < 1000; j++) {
    term *= v;
    const next = s + term / (2 * j + 1);
    if (next === s) return next;
    s = next;
  }
  return s;
}

/** P(X = x) for X ~ Binomial(n, p), 0 < x < n, 0 < p < 1. */
export function binomialPmf(x: number, n: number, p: number): number {
  const q = 1 - p;
  const lc = stirlingError(n) - stirlingError(x) - stirlingError(n - x) - deviance(x, n * p) - deviance(n - x, n * q);
  return Math.exp(lc) * Math.sqrt(n / (2 * Math.PI * x * (n - x)));
}

/** One draw of Binomial(n, p). */
export function binomial(n: number, p: number, uniform: Uniform): number {
  if (n === 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - binomial(n, 1 - p, uniform);
  const r = p / (1 - p);
  let u = uniform();
  if (n * p < SMALL_MEAN) {
    let f = Math.exp(n * Math.log1p(-p));
    let x = 0;
    while (u >= f && x < n) {
      u -= f;
      f *= (r * (n - x)) / (x + 1);
      x++;
    }
    return x;
  }
  // Mean ≥ 16 and p ≤ ½: the mode m lies strictly inside 0..n, as binomialPmf needs.
  const m = Math.floor((n + 1) * p);
  const fm = binomialPmf(m, n, p);
  if (u < fm) return m;
  u -= fm;
  let lo = m, hi = m, flo = fm, fhi = fm;
  while (lo > 0 || hi < n) {
    if (hi < n) {
      fhi *= (r * (n - hi)) / (hi + 1);
      hi++;
      if (u < fhi) return hi;
      u -= fhi;
    }
    if (lo > 0) {
      flo *= lo / (r * (n - lo + 1));
      lo--;
      if (u < flo) return lo;
      u -= flo;
    }
    if (fhi === 0 && flo === 0) break; // u beyond the mass rounding left: both tails have underflowed
  }
  return m;
}

/**
 * One draw of Multinomial(n; sizes / Σ sizes) into `out` (sizes are non-negative integer masses, e.g. how many
 * items each cell holds). `order` visits the cells largest first, so the items left run out early.
 */
export function multinomial(n: number, sizes: ArrayLike<number>, order: ArrayLike<number>, out: Float64Array, uniform: Uniform): void {
  let mass = 0;
  for (let c = 0; c < sizes.length; c++) mass += sizes[c]!;
  out.fill(0);
  let left = n;
  for (let k = 0; k < order.length && left > 0; k++) {
    const c = order[k]!;
    const s = sizes[c]!;
    const x = s >= mass ? left : binomial(left, s / mass, uniform);
    out[c] = x;
    left -= x;
    mass -= s;
  }
}

/** Cell indices by size, largest first (ties by index), for {@link multinomial}. */
export function largestFirst(sizes: ArrayLike<number>): Uint32Array {
  const order = Uint32Array.from({ length: sizes.length }, (_, i) => i);
  return order.sort((a, b) => sizes[b]! - sizes[a]! || a - b);
}
