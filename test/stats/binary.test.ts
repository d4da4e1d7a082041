import { describe, it, expect } from 'vitest';
import {
  accuracy, bestThreshold, confusionAt, confusionFromVerdicts, evalGenAlignment, f1, kappaFromConfusion, precision, recall, rocAuc,
} from '../../server/stats/binary.ts';
import { cohenKappa } from '../../server/stats/agreement.ts';
import { flipSome, labelsFromScores, randomBools, randomFloats, randomInts } from './random-data.ts';

/** AUC by brute force over all (positive, negative) pairs, ties counting one half. */
function aucPairs(scores: readonly number[], labels: readonly boolean[]): number | null {
  let wins = 0, pairs = 0;
  for (let i = 0; i < scores.length; i++) {
    if (!labels[i]) continue;
    for (let j = 0; j < scores.length; j++) {
      if (labels[j]) continue;
      pairs++;
      wins += scores[i]! > scores[j]! ? 1 : scores[i] === scores[j] ? 0.5 : 0;
    }
  }
  return pairs === 0 ? null : wins / pairs;
}

/** AUC as the trapezoidal area under the ROC polyline through every distinct threshold. */
function aucTrapezoid(scores: readonly number[], labels: readonly boolean[]): number {
  const pos = labels.filter(Boolean).length;
  const neg = labels.length - pos;
  const thresholds = [...new Set(scores)].sort((a, b) => b - a);
  let area = 0, prevTpr = 0, prevFpr = 0;
  for (const t of thresholds) {
    const c = confusionAt(scores, labels, t);
    const tpr = c.tp / pos, fpr = c.fp / neg;
    area += ((fpr - prevFpr) * (tpr + prevTpr)) / 2;
    prevTpr = tpr; prevFpr = fpr;
  }
  return area;
}

describe('confusion and rates', () => {
  const scores = [0.9, 0.7, 0.5, 0.5, 0.2, 0.1];
  const labels = [true, false, true, false, true, false];

  it('passes the judge at score >= threshold, with pass as the positive class', () => {
    expect(confusionAt(scores, labels, 0.5)).toEqual({ tp: 2, fp: 2, tn: 1, fn: 1 });
    expect(confusionAt(scores, labels, 0.51)).toEqual({ tp: 1, fp: 1, tn: 2, fn: 2 });
    expect(confusionFromVerdicts(scores.map((s) => s >= 0.5), labels)).toEqual(confusionAt(scores, labels, 0.5));
  });

  it('computes accuracy, precision, recall and F1 by hand', () => {
    const c = { tp: 6, fp: 2, tn: 9, fn: 3 };
    expect(accuracy(c)).toBeCloseTo(15 / 20, 14);
    expect(precision(c)).toBeCloseTo(6 / 8, 14);
    expect(recall(c)).toBeCloseTo(6 / 9, 14);
    expect(f1(c)).toBeCloseTo((2 * (6 / 8) * (6 / 9)) / (6 / 8 + 6 / 9), 14);
  });

  it('returns null where a rate is undefined', () => {
    expect(precision({ tp: 0, fp: 0, tn: 3, fn: 1 })).toBeNull();
    expect(recall({ tp: 0, fp: 2, tn: 3, fn: 0 })).toBeNull();
    expect(f1({ tp: 0, fp: 0, tn: 3, fn: 0 })).toBeNull();
    expect(f1({ tp: 0, fp: 1, tn: 3, fn: 2 })).toBe(0);
    expect(accuracy({ tp: 0, fp: 0, tn: 0, fn: 0 })).toBeNull();
  });

  it('throws on unequal lengths', () => {
    expect(() => confusionAt([0.1], [true, false], 0.5)).toThrow(RangeError);
  });
});

describe('kappaFromConfusion', () => {
  it('matches Wikipedia "Cohen\'s kappa" (20 yes/yes, 5, 10, 15 no/no → 0.4)', () => {
    expect(kappaFromConfusion({ tp: 20, fp: 5, fn: 10, tn: 15 })).toBeCloseTo(0.4, 12);
  });

  it('equals cohenKappa on the expanded verdicts for seeded data', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const judge = randomBools(70, 0.6, seed);
      const expert = flipSome(judge, 0.25, seed + 40);
      expect(kappaFromConfusion(confusionFromVerdicts(judge, expert))).toBeCloseTo(cohenKappa(judge, expert)!, 12);
    }
  });

  it('is null when both sides give one and the same verdict, or there are no items', () => {
    expect(kappaFromConfusion({ tp: 5, fp: 0, tn: 0, fn: 0 })).toBeNull();
    expect(kappaFromConfusion({ tp: 0, fp: 0, tn: 0, fn: 0 })).toBeNull();
    expect(kappaFromConfusion({ tp: 0, fp: 4, tn: 0, fn: 0 })).toBe(0);
  });
});

describe('rocAuc', () => {
  it('counts ties as one half (hand-computed: 8.5 of 12 pairs)', () => {
    // positives 0.9, 0.8, 0.5, 0.5 vs negatives 0.8, 0.5, 0.3:
    // 0.9 wins 3; 0.8 wins 2 + tie; each 0.5 wins 1 + tie → 3 + 2.5 + 1.5 + 1.5 = 8.5
    const scores = [0.9, 0.8, 0.5, 0.5, 0.8, 0.5, 0.3];
    const labels = [true, true, true, true, false, false, false];
    expect(rocAuc(scores, labels)).toBeCloseTo(8.5 / 12, 14);
    expect(aucTrapezoid(scores, labels)).toBeCloseTo(8.5 / 12, 14);
  });

  it('is 1, 0 and 0.5 for perfect, reversed and uninformative scores', () => {
    expect(rocAuc([0.9, 0.8, 0.1], [true, true, false])).toBe(1);
    expect(rocAuc([0.1, 0.2, 0.9], [true, true, false])).toBe(0);
    expect(rocAuc([0.5, 0.5, 0.5, 0.5], [true, false, true, false])).toBe(0.5);
  });

  it('agrees with pair counting and the trapezoid rule on seeded data with ties', () => {
    for (let seed = 1; seed <= 15; seed++) {
      const n = 10 + seed * 13;
      const scores = seed % 2 ? randomInts(n, 0, 10, seed).map((v) => v / 10) : randomFloats(n, seed);
      const labels = labelsFromScores(scores, 0.3, 0.4, seed + 77);
      expect(rocAuc(scores, labels)).toBeCloseTo(aucPairs(scores, labels)!, 12);
      expect(rocAuc(scores, labels)).toBeCloseTo(aucTrapezoid(scores, labels), 12);
    }
  });

  it('is null for single-class or empty input', () => {
    expect(rocAuc([0.1, 0.9], [true, true])).toBeNull();
    expect(rocAuc([0.1, 0.9], [false, false])).toBeNull();
    expect(rocAuc([], [])).toBeNull();
    expect(() => rocAuc([0.1], [])).toThrow(RangeError);
  });
});

describe('bestThreshold', () => {
  it('finds the kappa-maximising observed score (hand example)', () => {
    const scores = [0.1, 0.3, 0.4, 0.6, 0.8, 0.9];
    const labels = [false, false, true, true, true, true];
    const best = bestThreshold(scores, labels)!;
    expect(best.threshold).toBe(0.4);
    expect(best.kappa).toBe(1);
    expect(best.confusion).toEqual({ tp: 4, fp: 0, tn: 2, fn: 0 });
  });

  it('breaks kappa ties toward 0.5, then toward the lower threshold', () => {
    // Expert labels fail, pass, fail, pass: thresholds at the 2nd and 4th score both give κ = 0.5
    // (one misclassified item each), the 3rd gives 0.
    const labels = [false, true, false, true];
    const tie = [0.0, 0.25, 0.625, 0.75];
    expect(kappaFromConfusion(confusionAt(tie, labels, 0.25))).toBeCloseTo(0.5, 14);
    expect(kappaFromConfusion(confusionAt(tie, labels, 0.75))).toBeCloseTo(0.5, 14);
    // 0.25 and 0.75 are equally close to 0.5 → the lower wins
    expect(bestThreshold(tie, labels)!.threshold).toBe(0.25);
    // 0.3 and 0.7 are equally close too, although |0.7 − 0.5| rounds below |0.3 − 0.5|
    expect(bestThreshold([0.0, 0.3, 0.6, 0.7], labels)!.threshold).toBe(0.3);
    // 0.65 is strictly closer to 0.5 than 0.3
    expect(bestThreshold([0.0, 0.3, 0.6, 0.65], labels)!.threshold).toBe(0.65);
  });

  it('agrees with an exhaustive scan over distinct scores on seeded data', () => {
    for (let seed = 1; seed <= 15; seed++) {
      const n = 20 + seed * 7;
      const scores = randomInts(n, 0, 20, seed).map((v) => v / 20);
      const labels = labelsFromScores(scores, 0, 1, seed + 5);
      let bestK = -Infinity;
      let bestT = NaN;
      for (const t of [...new Set(scores)]) {
        const k = kappaFromConfusion(confusionAt(scores, labels, t));
        if (k === null) continue;
        const dt = Math.abs(t - 0.5), db = Math.abs(bestT - 0.5);
        const closer = Math.abs(dt - db) <= 1e-12 ? t < bestT : dt < db;
        const better = k > bestK + 1e-12 || (Math.abs(k - bestK) <= 1e-12 && closer);
        if (better) { bestK = k; bestT = t; }
      }
      const got = bestThreshold(scores, labels)!;
      expect(got.threshold).toBe(bestT);
      expect(got.kappa).toBeCloseTo(bestK, 12);
      expect(got.confusion).toEqual(confusionAt(scores, labels, bestT));
    }
  });

  it('is null when the expert labels are all one class, or for empty input', () => {
    expect(bestThreshold([0.2, 0.8], [true, true])).toBeNull();
    expect(bestThreshold([0.2, 0.8], [false, false])).toBeNull();
    expect(bestThreshold([], [])).toBeNull();
  });
});

describe('evalGenAlignment (Shankar et al. 2024)', () => {
  it('computes coverage, false failure rate and their harmonic-mean alignment by hand', () => {
    // expert fails 10 items, judge fails 8 of them → coverage 0.8;
    // expert passes 20, judge fails 5 of them → FFR 0.25; alignment = 2·0.8·0.75 / 1.55
    const r = evalGenAlignment({ tn: 8, fp: 2, fn: 5, tp: 15 });
    expect(r.coverage).toBeCloseTo(0.8, 14);
    expect(r.false_failure_rate).toBeCloseTo(0.25, 14);
    expect(r.alignment).toBeCloseTo((2 * 0.8 * 0.75) / 1.55, 14);
  });

  it('returns null parts when a class is missing and 0 alignment when both parts are 0', () => {
    expect(evalGenAlignment({ tn: 0, fp: 0, fn: 1, tp: 3 })).toEqual({ coverage: null, false_failure_rate: 0.25, alignment: null });
    expect(evalGenAlignment({ tn: 0, fp: 4, fn: 3, tp: 0 })).toEqual({ coverage: 0, false_failure_rate: 1, alignment: 0 });
  });
});
