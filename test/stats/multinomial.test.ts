// Exact binomial and multinomial draws (stats/multinomial.ts), checked against the definitions:
// probabilities against the product formula and scipy.stats.binom.pmf figures, the sampler by
// feeding it an evenly spaced grid of uniforms (an inversion sampler must then return each value
// as often as its probability says, to within one), and by its moments and a χ² fit on a seeded stream.
import { describe, expect, it } from 'vitest';
import { binomial, binomialPmf, indexStream, largestFirst, multinomial, createRng } from '../../server/stats/index.ts';

/** C(n, x) p^x q^(n−x) by the product formula (exact enough for small n). */
function pmfByProduct(x: number, n: number, p: number): number {
  let c = 1;
  for (let i = 1; i <= x; i++) c = (c * (n - x + i)) / i;
  return c * p ** x * (1 - p) ** (n - x);
}

/** A uniform source that returns the given values in turn. */
function replay(values: readonly number[]): () => number {
  let i = 0;
  return () => values[i++]!;
}

describe('binomial probabilities (Loader 2000)', () => {
  it('equal the product formula for small n and the published values for large n', () => {
    for (const [n, p] of [[10, 0.5], [20, 0.3], [40, 0.05], [100, 0.37]] as const) {
      for (let x = 1; x < n; x++) expect(binomialPmf(x, n, p) / pmfByProduct(x, n, p)).toBeCloseTo(1, 12);
    }
    expect(binomialPmf(5, 10, 0.5) / (252 / 1024)).toBeCloseTo(1, 14);
    // scipy.stats.binom.pmf, scipy 1.17.1 (also the exact rational value, by BigInt, to 15 digits)
    const scipy = [[50000, 100000, 0.5, 0.0025231262141967386], [300, 1000, 0.3, 0.027521003821268382],
      [1000, 100000, 0.01, 0.012678161323544575], [3, 2000, 0.004, 0.028468581581453475]] as const;
    for (const [x, n, p, want] of scipy) expect(binomialPmf(x, n, p) / want, `pmf(${x}; ${n}, ${p})`).toBeCloseTo(1, 13);
  });

  it('sum to one over the support', () => {
    for (const [n, p] of [[1000, 0.3], [5000, 0.5], [200, 0.02]] as const) {
      let sum = (1 - p) ** n + p ** n;
      for (let x = 1; x < n; x++) sum += binomialPmf(x, n, p);
      expect(sum).toBeCloseTo(1, 12);
    }
  });
});

describe('binomial draws', () => {
  // Each (n, p) exercises one path: inversion from 0 (mean < 16), outward from the mode, and p > ½ mirrored.
  const cases = [[12, 0.3], [2000, 0.004], [300, 0.2], [1000, 0.5], [100000, 0.01], [60, 0.85], [7, 0.999]] as const;

  it('are an inversion: an evenly spaced grid of uniforms returns each value as often as its probability, to within one', () => {
    const grid = 200_000;
    for (const [n, p] of cases) {
      const seen = new Map<number, number>();
      for (let i = 0; i < grid; i++) {
        const x = binomial(n, p, replay([(i + 0.5) / grid]));
        seen.set(x, (seen.get(x) ?? 0) + 1);
      }
      const pmf = (x: number) => (x === 0 ? (1 - p) ** n : x === n ? p ** n : binomialPmf(x, n, p));
      for (let x = 0; x <= n; x++) expect(Math.abs((seen.get(x) ?? 0) - grid * pmf(x)), `n ${n} p ${p} x ${x}`).toBeLessThanOrEqual(1);
    }
  });

  it('have the binomial mean and variance on a seeded stream, and pass a χ² fit', () => {
    const stream = indexStream(5);
    const uniform = () => stream.uniform();
    for (const [n, p] of cases) {
      const draws = 40_000;
      const xs = Array.from({ length: draws }, () => binomial(n, p, uniform));
      const mean = xs.reduce((a, b) => a + b, 0) / draws;
      const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (draws - 1);
      const sd = Math.sqrt(n * p * (1 - p));
      expect(Math.abs(mean - n * p), `mean n ${n} p ${p}`).toBeLessThan(5 * (sd / Math.sqrt(draws)) + 1e-12);
      if (sd > 0.1) expect(variance / sd ** 2, `variance n ${n} p ${p}`).toBeGreaterThan(0.95);
      if (sd > 0.1) expect(variance / sd ** 2, `variance n ${n} p ${p}`).toBeLessThan(1.05);
      // χ² over values with an expected count ≥ 20 (the rest pooled into one bin).
      const pmf = (x: number) => (x === 0 ? (1 - p) ** n : x === n ? p ** n : binomialPmf(x, n, p));
      const counts = new Map<number, number>();
      for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
      let chi = 0, bins = 0, restExpected = draws, restSeen = draws;
      for (let x = 0; x <= n; x++) {
        const expected = draws * pmf(x);
        if (expected < 20) continue;
        const seen = counts.get(x) ?? 0;
        chi += (seen - expected) ** 2 / expected;
        restExpected -= expected;
        restSeen -= seen;
        bins++;
      }
      if (restExpected >= 20) {
        chi += (restSeen - restExpected) ** 2 / restExpected;
        bins++;
      }
      // Critical value of χ² at the 0.001 level: df + 3.1·√(2 df) + 10 bounds it for every df here.
      const df = bins - 1;
      expect(chi, `χ² n ${n} p ${p} (df ${df})`).toBeLessThan(df + 3.1 * Math.sqrt(2 * df) + 10);
    }
  });

  it('handle the edges: no trials, p of 0 or 1', () => {
    const uniform = createRng(1);
    expect(binomial(0, 0.4, uniform)).toBe(0);
    expect(binomial(50, 0, uniform)).toBe(0);
    expect(binomial(50, 1, uniform)).toBe(50);
    expect(binomial(1, 0.5, replay([0.49]))).toBe(0);
    expect(binomial(1, 0.5, replay([0.5]))).toBe(1);
  });
});

describe('multinomial draws', () => {
  it('always sum to n, leave empty cells at zero, and have the multinomial moments', () => {
    const sizes = Float64Array.of(5000, 0, 3000, 1500, 400, 100);
    const n = sizes.reduce((a, b) => a + b, 0);
    const order = largestFirst(sizes);
    expect([...order]).toEqual([0, 2, 3, 4, 5, 1]);
    const stream = indexStream(9);
    const out = new Float64Array(sizes.length);
    const rounds = 4000;
    const sum = new Float64Array(sizes.length);
    const sq = new Float64Array(sizes.length);
    let cross = 0; // Σ (x0 − n p0)(x2 − n p2): the covariance is −n p0 p2
    for (let r = 0; r < rounds; r++) {
      multinomial(n, sizes, order, out, () => stream.uniform());
      expect(out.reduce((a, b) => a + b, 0)).toBe(n);
      expect(out[1]).toBe(0);
      for (let c = 0; c < sizes.length; c++) {
        sum[c]! += out[c]!;
        sq[c]! += (out[c]! - sizes[c]!) ** 2;
      }
      cross += (out[0]! - sizes[0]!) * (out[2]! - sizes[2]!);
    }
    for (let c = 0; c < sizes.length; c++) {
      const p = sizes[c]! / n;
      const variance = n * p * (1 - p);
      if (variance === 0) continue;
      expect(Math.abs(sum[c]! / rounds - sizes[c]!)).toBeLessThan(5 * Math.sqrt(variance / rounds));
      expect(sq[c]! / rounds / variance).toBeGreaterThan(0.9);
      expect(sq[c]! / rounds / variance).toBeLessThan(1.1);
    }
    const covariance = (-n * sizes[0]! * sizes[2]!) / n / n;
    expect(cross / rounds / covariance).toBeGreaterThan(0.85);
    expect(cross / rounds / covariance).toBeLessThan(1.15);
  });

  it('reads the index stream two outputs per uniform, 53 bits, below 1', () => {
    const rng = createRng(17);
    const stream = indexStream(17);
    for (let i = 0; i < 1000; i++) {
      const hi = rng() * 4294967296;
      const lo = rng() * 4294967296;
      const u = stream.uniform();
      expect(u).toBe((hi * 2 ** 21 + Math.floor(lo / 2 ** 11)) / 2 ** 53);
      expect(u).toBeLessThan(1);
    }
  });
});
