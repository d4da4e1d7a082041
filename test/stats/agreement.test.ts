import { describe, it, expect } from 'vitest';
import { cohenKappa, countTable, fleissKappa, pairwiseCohen, percentAgreement } from '../../server/stats/agreement.ts';
import type { Label } from '../../server/stats/basic.ts';
import { correlatedInts, randomInts } from './random-data.ts';

/** Expands a 2×2 table (rater A rows, rater B columns; yes first) into paired label lists. */
function fromTable(yy: number, yn: number, ny: number, nn: number): [string[], string[]] {
  const a: string[] = [];
  const b: string[] = [];
  const add = (count: number, va: string, vb: string) => { for (let i = 0; i < count; i++) { a.push(va); b.push(vb); } };
  add(yy, 'yes', 'yes'); add(yn, 'yes', 'no'); add(ny, 'no', 'yes'); add(nn, 'no', 'no');
  return [a, b];
}

/** Weighted kappa in agreement-weight form with explicit proportion matrices (a different route from the module's disagreement form). */
function weightedKappaMatrix(a: readonly number[], b: readonly number[], k: number, kind: 'none' | 'linear' | 'quadratic'): number {
  const n = a.length;
  const p = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let i = 0; i < n; i++) p[a[i]!]![b[i]!]! += 1 / n;
  const row = p.map((r) => r.reduce((s, v) => s + v, 0));
  const col = p[0]!.map((_v, j) => p.reduce((s, r) => s + r[j]!, 0));
  const w = (i: number, j: number) =>
    kind === 'none' ? (i === j ? 1 : 0) : kind === 'linear' ? 1 - Math.abs(i - j) / (k - 1) : 1 - ((i - j) / (k - 1)) ** 2;
  let po = 0, pe = 0;
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) { po += w(i, j) * p[i]![j]!; pe += w(i, j) * row[i]! * col[j]!; }
  return (po - pe) / (1 - pe);
}

describe('cohenKappa', () => {
  it('matches Wikipedia "Cohen\'s kappa": 20/5/10/15 of 50 → κ = 0.4', () => {
    const [a, b] = fromTable(20, 5, 10, 15);
    expect(cohenKappa(a, b)).toBeCloseTo(0.4, 12);
  });

  it('matches the Wikipedia "same agreement, different marginals" tables: 0.1304 and 0.2593', () => {
    // p_o = 0.6 in both; p_e = 0.54 and 0.46 → κ = 0.06/0.46 and 0.14/0.54
    expect(cohenKappa(...fromTable(45, 15, 25, 15))).toBeCloseTo(0.06 / 0.46, 12);
    expect(cohenKappa(...fromTable(25, 35, 5, 35))).toBeCloseTo(0.14 / 0.54, 12);
  });

  it('matches Maple EssayTools QuadraticWeightedKappa documentation examples (scale 1..10)', () => {
    const scale = Array.from({ length: 10 }, (_v, i) => i + 1);
    const opts = { weights: 'quadratic' as const, categories: scale };
    expect(cohenKappa([9, 7, 8, 7, 6, 8, 3, 5, 10], [8, 8, 6, 6, 7, 6, 1, 4, 8], opts)).toBeCloseTo(0.758620689655172, 12);
    expect(cohenKappa([9, 7, 8, 7, 6, 8, 3, 5, 10], [3, 5, 6, 6, 7, 6, 1, 4, 8], opts)).toBeCloseTo(0.438095238095238, 12);
  });

  it('quadratic kappa equals 2·cov / (var_a + var_b + (mean_a − mean_b)²) on an equally spaced scale (Fleiss & Cohen 1973 identity)', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const a = randomInts(120, 0, 4, seed);
      const b = correlatedInts(a, 1, seed + 50).map((v) => Math.max(0, Math.min(4, v)));
      const n = a.length;
      const ma = a.reduce((s, v) => s + v, 0) / n;
      const mb = b.reduce((s, v) => s + v, 0) / n;
      let cov = 0, va = 0, vb = 0;
      for (let i = 0; i < n; i++) { cov += (a[i]! - ma) * (b[i]! - mb); va += (a[i]! - ma) ** 2; vb += (b[i]! - mb) ** 2; }
      const expected = (2 * cov / n) / (va / n + vb / n + (ma - mb) ** 2);
      expect(cohenKappa(a, b, { weights: 'quadratic', categories: [0, 1, 2, 3, 4] })).toBeCloseTo(expected, 10);
    }
  });

  it('agrees with explicit agreement-weight matrix sums for all weightings on seeded data', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const a = randomInts(80, 0, 5, seed);
      const b = correlatedInts(a, 2, seed + 9).map((v) => Math.max(0, Math.min(5, v)));
      const categories = [0, 1, 2, 3, 4, 5];
      for (const w of ['none', 'linear', 'quadratic'] as const) {
        expect(cohenKappa(a, b, { weights: w, categories })).toBeCloseTo(weightedKappaMatrix(a, b, 6, w), 10);
      }
    }
  });

  it('weights by category position in the given order', () => {
    const order = ['low', 'mid', 'high'];
    const a = ['low', 'mid', 'high', 'high', 'low'];
    const b = ['mid', 'mid', 'high', 'mid', 'high'];
    const idx = (v: string) => order.indexOf(v);
    expect(cohenKappa(a, b, { weights: 'linear', categories: order })).toBeCloseTo(weightedKappaMatrix(a.map(idx), b.map(idx), 3, 'linear'), 12);
  });

  it('returns null when expected agreement is 1 or input is empty; throws on bad input', () => {
    expect(cohenKappa(['x', 'x', 'x'], ['x', 'x', 'x'])).toBeNull();
    expect(cohenKappa([], [])).toBeNull();
    // one rater constant, the other not: p_e < 1, κ = 0
    expect(cohenKappa(['x', 'x', 'x', 'x'], ['x', 'y', 'x', 'y'])).toBe(0);
    expect(() => cohenKappa(['x'], [])).toThrow(RangeError);
    expect(() => cohenKappa(['x'], ['z'], { categories: ['x', 'y'] })).toThrow(RangeError);
  });
});

describe('fleissKappa', () => {
  // Fleiss (1971) as worked in Wikipedia "Fleiss' kappa": 10 subjects, 14 raters, 5 categories,
  // P̄ = 0.378, P̄_e = 0.213, κ = 0.210.
  const wikipedia = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
  ];

  it('matches the Wikipedia worked example: κ ≈ 0.210', () => {
    expect(fleissKappa(wikipedia)).toBeCloseTo(0.21, 3);
  });

  it("equals Scott's pi (pooled-marginal chance agreement) when every item has two ratings", () => {
    for (let seed = 1; seed <= 10; seed++) {
      const a = randomInts(60, 0, 3, seed);
      const b = correlatedInts(a, 1, seed + 3).map((v) => Math.max(0, Math.min(3, v)));
      const po = a.filter((v, i) => v === b[i]).length / a.length;
      let pe = 0;
      for (let c = 0; c <= 3; c++) pe += ((a.filter((v) => v === c).length + b.filter((v) => v === c).length) / (2 * a.length)) ** 2;
      const { table } = countTable(a.map((v, i) => [v, b[i]!]), [0, 1, 2, 3]);
      expect(fleissKappa(table)).toBeCloseTo((po - pe) / (1 - pe), 10);
    }
  });

  it('returns null for unequal rater counts, a single rater, one category or no items', () => {
    expect(fleissKappa([[1, 1], [2, 1]])).toBeNull();
    expect(fleissKappa([[1, 0], [0, 1]])).toBeNull();
    expect(fleissKappa([[3, 0], [3, 0]])).toBeNull();
    expect(fleissKappa([])).toBeNull();
  });

  it('throws on ragged rows or invalid counts', () => {
    expect(() => fleissKappa([[1, 1], [2]])).toThrow(RangeError);
    expect(() => fleissKappa([[1, -1, 2]])).toThrow(RangeError);
    expect(() => fleissKappa([[1.5, 0.5]])).toThrow(RangeError);
  });
});

describe('countTable', () => {
  it('counts labels per item, skipping missing ones', () => {
    expect(countTable([['a', 'b', null], ['b', 'b']])).toEqual({ categories: ['a', 'b'], table: [[1, 1], [0, 2]] });
    expect(() => countTable([['c']], ['a'])).toThrow(RangeError);
  });
});

describe('percentAgreement', () => {
  it('averages the within-item share of agreeing pairs over items with ≥ 2 labels', () => {
    // item 1: 3 of 3 pairs agree; item 2: (a,a) agrees of 3 pairs → 1/3; item 3: 0/1; item 4 skipped
    expect(percentAgreement([['a', 'a', 'a'], ['a', 'a', 'b'], ['a', 'b'], ['a', null]])).toBeCloseTo((1 + 1 / 3 + 0) / 3, 12);
  });

  it('is null without any multiply-labelled item', () => {
    expect(percentAgreement([['a'], [], [null, 'b']])).toBeNull();
    expect(percentAgreement([])).toBeNull();
  });
});

describe('pairwiseCohen', () => {
  it('computes kappa for every annotator pair over the items both labelled', () => {
    const ratings = new Map<string, Map<number, Label>>([
      ['ann', new Map<number, Label>([[1, 'pass'], [2, 'fail'], [3, 'pass'], [4, 'fail']])],
      ['bob', new Map<number, Label>([[1, 'pass'], [2, 'fail'], [3, 'fail'], [5, 'pass']])],
      ['cy', new Map<number, Label>([[9, 'pass']])],
    ]);
    const result = pairwiseCohen(ratings);
    expect(result.map((r) => [r.a, r.b, r.n])).toEqual([['ann', 'bob', 3], ['ann', 'cy', 0], ['bob', 'cy', 0]]);
    expect(result[0]!.kappa).toBeCloseTo(cohenKappa(['pass', 'fail', 'pass'], ['pass', 'fail', 'fail'])!, 12);
    expect(result[1]!.kappa).toBeNull();
  });

  it('uses one shared category order for weighted kappa', () => {
    // bob never uses 2, so a per-pair category list would compress the scale
    const ratings = new Map<string, Map<string, Label>>([
      ['ann', new Map<string, Label>([['q1', 1], ['q2', 3], ['q3', 2]])],
      ['bob', new Map<string, Label>([['q1', 1], ['q2', 3], ['q3', 3]])],
    ]);
    const [ab] = pairwiseCohen(ratings, { weights: 'quadratic' });
    expect(ab!.kappa).toBeCloseTo(cohenKappa([1, 3, 2], [1, 3, 3], { weights: 'quadratic', categories: [1, 2, 3] })!, 12);
  });
});
