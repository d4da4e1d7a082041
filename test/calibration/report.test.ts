import { describe, it, expect } from 'vitest';
import { calibrationReport, kappaCurve, prepareCalibration, scoreScaleOf, weightedKappaOn, CI_ORDER } from '../../server/calibration/report.ts';
import type { BinaryReport, CalibrationPair, CategoricalReport, OrdinalReport } from '../../server/calibration/report.ts';
import {
  allIndices, bestThreshold, bootstrapCI, cohenKappa, confusionAt, confusionMetricOn, createRng, f1, kappaFromConfusion, kendallOn, kendallTauB,
  mae, maeOn, pearson, pearsonOn, rmse, rocAuc, rocAucOn, spearman, spearmanOn, evalGenAlignment,
} from '../../server/stats/index.ts';

const ok = (id: number, score: number, gold: string): CalibrationPair => ({ id, score, scoreStatus: 'ok', gold });

/** n seeded items: gold 0/1 and a score that leans towards it. */
function binaryPairs(n: number, seed: number): CalibrationPair[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, (_, i) => {
    const pass = rng() < 0.6;
    return ok(i + 1, Math.round(Math.min(1, Math.max(0, (pass ? 0.35 : 0) + rng() * 0.65)) * 100) / 100, pass ? '1' : '0');
  });
}

/** AUC by brute force over all (pass, fail) pairs, ties one half. */
function aucPairs(scores: number[], pass: boolean[]): number {
  let wins = 0, pairs = 0;
  scores.forEach((s, i) => {
    if (!pass[i]) return;
    scores.forEach((t, j) => {
      if (pass[j]) return;
      pairs++;
      wins += s > t ? 1 : s === t ? 0.5 : 0;
    });
  });
  return wins / pairs;
}

describe('numeric criteria: correlations and errors', () => {
  // x = 0.1..0.5, y a permutation with two swapped neighbours: Σdxdy = .08, Σdx² = Σdy² = .1.
  const x = [0.1, 0.2, 0.3, 0.4, 0.5];
  const y = [0.2, 0.1, 0.4, 0.3, 0.5];
  const report = calibrationReport({ kind: 'numeric', pairs: x.map((s, i) => ok(i + 1, s, String(y[i]))) });

  it('matches hand-computed Pearson, Spearman, Kendall tau-b, MAE and RMSE', () => {
    expect(report.n).toBe(5);
    expect(report.pearson).toBeCloseTo(0.8, 12);
    expect(report.spearman).toBeCloseTo(0.8, 12); // the ranks have the same structure
    expect(report.kendall_tau_b).toBeCloseTo(0.6, 12); // 8 concordant, 2 discordant of 10 pairs
    expect(report.mae).toBeCloseTo(0.08, 12);
    expect(report.rmse).toBeCloseTo(Math.sqrt(0.008), 12);
  });

  it('handles ties with tau-b and average ranks', () => {
    // x ties one pair, y ties one pair; C = 4, D = 0 → tau-b = 4/√(5·5); ranks give rho = 3.75/4.5.
    const r = calibrationReport({ kind: 'numeric', pairs: [ok(1, 0.1, '0.1'), ok(2, 0.1, '0.2'), ok(3, 0.2, '0.2'), ok(4, 0.3, '0.3')] });
    expect(r.kendall_tau_b).toBeCloseTo(0.8, 12);
    expect(r.spearman).toBeCloseTo(3.75 / 4.5, 12);
  });

  it('agrees with the stats module on random data, intervals included', () => {
    const rng = createRng(5);
    const pairs = Array.from({ length: 300 }, (_, i) => {
      const g = Math.round(rng() * 20) / 20;
      return ok(i + 1, Math.round(Math.min(1, Math.max(0, g + (rng() - 0.5) * 0.4)) * 20) / 20, String(g));
    });
    const r = calibrationReport({ kind: 'numeric', pairs, resamples: 200, seed: 9 });
    const xs = pairs.map((p) => p.score!), gs = pairs.map((p) => Number(p.gold));
    expect(r.pearson).toBe(pearson(xs, gs));
    expect(r.spearman).toBe(spearman(xs, gs));
    expect(r.kendall_tau_b).toBe(kendallTauB(xs, gs));
    expect(r.mae).toBe(mae(xs, gs));
    expect(r.rmse).toBe(rmse(xs, gs));
    const opts = { resamples: 200, seed: 9 };
    expect(r.ci95.pearson).toEqual(bootstrapCI(300, pearsonOn(xs, gs), opts));
    expect(r.ci95.spearman).toEqual(bootstrapCI(300, spearmanOn(xs, gs), opts));
    expect(r.ci95.kendall_tau_b).toEqual(bootstrapCI(300, kendallOn(xs, gs), opts));
    expect(r.ci95.mae).toEqual(bootstrapCI(300, maeOn(xs, gs), opts));
    for (const k of ['pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse']) {
      const [lo, hi] = r.ci95[k]!;
      expect(lo).toBeLessThanOrEqual(r[k as 'mae']!);
      expect(hi).toBeGreaterThanOrEqual(r[k as 'mae']!);
    }
  });

  it('gives null correlations and intervals, not zeros, when every score is the same', () => {
    const r = calibrationReport({ kind: 'numeric', pairs: [0.2, 0.5, 0.9].map((g, i) => ok(i + 1, 0.5, String(g))) });
    expect(r.pearson).toBeNull();
    expect(r.spearman).toBeNull();
    expect(r.kendall_tau_b).toBeNull();
    expect(r.ci95.pearson).toBeNull();
    expect(r.mae).toBeCloseTo((0.3 + 0 + 0.4) / 3, 12);
    expect(r.notes).toContain('constant_scores');
  });

  it('is deterministic for a seed and changes intervals with the seed', () => {
    const pairs = binaryPairs(100, 1).map((p) => ({ ...p, gold: String(Number(p.gold) * 0.8 + 0.1) }));
    const a = JSON.stringify(calibrationReport({ kind: 'numeric', pairs, resamples: 100, seed: 3 }));
    expect(JSON.stringify(calibrationReport({ kind: 'numeric', pairs, resamples: 100, seed: 3 }))).toBe(a);
    expect(JSON.stringify(calibrationReport({ kind: 'numeric', pairs, resamples: 100, seed: 4 }))).not.toBe(a);
  });
});

describe('what is left out, and why', () => {
  const pairs: CalibrationPair[] = [
    { id: 1, score: 0.9, scoreStatus: 'ok', gold: '1' }, // counted
    { id: 2, score: null, scoreStatus: 'error', gold: null }, // example wins over everything
    { id: 3, score: null, scoreStatus: 'error', gold: null }, // no gold wins over judge error
    { id: 4, score: 0.2, scoreStatus: 'ok', gold: '   ' }, // blank gold
    { id: 5, score: null, scoreStatus: 'error', gold: '0' },
    { id: 6, score: null, scoreStatus: 'skipped', gold: '1' },
    { id: 7, score: null, scoreStatus: 'missing', gold: '0' },
    { id: 8, score: null, scoreStatus: 'ok', gold: '0' }, // ok without a value
    { id: 9, score: Number.NaN, scoreStatus: 'ok', gold: '0' },
    { id: 10, score: 0.4, scoreStatus: 'ok', gold: 'maybe' }, // not a binary value
    { id: 11, score: 0.1, scoreStatus: 'ok', gold: '0' }, // counted
  ];

  it('counts each item once, under the first reason in the documented order', () => {
    const r = calibrationReport({ kind: 'binary', pairs, exclude: new Set([2, 99]) });
    expect(r.n).toBe(2);
    expect(r.excluded).toEqual({ used_as_example: 1, no_gold_label: 3, judge_error: 1, no_score: 4 });
    expect(r.n + Object.values(r.excluded).reduce((s, v) => s + v, 0)).toBe(pairs.length);
    expect(r.notes).toContain('unreadable_gold_labels');
  });

  it('never counts an example, even a perfectly usable one', () => {
    const r = calibrationReport({ kind: 'binary', pairs, exclude: new Set([1, 11]) }) as BinaryReport;
    expect(r.n).toBe(0);
    expect(r.excluded.used_as_example).toBe(2);
    expect(r.accuracy).toBeNull();
  });

  it('rejects an item listed twice (a join bug upstream)', () => {
    expect(() => calibrationReport({ kind: 'binary', pairs: [ok(1, 0.5, '1'), ok(1, 0.6, '1')] })).toThrow(/twice/);
  });

  it('says figures are not yet meaningful below 20 items', () => {
    const few = calibrationReport({ kind: 'binary', pairs: binaryPairs(19, 2), resamples: 50 });
    expect(few.meaningful).toBe(false);
    expect(few.notes).toContain('too_few_items');
    const enough = calibrationReport({ kind: 'binary', pairs: binaryPairs(20, 2), resamples: 50 });
    expect(enough.meaningful).toBe(true);
    expect(enough.notes).not.toContain('too_few_items');
  });
});

describe('binary criteria', () => {
  // Expert pass: 6 judged pass (tp), 4 judged fail (fn); expert fail: 2 judged pass (fp), 8 fail (tn).
  const passScores = [0.9, 0.8, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1];
  const failScores = [0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.1, 0, 0, 0];
  const pairs = [...passScores.map((s, i) => ok(i + 1, s, '1')), ...failScores.map((s, i) => ok(i + 11, s, '0'))];
  const r = calibrationReport({ kind: 'binary', pairs }) as BinaryReport;

  it('matches a hand-computed confusion: accuracy, precision, recall, F1, kappa', () => {
    expect(r.threshold).toBe(0.5);
    expect(r.confusion).toEqual({ tp: 6, fp: 2, tn: 8, fn: 4 });
    expect(r.accuracy).toBeCloseTo(0.7, 12);
    expect(r.precision).toBeCloseTo(0.75, 12);
    expect(r.recall).toBeCloseTo(0.6, 12);
    expect(r.f1).toBeCloseTo(12 / 18, 12);
    expect(r.cohen_kappa).toBeCloseTo(0.4, 12); // po = .7, pe = .4·.5 + .6·.5 = .5
  });

  it("computes EvalGen's coverage, false-failure rate and alignment", () => {
    expect(r.coverage).toBeCloseTo(0.8, 12); // 8 of 10 expert fails
    expect(r.false_failure_rate).toBeCloseTo(0.4, 12); // 4 of 10 expert passes
    expect(r.alignment).toBeCloseTo((2 * 0.8 * 0.6) / 1.4, 12);
    expect(r.figure_n).toMatchObject({ precision: 8, recall: 10, coverage: 10, false_failure_rate: 10, accuracy: 20 });
  });

  it('computes ROC AUC and the kappa-maximising threshold as the stats module does', () => {
    const scores = [...passScores, ...failScores];
    const pass = scores.map((_, i) => i < 10);
    expect(r.roc_auc).toBeCloseTo(aucPairs(scores, pass), 12);
    const best = bestThreshold(scores, pass)!;
    expect(r.best_threshold).toBe(best.threshold);
    expect(r.best_threshold_kappa).toBe(best.kappa);
  });

  it('reads correlations against the gold as 0/1 (point-biserial)', () => {
    const scores = [...passScores, ...failScores];
    const gold = scores.map((_, i) => (i < 10 ? 1 : 0));
    expect(r.pearson).toBe(pearson(scores, gold));
    expect(r.rmse).toBe(rmse(scores, gold));
    expect(r.notes).toContain('gold_as_0_1');
  });

  it('moves the confusion with the threshold', () => {
    const strict = calibrationReport({ kind: 'binary', pairs, threshold: 0.75, resamples: 50 }) as BinaryReport;
    expect(strict.confusion).toEqual({ tp: 3, fp: 0, tn: 10, fn: 7 });
    expect(strict.precision).toBe(1);
    expect(strict.coverage).toBe(1);
  });

  it('has every CLI key, with the documented types, and serialises without NaN', () => {
    const keys = ['n', 'excluded', 'pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse', 'threshold', 'accuracy', 'precision', 'recall', 'f1',
      'cohen_kappa', 'roc_auc', 'best_threshold', 'confusion', 'coverage', 'false_failure_rate', 'alignment', 'ci95'];
    for (const k of keys) expect(r).toHaveProperty(k);
    expect(Object.keys(r.confusion).sort()).toEqual(['fn', 'fp', 'tn', 'tp']);
    expect(Object.keys(r.ci95)).toEqual(['pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse', 'accuracy', 'f1', 'cohen_kappa', 'roc_auc', 'alignment']);
    // A binary criterion's headline figures carry intervals; its correlations and errors do not.
    for (const k of ['pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse']) expect(r.ci95[k]).toBeNull();
    for (const k of ['accuracy', 'f1', 'cohen_kappa', 'roc_auc', 'alignment']) {
      const v = r.ci95[k]!;
      expect(v).toHaveLength(2);
      expect(v[0]).toBeLessThanOrEqual(v[1]);
    }
    const json = JSON.stringify(r);
    expect(json).not.toMatch(/NaN|Infinity/);
    expect(JSON.parse(json)).toEqual(r);
  });

  it('gives null kappa, AUC, best threshold and alignment when the experts used one class only', () => {
    const one = calibrationReport({ kind: 'binary', pairs: [0.9, 0.2, 0.7, 0.4].map((s, i) => ok(i + 1, s, '1')) }) as BinaryReport;
    expect(one.cohen_kappa).toBeNull();
    expect(one.roc_auc).toBeNull();
    expect(one.best_threshold).toBeNull();
    expect(one.coverage).toBeNull();
    expect(one.alignment).toBeNull();
    expect(one.pearson).toBeNull();
    expect(one.ci95.cohen_kappa).toBeNull();
    expect(one.ci95.roc_auc).toBeNull();
    expect(one.accuracy).toBe(0.5);
    expect(one.recall).toBe(0.5);
    expect(one.notes).toContain('constant_gold');
  });

  it('has intervals equal to the stats bootstrap of each figure on random data', () => {
    const big = binaryPairs(400, 7);
    const rep = calibrationReport({ kind: 'binary', pairs: big, resamples: 300, seed: 5, threshold: 0.45 }) as BinaryReport;
    const xs = big.map((p) => p.score!), pass = big.map((p) => p.gold === '1');
    const opts = { resamples: 300, seed: 5 };
    const c = confusionAt(xs, pass, 0.45);
    expect(rep.confusion).toEqual(c);
    expect(rep.cohen_kappa).toBe(kappaFromConfusion(c));
    expect(rep.roc_auc).toBe(rocAuc(xs, pass));
    expect(rep.ci95.cohen_kappa).toEqual(bootstrapCI(400, confusionMetricOn(xs, pass, 0.45, kappaFromConfusion), opts));
    expect(rep.ci95.f1).toEqual(bootstrapCI(400, confusionMetricOn(xs, pass, 0.45, f1), opts));
    expect(rep.ci95.alignment).toEqual(bootstrapCI(400, confusionMetricOn(xs, pass, 0.45, (k) => evalGenAlignment(k).alignment), opts));
    expect(rep.ci95.roc_auc).toEqual(bootstrapCI(400, rocAucOn(xs, pass), opts));
  });
});

describe('ordinal criteria', () => {
  const scale = ['1', '2', '3'];
  // Gold 1,2,3,1,2,3 vs judge 1,2,3,2,2,2: Σw·o = 2 over 6 items, Σw·r·c = 36 → κ_q = 1 − 2·6/36.
  const gold = ['1', '2', '3', '1', '2', '3'];
  const judge = [1, 2, 3, 2, 2, 2];

  it('computes quadratic-weighted kappa for scores on the same scale', () => {
    const r = calibrationReport({ kind: 'ordinal', categories: scale, pairs: judge.map((s, i) => ok(i + 1, s, gold[i]!)) }) as OrdinalReport;
    expect(r.quadratic_kappa).toBeCloseTo(2 / 3, 12);
    expect(r.quadratic_kappa).toBeCloseTo(cohenKappa(gold.map(Number), judge, { weights: 'quadratic', categories: [1, 2, 3] })!, 12);
    expect(r.scale).toEqual({ min: 1, max: 3, scores_on: 'criterion' });
    expect(r.mae).toBeCloseTo(2 / 6, 12);
    expect(r.ci95).toHaveProperty('quadratic_kappa');
  });

  it('rescales the gold to 0..1 for MAE/RMSE when the scores are 0..1, and has no quadratic kappa', () => {
    const unit = [0, 0.5, 1, 0.5, 0.5, 0.5];
    const r = calibrationReport({ kind: 'ordinal', categories: scale, pairs: unit.map((s, i) => ok(i + 1, s, gold[i]!)) }) as OrdinalReport;
    expect(r.scale?.scores_on).toBe('unit');
    expect(r.notes).toEqual(expect.arrayContaining(['gold_rescaled_to_unit_interval', 'scores_not_on_scale_points']));
    expect(r.mae).toBeCloseTo(1 / 6, 12); // two items off by half the scale
    expect(r.quadratic_kappa).toBeNull();
    expect(r.pearson).toBeCloseTo(pearson(unit, gold.map(Number))!, 12);
  });

  it('gives null MAE/RMSE for scores on neither scale', () => {
    const r = calibrationReport({ kind: 'ordinal', categories: scale, pairs: [7, 4, 9].map((s, i) => ok(i + 1, s, gold[i]!)) }) as OrdinalReport;
    expect(r.scale?.scores_on).toBe('other');
    expect(r.mae).toBeNull();
    expect(r.rmse).toBeNull();
    expect(r.pearson).not.toBeNull();
    expect(r.notes).toContain('score_scale_differs');
  });

  it('treats gold outside the scale as unreadable', () => {
    const r = calibrationReport({ kind: 'ordinal', categories: scale, pairs: [ok(1, 2, '2'), ok(2, 2, '7'), ok(3, 2, '2.5')] });
    expect(r.n).toBe(1);
    expect(r.excluded.no_gold_label).toBe(2);
  });

  it('gives null quadratic kappa when the experts used one grade only', () => {
    const r = calibrationReport({ kind: 'ordinal', categories: scale, pairs: [1, 2, 3].map((s, i) => ok(i + 1, s, '2')) }) as OrdinalReport;
    expect(r.quadratic_kappa).toBeNull();
    expect(r.notes).toContain('constant_gold');
  });

  it('reads integer scores on the scale as the scale, even when they are 0/1-like', () => {
    expect(scoreScaleOf([0, 1, 1], { min: 0, max: 4 })).toBe('criterion');
    expect(scoreScaleOf([0.2, 1], { min: 0, max: 4 })).toBe('unit');
    expect(scoreScaleOf([2.5, 3], { min: 1, max: 5 })).toBe('criterion');
    expect(scoreScaleOf([0, 10], { min: 1, max: 5 })).toBe('other');
  });
});

describe('categorical criteria', () => {
  const categories = ['a', 'b', 'c'];
  const gold = ['a', 'a', 'b', 'b', 'c', 'c', 'a', 'b'];
  const judged = ['a', 'b', 'b', 'b', 'c', 'a', 'a', 'c'];
  const pairs: CalibrationPair[] = gold.map((g, i) => ({ id: i + 1, score: null, scoreStatus: 'ok', gold: g, label: judged[i]! }));

  it('gives the matrix (gold rows × judge columns) and kappa when the judge uses the same categories', () => {
    const r = calibrationReport({ kind: 'categorical', categories, pairs }) as CategoricalReport;
    expect(r.categorical.matrix).toEqual([
      [2, 1, 0],
      [0, 2, 1],
      [1, 0, 1],
    ]);
    expect(r.categorical.kappa).toBeCloseTo(cohenKappa(gold, judged, { categories })!, 12);
    expect(r.pearson).toBeNull();
    expect(r.notes).toContain('nominal_criterion');
  });

  it('gives null kappa and matrix when the judge answers outside the categories', () => {
    const r = calibrationReport({ kind: 'categorical', categories, pairs: [...pairs, { id: 99, score: null, scoreStatus: 'ok', gold: 'a', label: 'other' }] }) as CategoricalReport;
    expect(r.categorical.kappa).toBeNull();
    expect(r.categorical.matrix).toBeNull();
    expect(r.notes).toContain('judge_labels_outside_categories');
  });

  it('gives null kappa when the experts used one category only', () => {
    const one = pairs.map((p) => ({ ...p, gold: 'a' }));
    const r = calibrationReport({ kind: 'categorical', categories, pairs: one }) as CategoricalReport;
    expect(r.categorical.kappa).toBeNull();
    expect(r.categorical.matrix![0]).toEqual([3, 3, 2]);
  });

  it('counts an ok result without a judged label as no score', () => {
    const prep = prepareCalibration({ kind: 'categorical', categories, pairs: [{ id: 1, score: 0.5, scoreStatus: 'ok', gold: 'a' }] });
    expect(prep.excluded.no_score).toBe(1);
  });
});

describe('resampling helpers', () => {
  it('weightedKappaOn equals cohenKappa on the full sample, unweighted and quadratic', () => {
    const rng = createRng(3);
    const rows = Uint32Array.from({ length: 200 }, () => Math.floor(rng() * 4));
    const cols = rows.map((r) => (rng() < 0.6 ? r : Math.floor(rng() * 4)));
    const all = allIndices(200);
    const cats = [0, 1, 2, 3];
    expect(weightedKappaOn(rows, cols, 4, 'none')(all)).toBeCloseTo(cohenKappa([...rows], [...cols], { categories: cats })!, 12);
    expect(weightedKappaOn(rows, cols, 4, 'quadratic')(all)).toBeCloseTo(cohenKappa([...rows], [...cols], { categories: cats, weights: 'quadratic' })!, 12);
  });

  it('kappaCurve gives kappa at evenly spaced thresholds, null where undefined', () => {
    const pairs = binaryPairs(150, 4);
    const xs = pairs.map((p) => p.score!), pass = pairs.map((p) => p.gold === '1');
    const curve = kappaCurve(xs, pass, 21);
    expect(curve).toHaveLength(21);
    expect(curve[0]!.threshold).toBe(0);
    expect(curve[20]!.threshold).toBe(1);
    for (const p of curve) expect(p.kappa).toBe(kappaFromConfusion(confusionAt(xs, pass, p.threshold)));
    expect(curve[0]!.kappa).toBe(0); // the judge passes everything: no better than chance
    // Tied scores (ten distinct values, thresholds falling on them): the same counts as confusionAt.
    const tied = xs.map((x) => Math.round(x * 10) / 10);
    for (const p of kappaCurve(tied, pass, 41)) expect(p.kappa).toBe(kappaFromConfusion(confusionAt(tied, pass, p.threshold)));
  });

  it('lists intervals in a fixed order', () => {
    expect(CI_ORDER.slice(0, 5)).toEqual(['pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse']);
  });
});
