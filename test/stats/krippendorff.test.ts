import { describe, it, expect } from 'vitest';
import { krippendorffAlpha } from '../../server/stats/krippendorff.ts';
import type { MeasurementLevel } from '../../server/stats/krippendorff.ts';
import { createRng } from '../../server/stats/bootstrap.ts';

// Krippendorff, K. (2011), "Computing Krippendorff's Alpha-Reliability", section C/D example:
// 4 observers × 12 units with missing values (rows = observers A–D, columns = units 1–12).
const _ = null;
const observers = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
  [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
];
const paperUnits = observers[0]!.map((_v, u) => observers.map((row) => row[u]));

/**
 * Independent brute force from the definitions, without a coincidence matrix:
 *   D_o = (1/n) Σ_u 1/(m_u − 1) Σ_{i≠j in u} δ²(v_i, v_j)
 *   D_e = 1/(n(n−1)) Σ_{i≠j over all pairable values} δ²(v_i, v_j)
 * The ordinal δ needs value frequencies, counted here directly from the pairable values.
 */
function alphaBrute(units: ReadonlyArray<ReadonlyArray<number | null>>, level: MeasurementLevel): number | null {
  const pairable = units.map((u) => u.filter((v): v is number => v !== null)).filter((u) => u.length >= 2);
  const all = pairable.flat();
  const n = all.length;
  const freq = (v: number) => all.filter((w) => w === v).length;
  const distinct = [...new Set(all)].sort((a, b) => a - b);
  const delta2 = (a: number, b: number): number => {
    if (a === b) return 0;
    switch (level) {
      case 'nominal': return 1;
      case 'interval': return (a - b) ** 2;
      case 'ratio': return ((a - b) / (a + b)) ** 2;
      case 'ordinal': {
        const lo = Math.min(a, b), hi = Math.max(a, b);
        const between = distinct.filter((g) => g >= lo && g <= hi).reduce((s, g) => s + freq(g), 0);
        return (between - (freq(a) + freq(b)) / 2) ** 2;
      }
    }
  };
  let dO = 0;
  for (const u of pairable) {
    let s = 0;
    for (let i = 0; i < u.length; i++) for (let j = 0; j < u.length; j++) if (i !== j) s += delta2(u[i]!, u[j]!);
    dO += s / (u.length - 1);
  }
  dO /= n;
  let dE = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) dE += delta2(all[i]!, all[j]!);
  dE /= n * (n - 1);
  return dE === 0 ? null : 1 - dO / dE;
}

function randomUnits(seed: number, items: number, coders: number, maxValue: number, missing: number): (number | null)[][] {
  const rng = createRng(seed);
  return Array.from({ length: items }, () => {
    const truth = 1 + Math.floor(rng() * maxValue);
    return Array.from({ length: coders }, () => {
      if (rng() < missing) return null;
      // mostly agree with the unit's "true" value, sometimes drift by one or pick at random
      const r = rng();
      if (r < 0.6) return truth;
      if (r < 0.85) return Math.max(1, Math.min(maxValue, truth + (rng() < 0.5 ? -1 : 1)));
      return 1 + Math.floor(rng() * maxValue);
    });
  });
}

describe('krippendorffAlpha', () => {
  it('reproduces Krippendorff (2011): nominal .743, ordinal .815, interval .849 (ratio .797 as in irr::kripp.alpha docs)', () => {
    const nominal = krippendorffAlpha(paperUnits, 'nominal');
    expect(nominal.alpha).toBeCloseTo(0.743, 3);
    expect(nominal.n_pairable_values).toBe(40);
    expect(nominal.n_items).toBe(11); // unit 12 has a single value
    // the paper's nominal computation: 1 − 39 · 8 / (40² − Σ n_c²) with n_c = 9, 13, 10, 5, 3
    expect(nominal.alpha).toBeCloseTo(1 - (39 * 8) / (1600 - (81 + 169 + 100 + 25 + 9)), 12);
    expect(krippendorffAlpha(paperUnits, 'ordinal').alpha).toBeCloseTo(0.815, 3);
    expect(krippendorffAlpha(paperUnits, 'interval').alpha).toBeCloseTo(0.849, 3);
    expect(krippendorffAlpha(paperUnits, 'ratio').alpha).toBeCloseTo(0.797, 3);
  });

  it('agrees with a brute-force pairwise computation on seeded random data, all levels', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const units = randomUnits(seed, 15 + seed * 3, 2 + (seed % 4), 3 + (seed % 5), 0.25);
      for (const level of ['nominal', 'ordinal', 'interval', 'ratio'] as const) {
        const expected = alphaBrute(units, level);
        const got = krippendorffAlpha(units, level).alpha;
        if (expected === null) expect(got).toBeNull();
        else expect(got).toBeCloseTo(expected, 10);
      }
    }
  });

  it('accepts ragged units without null placeholders, and string or boolean labels at nominal level', () => {
    const ragged = paperUnits.map((u) => u.filter((v) => v !== null));
    expect(krippendorffAlpha(ragged, 'nominal').alpha).toBeCloseTo(0.743, 3);
    const asStrings = paperUnits.map((u) => u.map((v) => (v === null ? null : `v${v}`)));
    expect(krippendorffAlpha(asStrings, 'nominal').alpha).toBeCloseTo(0.743, 3);
    const bools = [[true, true], [false, false], [true, false], [true, true, true]];
    const asNumbers = bools.map((u) => u.map((v) => (v ? 1 : 0)));
    expect(krippendorffAlpha(bools, 'nominal').alpha).toBeCloseTo(alphaBrute(asNumbers, 'nominal')!, 12);
  });

  it('is 1 for perfect agreement and null when nothing varies or nothing is pairable', () => {
    expect(krippendorffAlpha([[1, 1], [2, 2, 2], [3, 3]], 'interval').alpha).toBe(1);
    const constant = krippendorffAlpha([[2, 2], [2, 2]], 'nominal');
    expect(constant.alpha).toBeNull();
    expect(constant.n_pairable_values).toBe(4);
    const unpairable = krippendorffAlpha([[1], [2, null], []], 'nominal');
    expect(unpairable).toMatchObject({ alpha: null, n_pairable_values: 0, n_items: 0 });
    expect(krippendorffAlpha([], 'ordinal').alpha).toBeNull();
  });

  it('can go negative under systematic disagreement', () => {
    expect(krippendorffAlpha([[1, 2], [2, 1], [1, 2], [2, 1]], 'nominal').alpha!).toBeLessThan(0);
  });

  it('rejects non-numeric values above nominal level and negative ratio values', () => {
    expect(() => krippendorffAlpha([['a', 'b']], 'ordinal')).toThrow(TypeError);
    expect(() => krippendorffAlpha([[1, -1]], 'ratio')).toThrow(RangeError);
    expect(() => krippendorffAlpha([[1, NaN]], 'interval')).toThrow(RangeError);
  });
});
