import { describe, it, expect } from 'vitest';
import { kendallTauB, mae, pearson, rmse, spearman } from '../../server/stats/correlation.ts';
import { addNoise, correlatedInts, randomFloats, randomInts } from './random-data.ts';

// Anscombe, F. J. (1973), "Graphs in Statistical Analysis", The American Statistician 27(1):
// all four data sets have correlation coefficient 0.816 (printed as .82 in the paper).
const anscombeX = [10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5];
const anscombeY1 = [8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68];
const anscombeX4 = [8, 8, 8, 8, 8, 8, 8, 19, 8, 8, 8];
const anscombeY4 = [6.58, 5.76, 7.71, 8.84, 8.47, 7.04, 5.25, 12.5, 5.56, 7.91, 6.89];

// Independent implementations, by different methods than the module.
function pearsonOnePass(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  let sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (let i = 0; i < n; i++) {
    sx += x[i]!; sy += y[i]!; sxx += x[i]! ** 2; syy += y[i]! ** 2; sxy += x[i]! * y[i]!;
  }
  return (n * sxy - sx * sy) / Math.sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
}

/** Rank of each value = (number below) + (number equal + 1)/2, by counting: O(n²). */
function ranksByCounting(v: readonly number[]): number[] {
  return v.map((a) => {
    let below = 0, equal = 0;
    for (const b of v) { if (b < a) below++; else if (b === a) equal++; }
    return below + (equal + 1) / 2;
  });
}

/** Tau-b by explicit pair classification: (C − D) / sqrt((C + D + Tx)(C + D + Ty)). */
function kendallBrute(x: readonly number[], y: readonly number[]): number | null {
  let c = 0, d = 0, tx = 0, ty = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const sx = Math.sign(x[i]! - x[j]!);
      const sy = Math.sign(y[i]! - y[j]!);
      if (sx === 0 && sy === 0) continue;
      if (sx === 0) tx++;
      else if (sy === 0) ty++;
      else if (sx === sy) c++;
      else d++;
    }
  }
  const den = Math.sqrt((c + d + tx) * (c + d + ty));
  return den === 0 ? null : (c - d) / den;
}

describe('pearson', () => {
  it('matches Anscombe (1973): r = 0.816 for data sets I and IV', () => {
    // Published to three decimals; set IV is 0.81652, so allow the rounding of the last digit.
    expect(Math.abs(pearson(anscombeX, anscombeY1)! - 0.816)).toBeLessThan(0.001);
    expect(Math.abs(pearson(anscombeX4, anscombeY4)! - 0.816)).toBeLessThan(0.001);
  });

  it('agrees with the one-pass textbook formula on seeded random data', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const x = randomFloats(200, seed);
      const y = addNoise(x, seed + 1000);
      expect(pearson(x, y)).toBeCloseTo(pearsonOnePass(x, y), 10);
    }
  });

  it('is exactly ±1 for perfect linear relations and null for constant input', () => {
    expect(pearson([1, 2, 3], [2, 4, 6])).toBe(1);
    expect(pearson([1, 2, 3], [3, 2, 1])).toBe(-1);
    expect(pearson([0.1, 0.1, 0.1], [1, 2, 3])).toBeNull();
    expect(pearson([1, 2, 3], [5, 5, 5])).toBeNull();
    expect(pearson([1], [2])).toBeNull();
    expect(pearson([], [])).toBeNull();
  });

  it('throws on unequal lengths and non-finite values', () => {
    expect(() => pearson([1, 2], [1])).toThrow(RangeError);
    expect(() => pearson([1, NaN], [1, 2])).toThrow(RangeError);
  });
});

describe('spearman', () => {
  it('matches Wikipedia "Spearman\'s rank correlation coefficient" IQ vs. TV hours example: ρ = −29/165', () => {
    const iq = [106, 100, 86, 101, 99, 103, 97, 113, 112, 110];
    const tv = [7, 27, 2, 50, 28, 29, 20, 12, 6, 17];
    expect(spearman(iq, tv)).toBeCloseTo(-29 / 165, 12);
  });

  it('uses average ranks for ties (hand-computed; also the SciPy spearmanr docs example, 0.8207826816681233)', () => {
    // y ranks: 5→1, 6→2, 7→3.5, 8→5, 7→3.5; centred products sum to 8, squares to 10 and 9.5.
    expect(spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])).toBeCloseTo(8 / Math.sqrt(95), 12);
  });

  it('agrees with ranks-by-counting + Pearson on seeded data with many ties', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const x = randomInts(150, 1, 6, seed);
      const y = correlatedInts(x, 2, seed + 500);
      expect(spearman(x, y)).toBeCloseTo(pearsonOnePass(ranksByCounting(x), ranksByCounting(y)), 10);
    }
  });

  it('returns null for constant input or fewer than 2 items', () => {
    expect(spearman([3, 3, 3], [1, 2, 3])).toBeNull();
    expect(spearman([1], [1])).toBeNull();
    expect(spearman([], [])).toBeNull();
    expect(() => spearman([1, 2, 3], [1, 2])).toThrow(RangeError);
  });
});

describe('kendallTauB', () => {
  it('handles ties in x, y and both (hand count: C=2, D=6, 2 x-ties, 1 y-tie, 1 joint tie → −4/√72)', () => {
    // Same data as the SciPy kendalltau docs example, which reports −0.47140452079103173.
    expect(kendallTauB([12, 2, 1, 12, 2], [1, 4, 7, 1, 0])).toBeCloseTo(-4 / Math.sqrt(72), 14);
  });

  it('is 1 for perfect agreement with ties and −1 for perfect reversal', () => {
    expect(kendallTauB([1, 1, 2, 2], [1, 1, 2, 2])).toBeCloseTo(1, 14);
    expect(kendallTauB([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1);
  });

  it('agrees with O(n²) pair counting on seeded data with ties', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const n = 1 + ((seed * 37) % 400);
      const x = randomInts(n, 1, 1 + (seed % 7), seed);
      const y = seed % 3 === 0 ? randomInts(n, 0, 4, seed + 99) : correlatedInts(x, 1 + (seed % 3), seed + 7);
      const fast = kendallTauB(x, y);
      const slow = kendallBrute(x, y);
      if (slow === null) expect(fast).toBeNull();
      else expect(fast).toBeCloseTo(slow, 10);
    }
  });

  it('agrees with pair counting on continuous data and handles n = 10,000 with ties', () => {
    const x = randomFloats(2000, 4);
    const y = addNoise(x, 5);
    expect(kendallTauB(x, y)).toBeCloseTo(kendallBrute(x, y)!, 10);
    const bx = randomInts(10_000, 1, 5, 8);
    const by = correlatedInts(bx, 2, 9);
    const tau = kendallTauB(bx, by);
    expect(tau).toBeCloseTo(kendallBrute(bx, by)!, 10);
  });

  it('returns null when either variable has no untied pair', () => {
    expect(kendallTauB([1, 1, 1], [1, 2, 3])).toBeNull();
    expect(kendallTauB([1, 2, 3], [2, 2, 2])).toBeNull();
    expect(kendallTauB([1], [1])).toBeNull();
    expect(kendallTauB([], [])).toBeNull();
    expect(() => kendallTauB([1], [1, 2])).toThrow(RangeError);
  });
});

describe('mae and rmse', () => {
  it('compute hand-checked values', () => {
    // errors 1, −2, 0, 3 → MAE 6/4, RMSE √(14/4)
    expect(mae([1, 2, 3, 4], [0, 4, 3, 1])).toBeCloseTo(1.5, 14);
    expect(rmse([1, 2, 3, 4], [0, 4, 3, 1])).toBeCloseTo(Math.sqrt(3.5), 14);
  });

  it('are 0 for identical series, null for empty input and throw on unequal lengths', () => {
    expect(mae([1, 2], [1, 2])).toBe(0);
    expect(rmse([1, 2], [1, 2])).toBe(0);
    expect(mae([], [])).toBeNull();
    expect(rmse([], [])).toBeNull();
    expect(() => mae([1], [])).toThrow(RangeError);
    expect(() => rmse([1], [])).toThrow(RangeError);
  });
});
