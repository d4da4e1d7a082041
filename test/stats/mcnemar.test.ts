import { describe, it, expect } from 'vitest';
// Imported through the public index to check the re-exports resolve.
import { mcnemarExact, mcnemarFromPairs } from '../../server/stats/index.ts';

/** Exact two-sided p from BigInt binomial coefficients: an independent, rounding-free reference. */
function exactP(b: number, c: number): number {
  const m = b + c;
  if (m === 0) return 1;
  const k = Math.min(b, c);
  let coef = 1n;
  let tail = 0n;
  for (let j = 0; j <= k; j++) {
    tail += coef;
    coef = (coef * BigInt(m - j)) / BigInt(j + 1);
  }
  // 2·tail / 2^m with ~17 significant digits kept
  const scale = 10n ** 18n;
  const p = Number((2n * tail * scale) / (1n << BigInt(m))) / 1e18;
  return Math.min(1, p);
}

describe('mcnemarExact', () => {
  it('matches Fagerland, Lydersen & Laake (2013), BMC Med Res Methodol 13:91: b = 1, c = 7 → exact p = 0.070', () => {
    const r = mcnemarExact(1, 7);
    expect(r).toMatchObject({ b: 1, c: 7 });
    expect(r.p_value).toBeCloseTo(0.07, 3);
    expect(r.p_value).toBeCloseTo(18 / 256, 14); // 2·(1 + 8)/2⁸
  });

  it('matches a hand computation: b = 2, c = 8 → 2·(1 + 10 + 45)/1024', () => {
    expect(mcnemarExact(2, 8).p_value).toBeCloseTo(112 / 1024, 14);
    expect(mcnemarExact(8, 2).p_value).toBeCloseTo(112 / 1024, 14);
  });

  it('is 1 without discordant pairs and capped at 1 when b = c', () => {
    expect(mcnemarExact(0, 0).p_value).toBe(1);
    expect(mcnemarExact(5, 5).p_value).toBe(1);
    expect(mcnemarExact(0, 1).p_value).toBe(1);
  });

  it('agrees with exact BigInt arithmetic, including counts where 2^m underflows doubles', () => {
    for (const [b, c] of [[0, 5], [3, 17], [40, 60], [480, 520], [900, 1100], [1500, 1600], [0, 30]] as const) {
      const expected = exactP(b, c);
      const got = mcnemarExact(b, c).p_value;
      if (expected < 1e-300) expect(got).toBeLessThan(1e-290);
      else expect(Math.abs(got - expected) / expected).toBeLessThan(1e-9);
    }
  });

  it('rejects negative or fractional counts', () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(RangeError);
    expect(() => mcnemarExact(1.5, 2)).toThrow(RangeError);
  });
});

describe('mcnemarFromPairs', () => {
  it('counts discordant pairs from per-item correctness', () => {
    const a = [true, true, false, false, true, false, false];
    const b = [true, false, true, true, false, false, true];
    // only A right: items 2, 5 → b = 2; only B right: items 3, 4, 7 → c = 3
    expect(mcnemarFromPairs(a, b)).toEqual(mcnemarExact(2, 3));
    expect(() => mcnemarFromPairs([true], [])).toThrow(RangeError);
  });
});
