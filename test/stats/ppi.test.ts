// PPI++ for a mean: worked examples computed by hand, every intermediate shown, and the edge cases
// where the reference (ppi_py) would divide by zero.
import { describe, expect, it } from 'vitest';
import {
  classicalMean, clusteredDifference, covariance1n, effectiveLabels, labelsNeeded, meanContributions, plannedVariance, powerTuning,
  ppiContributions, ppiMean, predictionVariance, Z95,
} from '../../server/stats/ppi.ts';

describe('ppiMean, worked by hand', () => {
  // n = 4 labelled: Y = 1 0 1 1, Ŷ = 1 0 0 1; N = 4 unlabelled: Ŷᵤ = 1 1 0 1.
  const Y = [1, 0, 1, 1];
  const Yh = [1, 0, 0, 1];
  const Yu = [1, 1, 0, 1];

  it('λ = Cov(Y, Ŷ) (1/n) ÷ ((1 + n/N) · Var(all Ŷ) (1/(n+N−1)))', () => {
    // mean Y = 0.75, mean Ŷ = 0.5; products of deviations: .25·.5, −.75·−.5, .25·−.5, .25·.5 = .125 + .375 − .125 + .125 = .5
    expect(covariance1n(Y, Yh)).toBeCloseTo(0.5 / 4, 15);
    // all 8 predictions 1 0 0 1 1 1 0 1: mean 5/8; Σ(x − 5/8)² = 5·(3/8)² + 3·(5/8)² = 45/64 + 75/64 = 120/64 = 1.875; ÷ 7
    expect(predictionVariance(Yh, Yu)).toBeCloseTo(1.875 / 7, 15);
    // λ = 0.125 / (2 · 1.875/7) = 0.875 / 3.75 = 7/30
    expect(powerTuning(Y, Yh, Yu)).toEqual({ lambda: expect.closeTo(7 / 30, 15), lambda_raw: expect.closeTo(7 / 30, 15), notes: [] });
  });

  it('estimate λ·mean(Ŷᵤ) + mean(Y − λŶ), se from 1/N and 1/n variances, normal interval', () => {
    const r = ppiMean(Y, Yh, Yu);
    const lambda = 7 / 30;
    // λ · 0.75 + (0.75 − λ · 0.5) = 0.75 + λ/4 = 0.75 + 7/120
    expect(r.estimate).toBeCloseTo(0.75 + 7 / 120, 14);
    // Var(λŶᵤ) = λ² · (0.75 · 0.25) = λ² · 3/16, over N = 4
    const imputed = (lambda ** 2 * 3) / 16 / 4;
    // Y − λŶ = 23/30, 0, 1, 23/30: mean 19/30, deviations 4/30, −19/30, 11/30, 4/30; Σ² = (16 + 361 + 121 + 16)/900 = 514/900; 1/n → 514/3600, over n = 4
    const rectifier = 514 / 3600 / 4;
    expect(r.se).toBeCloseTo(Math.sqrt(imputed + rectifier), 14);
    expect(r.se).toBeCloseTo(0.1955671950450223, 14); // ppi_py's definitions evaluated with numpy
    expect(r.ci95![0]).toBeCloseTo(0.42502867448756954, 13);
    expect(r.ci95![1]).toBeCloseTo(1.1916379921790972, 13);
    expect(r).toMatchObject({ n: 4, N: 4, notes: [] });
  });

  it('matches ppi_py on a numeric example (λ not clipped)', () => {
    const r = ppiMean([0.9, 0.2, 0.7, 0.4, 1.0, 0.0, 0.6, 0.8], [0.8, 0.4, 0.9, 0.5, 0.9, 0.3, 0.5, 1.0],
      [0.7, 0.1, 0.95, 0.6, 0.3, 0.85, 0.5, 0.45, 0.2, 0.9, 0.65, 0.75]);
    expect(r.lambda).toBeCloseTo(0.6061615700593337, 13);
    expect(r.estimate).toBeCloseTo(0.5244865358283888, 13);
    expect(r.se).toBeCloseTo(0.0855871890481749, 13);
    expect(r.ci95![0]).toBeCloseTo(0.356738727755945, 13);
    expect(r.ci95![1]).toBeCloseTo(0.6922343439008325, 13);
  });

  it('λ = 1 is the original PPI and λ = 0 the classical mean', () => {
    const ppi = ppiMean(Y, Yh, Yu, { lambda: 1 });
    // mean(Ŷᵤ) + mean(Y − Ŷ) = 0.75 + 0.25
    expect(ppi.estimate).toBeCloseTo(1, 15);
    const classical = ppiMean(Y, Yh, Yu, { lambda: 0 });
    expect(classical.estimate).toBeCloseTo(0.75, 15);
    expect(classical.se).toBeCloseTo(classicalMean(Y).se!, 15);
  });
});

describe('ppiMean edge cases: never a division by zero, always a note', () => {
  it('no labels: no estimate', () => {
    expect(ppiMean([], [], [0.5, 0.7])).toMatchObject({ estimate: null, ci95: null, lambda: null, notes: ['no_labels'] });
  });

  it('one label: no λ, no interval', () => {
    expect(ppiMean([1], [1], [0, 1])).toMatchObject({ estimate: null, ci95: null, lambda: null, notes: ['too_few_labels'] });
  });

  it('no unlabelled items: λ = 0, the classical mean of the labels', () => {
    const r = ppiMean([1, 0, 1], [1, 1, 1], []);
    expect(r).toMatchObject({ lambda: 0, N: 0, notes: ['no_unlabelled'] });
    expect(r.estimate).toBeCloseTo(2 / 3, 15);
    expect(r.se).toBeCloseTo(classicalMean([1, 0, 1]).se!, 15);
  });

  it('constant predictions: λ = 0 (they carry no information)', () => {
    const r = ppiMean([1, 0, 1, 1], [0.7, 0.7, 0.7, 0.7], [0.7, 0.7]);
    expect(r).toMatchObject({ lambda: 0, lambda_raw: null, notes: ['constant_predictions'] });
    expect(r.estimate).toBeCloseTo(0.75, 15);
  });

  it('λ below 0 is clipped to 0', () => {
    // Predictions that run against the gold: Cov < 0.
    const r = powerTuning([1, 0, 1, 0], [0, 1, 0, 1], [0, 1]);
    expect(r.lambda).toBe(0);
    expect(r.lambda_raw!).toBeLessThan(0);
    expect(r.notes).toEqual(['lambda_clipped_low']);
  });

  it('λ above 1 is clipped to 1', () => {
    // Predictions compressed towards the middle but perfectly ordered: Cov(Y, Ŷ) > (1 + n/N)·Var(Ŷ).
    const Y = [0, 1, 0, 1];
    const Yh = [0.45, 0.55, 0.45, 0.55];
    const Yu = Array.from({ length: 400 }, (_, i) => (i % 2 ? 0.55 : 0.45));
    // Cov = 0.25 · 0.05 · 4 / 4 = 0.025; Var(all) ≈ 0.0025; (1 + 4/400) · 0.0025 ≈ 0.002525 → λ ≈ 9.9
    const r = powerTuning(Y, Yh, Yu);
    expect(r.lambda).toBe(1);
    expect(r.lambda_raw!).toBeGreaterThan(1);
    expect(r.notes).toEqual(['lambda_clipped_high']);
  });

  it('refuses non-finite values and mismatched lengths', () => {
    expect(() => ppiMean([1, NaN], [1, 1], [])).toThrow(RangeError);
    expect(() => ppiMean([1, 0], [1], [])).toThrow(RangeError);
    expect(() => ppiMean([1, 0], [1, 0], [1], { lambda: 2 })).toThrow(RangeError);
  });
});

describe('classicalMean (experts only, judge only)', () => {
  it('mean ± z · sd(1/n) / √n', () => {
    // 1 0 1 1: mean .75, sd² = .1875, se = √(.1875/4)
    const r = classicalMean([1, 0, 1, 1]);
    expect(r.estimate).toBe(0.75);
    expect(r.se).toBeCloseTo(Math.sqrt(0.1875 / 4), 15);
    expect(r.ci95![1] - 0.75).toBeCloseTo(Z95 * Math.sqrt(0.1875 / 4), 15);
  });

  it('says when it cannot give an interval', () => {
    expect(classicalMean([])).toMatchObject({ estimate: null, notes: ['no_values'] });
    expect(classicalMean([0.4])).toMatchObject({ estimate: 0.4, ci95: null, notes: ['one_value'] });
    expect(classicalMean([1, 1, 1])).toMatchObject({ estimate: 1, ci95: [1, 1], notes: ['constant_values'] });
  });
});

describe('effective number of labels', () => {
  it('is Var(Y)/se²: the experts-only sample with the corrected width', () => {
    const Y = [1, 0, 1, 1];
    const r = ppiMean(Y, [1, 0, 0, 1], [1, 1, 0, 1]);
    const eff = effectiveLabels(Y, r)!;
    expect(eff).toBeCloseTo(0.1875 / r.se! ** 2, 12);
    // An experts-only interval from eff labels with the same sd has the corrected half-width.
    expect(Z95 * Math.sqrt(0.1875 / eff)).toBeCloseTo(Z95 * r.se!, 12);
  });

  it('equals n(n + N)/(n + (1 − ρ²)N) when λ is at its optimum (ppi_py ppi_power)', () => {
    // Large N so that plug-in λ ≈ optimum: build data with known ρ, labelled set is a subset.
    const n = 40;
    const Y: number[] = [];
    const Yh: number[] = [];
    for (let i = 0; i < n; i++) {
      const x = (i % 10) / 10;
      Yh.push(x);
      Y.push(0.6 * x + ((i * 7) % 5) / 10);
    }
    // Unlabelled predictions with the labelled ones' distribution (so one Var(Ŷ) fits both).
    const Yu = Array.from({ length: 4000 }, (_, j) => Yh[j % n]!);
    const r = ppiMean(Y, Yh, Yu);
    expect(r.notes).toEqual([]); // λ inside (0, 1)
    const vy = covariance1n(Y, Y);
    const vh = covariance1n(Yh, Yh);
    const rho = covariance1n(Y, Yh) / Math.sqrt(vy * vh);
    const N = Yu.length;
    expect(effectiveLabels(Y, r)!).toBeCloseTo((n * (n + N)) / (n + (1 - rho ** 2) * N), 0);
  });

  it('is null without an interval', () => {
    expect(effectiveLabels([1], { se: null })).toBeNull();
  });
});

describe('labelsNeeded (the planner)', () => {
  it('experts alone: ⌈z² · Var(Y) / h²⌉', () => {
    // Var .25 (a fair coin), h = .05: 1.96² · .25 / .0025 = 384.1 → 385
    expect(labelsNeeded({ varY: 0.25, varYhat: 0.25, cov: 0, population: 10_000, halfWidth: 0.05 }).gold_only).toBe(385);
  });

  it('with an uninformative judge the correction needs as many as experts alone', () => {
    const plan = labelsNeeded({ varY: 0.25, varYhat: 0.25, cov: 0, population: 100_000, halfWidth: 0.05 });
    expect(plan.corrected).toBe(385);
  });

  it('with an informative judge the correction needs fewer, and the plan meets the target', () => {
    const p = { varY: 0.25, varYhat: 0.25, cov: 0.2, population: 100_000, halfWidth: 0.05 };
    const plan = labelsNeeded(p);
    // ρ = .8: about (1 − ρ²) = .36 of 385 when N ≫ n
    expect(plan.corrected!).toBeGreaterThan(130);
    expect(plan.corrected!).toBeLessThan(145);
    expect(Z95 * Math.sqrt(plannedVariance(p, plan.corrected!))).toBeLessThanOrEqual(0.05);
    expect(Z95 * Math.sqrt(plannedVariance(p, plan.corrected! - 1))).toBeGreaterThan(0.05);
  });

  it('null when labelling every item would not reach the width; experts alone may exceed the population', () => {
    const plan = labelsNeeded({ varY: 0.25, varYhat: 0.25, cov: 0.1, population: 100, halfWidth: 0.01 });
    expect(plan.corrected).toBeNull();
    expect(plan.gold_only!).toBeGreaterThan(100);
  });

  it('nothing to plan from when every gold value so far is the same', () => {
    expect(labelsNeeded({ varY: 0, varYhat: 0.2, cov: 0, population: 100, halfWidth: 0.05 })).toEqual({ corrected: null, gold_only: null });
  });
});

describe('clusteredDifference', () => {
  it('with one item per cluster its se² is the sum of the two variances (independent samples)', () => {
    const a = [1, 0, 1, 1];
    const b = [0, 0, 1, 0, 1];
    const d = clusteredDifference({ estimate: 0.75, psi: meanContributions(a), clusters: [1, 2, 3, 4] },
      { estimate: 0.4, psi: meanContributions(b), clusters: [5, 6, 7, 8, 9] });
    expect(d.estimate).toBeCloseTo(0.35, 15);
    expect(d.se!).toBeCloseTo(Math.sqrt(classicalMean(a).se! ** 2 + classicalMean(b).se! ** 2), 15);
  });

  it('pairs items of the same cluster: identical sides have no variance in their difference', () => {
    const a = [0.2, 0.9, 0.4, 0.6];
    const psi = meanContributions(a);
    const d = clusteredDifference({ estimate: 0.525, psi, clusters: [1, 2, 3, 4] }, { estimate: 0.525, psi, clusters: [1, 2, 3, 4] });
    expect(d.estimate).toBe(0);
    expect(d.se).toBe(0);
  });

  it('ψ of the corrected mean reproduces ppiMean\'s se', () => {
    const Y = [1, 0, 1, 1];
    const Yh = [1, 0, 0, 1];
    const Yu = [1, 1, 0, 1];
    const r = ppiMean(Y, Yh, Yu);
    const psi = ppiContributions(Y, Yh, Yu, r.lambda!);
    expect(Math.sqrt(psi.reduce((s, v) => s + v * v, 0))).toBeCloseTo(r.se!, 15);
  });

  it('no interval from fewer than two clusters', () => {
    expect(clusteredDifference({ estimate: 1, psi: new Float64Array([0]), clusters: [1] }, { estimate: 0, psi: new Float64Array([0]), clusters: [1] }).ci95).toBeNull();
  });
});
