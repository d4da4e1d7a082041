// OLS t-tests (statsmodels' definitions), Student's t tail (scipy), Holm's adjustment (statsmodels multipletests).
import { describe, expect, it } from 'vitest';
import { incompleteBeta, logGamma, studentTTwoSided } from '../../server/stats/distributions.ts';
import { holm, ols } from '../../server/stats/ols.ts';

describe('Student\'s t two-sided p-value', () => {
  it('matches the closed forms for 1 and 2 degrees of freedom', () => {
    // df = 1 (Cauchy): p = 1 − 2·atan(t)/π; df = 2: p = 1 − t/√(t² + 2)
    for (const t of [0.1, 0.5, 1, 3, 12]) {
      expect(studentTTwoSided(t, 1)).toBeCloseTo(1 - (2 * Math.atan(t)) / Math.PI, 13);
      expect(studentTTwoSided(-t, 2)).toBeCloseTo(1 - t / Math.sqrt(t * t + 2), 13);
    }
  });

  it('matches scipy (2·t.sf(|t|, df))', () => {
    const cases: [number, number, number][] = [
      [2.0, 5, 0.10193947882985835], [3.1, 12, 0.009189996378391336], [-2.228138851986, 10, 0.050000000000023255],
      [10, 3, 0.0021283990584141503], [0.01, 40, 0.9920709969599448], [2.5, 200, 0.013223172641700783], [4.2, 7.5, 0.0034600818129523203],
    ];
    for (const [t, df, p] of cases) expect(studentTTwoSided(t, df)).toBeCloseTo(p, 12);
  });

  it('ln Γ and the incomplete beta at known points', () => {
    expect(logGamma(1)).toBeCloseTo(0, 14);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 14);
    expect(logGamma(10)).toBeCloseTo(Math.log(362880), 12);
    expect(incompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 14); // uniform
    expect(incompleteBeta(0.3, 2, 1)).toBeCloseTo(0.09, 14); // x²
  });
});

describe('ols', () => {
  // Residuals of 10 items against answer length (per 100 characters), contexts, and a second system.
  const len = [120, 340, 80, 560, 230, 410, 95, 300, 150, 620].map((v) => v / 100);
  const ctx = [2, 3, 1, 4, 2, 3, 1, 5, 2, 4];
  const sys = [0, 1, 0, 1, 1, 0, 0, 1, 1, 0];
  const y = [0.1, -0.3, 0.2, -0.6, -0.1, -0.2, 0.3, -0.4, 0.0, -0.7];
  const ones = y.map(() => 1);

  it('matches statsmodels\' coefficients, standard errors and p-values', () => {
    const r = ols([ones, len, ctx, sys], y);
    const want = {
      coef: [0.4281727982734333, -0.1178298775143494, -0.07996528311836693, -0.07994147934931481],
      se: [0.04740185501739086, 0.01831281367140861, 0.02837530355926627, 0.045687787764425315],
      p: [0.00010313234687590855, 0.0006664163341257962, 0.030428917420693282, 0.13073865587795153],
    };
    want.coef.forEach((v, i) => expect(r.coef[i]!).toBeCloseTo(v, 12));
    want.se.forEach((v, i) => expect(r.se[i]!).toBeCloseTo(v, 12));
    want.p.forEach((v, i) => expect(r.p[i]!).toBeCloseTo(v, 11));
    expect(r.df).toBe(6);
    expect(r.dropped).toEqual([]);
  });

  it('drops a column that does not vary (collinear with the intercept) instead of inventing a coefficient', () => {
    const r = ols([ones, len, y.map(() => 3)], y);
    expect(r.dropped).toEqual([2]);
    expect(r.coef[2]).toBeNull();
    expect(r.p[2]).toBeNull();
    expect(r.df).toBe(8);
  });

  it('a simple regression\'s slope is Cov/Var', () => {
    const r = ols([[1, 1, 1, 1], [1, 2, 3, 4]], [2, 4, 5, 9]);
    // x̄ = 2.5, ȳ = 5; Σ(x−x̄)(y−ȳ) = (−1.5)(−3) + (−.5)(−1) + (.5)(0) + (1.5)(4) = 11; Σ(x−x̄)² = 5
    expect(r.coef[1]).toBeCloseTo(11 / 5, 14);
    expect(r.coef[0]).toBeCloseTo(5 - 2.5 * 2.2, 14);
  });
});

describe('holm', () => {
  it('matches statsmodels multipletests(method="holm")', () => {
    // sorted .01 .03 .04 .2 → 4·.01, max(.04, 3·.03), max(.09, 2·.04), max(.09, .2)
    expect(holm([0.01, 0.04, 0.03, 0.2])).toEqual([0.04, expect.closeTo(0.09, 15), expect.closeTo(0.09, 15), 0.2]);
    expect(holm([0.0006664163341257962, 0.030428917420693282, 0.13073865587795153]).map((p) => p!.toFixed(12)))
      .toEqual([0.001999249002377389, 0.060857834841386564, 0.13073865587795153].map((p) => p.toFixed(12)));
  });

  it('caps at 1 and leaves nulls out', () => {
    expect(holm([0.6, null, 0.7])).toEqual([1, null, 1]);
  });
});
