// Percentile bootstrap over items, with a seeded PRNG so every figure shown in the app is
// reproducible from its seed. Statistics are functions of a list of item indices; the
// same index buffer is reused for every resample to keep 1,000 × 10,000-item runs cheap,
// so a statistic must neither keep nor modify the array it is given.

import { quantileSorted } from './basic.ts';

/** Uniform float in [0, 1). */
export type Rng = () => number;

/** A statistic over the items at the given indices (with repeats); null when undefined on that resample. */
export type IndexStat = (indices: Uint32Array) => number | null;

const rotl = (x: number, k: number): number => (x << k) | (x >>> (32 - k));

/** MurmurHash3's 32-bit finaliser: spreads a seed's bits so nearby seeds give unrelated streams. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * xoshiro128** (Blackman & Vigna 2018, "Scrambled linear pseudorandom number generators"),
 * seeded by hashing the seed with four different offsets. Deterministic for a given seed;
 * not cryptographic.
 */
export function createRng(seed: number): Rng {
  const s = seedState(seed);
  let s0 = s[0]!;
  let s1 = s[1]!;
  let s2 = s[2]!;
  let s3 = s[3]!;
  return () => {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result / 4294967296;
  };
}

function seedState(seed: number): Int32Array {
  if (!Number.isFinite(seed)) throw new RangeError('createRng: seed must be a finite number');
  const base = Math.trunc(seed) >>> 0;
  const s = Int32Array.of(fmix32(base + 0x9e3779b9), fmix32(base + 0x3c6ef372), fmix32(base + 0xdaa66d2b), fmix32(base + 0x78dde6e4));
  if ((s[0]! | s[1]! | s[2]! | s[3]!) === 0) s[0] = 1; // the all-zero state is a fixed point
  return s;
}

/**
 * The stream of createRng(seed) read as resamples of n items: every index is
 * Math.floor(rng() * n), the same numbers in the same order. The generator runs inline in the
 * loop (the bootstrap's hottest: 10,000 × 1,000 draws for a report), which is about twice as fast
 * as calling the closure.
 */
export interface IndexStream {
  /** Fills idx with the next idx.length indices in 0..n−1. */
  indices(idx: Uint32Array, n: number): void;
  /** Draws the next `draws` indices in 0..n−1 and adds 1 to w[cellOf[index]] for each (w is not cleared). */
  count(draws: number, n: number, cellOf: Uint32Array, w: Float64Array): void;
  /** The next two outputs as one uniform in [0, 1) with 53 random bits (for multinomial draws). */
  uniform(): number;
}

export function indexStream(seed: number): IndexStream {
  const s = seedState(seed);
  const pair = new Uint32Array(2);
  const stream: IndexStream = {
    indices(idx, n) {
      let s0 = s[0]!, s1 = s[1]!, s2 = s[2]!, s3 = s[3]!;
      for (let i = 0; i < idx.length; i++) {
        const a = Math.imul(s1, 5);
        const result = Math.imul((a << 7) | (a >>> 25), 9) >>> 0;
        const t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = (s3 << 11) | (s3 >>> 21);
        idx[i] = Math.floor((result / 4294967296) * n);
      }
      s[0] = s0; s[1] = s1; s[2] = s2; s[3] = s3;
    },
    count(draws, n, cellOf, w) {
      let s0 = s[0]!, s1 = s[1]!, s2 = s[2]!, s3 = s[3]!;
      for (let i = 0; i < draws; i++) {
        const a = Math.imul(s1, 5);
        const result = Math.imul((a << 7) | (a >>> 25), 9) >>> 0;
        const t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = (s3 << 11) | (s3 >>> 21);
        w[cellOf[Math.floor((result / 4294967296) * n)]!]! += 1;
      }
      s[0] = s0; s[1] = s1; s[2] = s2; s[3] = s3;
    },
    uniform() {
      // Two raw 32-bit outputs: an "index" in 0..2^32−1 is the output itself (floor(result / 2^32 · 2^32)).
      stream.indices(pair, 4294967296);
      return (pair[0]! * 2097152 + (pair[1]! >>> 11)) / 9007199254740992; // (hi · 2^21 + top 21 bits of lo) / 2^53
    },
  };
  return stream;
}

export interface BootstrapOptions {
  /** Number of resamples (default 1000). */
  resamples?: number;
  /** PRNG seed (default 1). */
  seed?: number;
  /** Two-sided level: the CI covers 1 − alpha (default 0.05 → 95 %). */
  alpha?: number;
  /**
   * Minimum share of resamples on which the statistic must be defined (default 0.5).
   * Below it the CI is null: dropping most resamples (e.g. kappa when the rare class is
   * often missing) would describe a different population than the one measured.
   */
  minValidFraction?: number;
}

export interface ResolvedOptions {
  resamples: number;
  seed: number;
  alpha: number;
  minValidFraction: number;
}

function resolve(options: BootstrapOptions): ResolvedOptions {
  const resamples = options.resamples ?? 1000;
  const alpha = options.alpha ?? 0.05;
  const minValidFraction = options.minValidFraction ?? 0.5;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError('bootstrap: resamples must be a positive integer');
  if (!(alpha > 0 && alpha < 1)) throw new RangeError('bootstrap: alpha must be in (0, 1)');
  if (!(minValidFraction >= 0 && minValidFraction <= 1)) throw new RangeError('bootstrap: minValidFraction must be in [0, 1]');
  return { resamples, seed: options.seed ?? 1, alpha, minValidFraction };
}

function checkN(n: number): void {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError('bootstrap: n must be a non-negative integer');
}

/** Indices 0..n-1, for evaluating an {@link IndexStat} on the full sample. */
export function allIndices(n: number): Uint32Array {
  const idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  return idx;
}

function valid(v: number | null): v is number {
  return v !== null && Number.isFinite(v);
}

function percentileInterval(values: Float64Array, count: number, alpha: number): [number, number] {
  const sorted = values.subarray(0, count).sort();
  return [quantileSorted(sorted, alpha / 2)!, quantileSorted(sorted, 1 - alpha / 2)!];
}

/**
 * Percentile bootstrap CI of stat over n items: each resample draws n item indices with
 * replacement. Resamples where stat is null (or non-finite) are skipped; the result is null
 * when n = 0 or fewer than minValidFraction of the resamples (and fewer than two) are valid.
 * Quantiles interpolate linearly between order statistics (R/NumPy default).
 */
export function bootstrapCI(n: number, stat: IndexStat, options: BootstrapOptions = {}): [number, number] | null {
  checkN(n);
  const o = resolve(options);
  if (n === 0) return null;
  const stream = indexStream(o.seed);
  const idx = new Uint32Array(n);
  const values = new Float64Array(o.resamples);
  let count = 0;
  for (let r = 0; r < o.resamples; r++) {
    stream.indices(idx, n);
    const v = stat(idx);
    if (valid(v)) values[count++] = v;
  }
  if (count < 2 || count < o.minValidFraction * o.resamples) return null;
  return percentileInterval(values, count, o.alpha);
}

export interface PairedBootstrapResult {
  /** statA − statB on the full sample. */
  diff: number;
  /** Percentile CI of the difference; null when too few resamples were valid. */
  ci: [number, number] | null;
  /**
   * Two-sided bootstrap p-value for "no difference": twice the share of valid resamples
   * whose difference lies on the far side of 0 from the majority (≤ 0 or ≥ 0, whichever is
   * rarer), capped at 1. 0 means fewer than 1 in n_valid; null with the CI.
   */
  p_value: number | null;
  /** Resamples on which both statistics were defined. */
  n_valid: number;
}

/**
 * Paired bootstrap of statA − statB for two systems scored on the same n items: each
 * resample evaluates both statistics on the same indices, so item difficulty cancels.
 * Null when the difference is undefined on the full sample.
 */
export function pairedBootstrap(n: number, statA: IndexStat, statB: IndexStat, options: BootstrapOptions = {}): PairedBootstrapResult | null {
  checkN(n);
  const o = resolve(options);
  if (n === 0) return null;
  const stream = indexStream(o.seed);
  const idx = new Uint32Array(n);
  return pairedDifference(allIndices(n), () => { stream.indices(idx, n); return idx; }, statA, statB, o);
}

/**
 * statA − statB on the full sample and on each resample `draw` gives (the same indices for both):
 * the percentile interval of the differences and the two-sided p-value
 * min(1, 2·min(#{d ≤ 0}, #{d ≥ 0}) / valid resamples). Shared by the item and the cluster bootstrap.
 */
export function pairedDifference(full: Uint32Array, draw: () => Uint32Array, statA: IndexStat, statB: IndexStat,
  o: ResolvedOptions): PairedBootstrapResult | null {
  const a0 = statA(full);
  const b0 = statB(full);
  if (!valid(a0) || !valid(b0)) return null;
  const diff = a0 - b0;
  const values = new Float64Array(o.resamples);
  let count = 0, atMostZero = 0, atLeastZero = 0;
  for (let r = 0; r < o.resamples; r++) {
    const drawn = draw();
    const a = statA(drawn);
    if (!valid(a)) continue;
    const b = statB(drawn);
    if (!valid(b)) continue;
    const d = a - b;
    values[count++] = d;
    if (d <= 0) atMostZero++;
    if (d >= 0) atLeastZero++;
  }
  if (count < 2 || count < o.minValidFraction * o.resamples) return { diff, ci: null, p_value: null, n_valid: count };
  return { diff, ci: percentileInterval(values, count, o.alpha), p_value: Math.min(1, (2 * Math.min(atMostZero, atLeastZero)) / count), n_valid: count };
}

// For the cluster bootstrap (cluster-bootstrap.ts): the same option rules and interval.
export { resolve as resolveBootstrapOptions, percentileInterval };
