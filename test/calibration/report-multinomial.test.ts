// With many items per (score, gold) cell, the report draws each resample's cell counts as one multinomial
// instead of drawing n items (report-shared.ts): the same distribution of resamples, another random stream.
// So the intervals are checked against the item-by-item bootstrap of stats to within Monte Carlo error,
// and by simulation: 95 % intervals must cover the population's figure about 95 % of the time — for
// the response-level report (cells) and for the per-context report (response shapes).
import { describe, expect, it } from 'vitest';
import { DRAWS_PER_UNIT } from '../../server/calibration/report-shared.ts';
import { calibrationReport, type BinaryReport, type CalibrationPair } from '../../server/calibration/report.ts';
import { contextReport, type ContextResponse } from '../../server/calibration/report-context.ts';
import { bootstrapCI, confusionMetricOn, createRng, kappaFromConfusion, rocAucOn, type Confusion, type Rng } from '../../server/stats/index.ts';

// The population: gold pass with probability 0.6; a passing item's score uniform on 0.3, 0.4, …, 1.0, a
// failing one's on 0.0, 0.1, …, 0.7 (16 cells). At threshold 0.5 the judge passes 6/8 of the passes and
// 3/8 of the fails: accuracy 0.6·¾ + 0.4·⅝ = 0.7; κ = (0.7 − 0.52)/0.48 = 0.375 (judge pass rate 0.6);
// ROC AUC = P(pass score > fail score) + ½ P(equal), by enumeration of the 64 pairs.
const PASS = [3, 4, 5, 6, 7, 8, 9, 10].map((v) => v / 10);
const FAIL = [0, 1, 2, 3, 4, 5, 6, 7].map((v) => v / 10);
const TRUE_ACCURACY = 0.7;
const TRUE_KAPPA = 0.375;
const TRUE_AUC = (() => {
  let win = 0;
  for (const a of PASS) for (const b of FAIL) win += a > b ? 1 : a === b ? 0.5 : 0;
  return win / (PASS.length * FAIL.length);
})();

function sample(n: number, rng: Rng): CalibrationPair[] {
  return Array.from({ length: n }, (_, i) => {
    const pass = rng() < 0.6;
    const values = pass ? PASS : FAIL;
    return { id: i + 1, score: values[Math.floor(rng() * values.length)]!, scoreStatus: 'ok', gold: pass ? '1' : '0' };
  });
}

const kappaOf = (c: Confusion) => (c.tp + c.fn === 0 || c.tn + c.fp === 0 ? null : kappaFromConfusion(c));
const accuracyOf = (c: Confusion) => (c.tp + c.tn) / (c.tp + c.tn + c.fp + c.fn);
const covers = (ci: [number, number] | null | undefined, value: number) => !!ci && ci[0] <= value && value <= ci[1];

describe('calibration report: resamples drawn as cell counts', () => {
  it('gives the item-by-item bootstrap intervals of stats to within Monte Carlo error', () => {
    const n = 20_000; // 16 cells: far more than DRAWS_PER_UNIT items each, so the multinomial path
    expect(n).toBeGreaterThan(16 * DRAWS_PER_UNIT);
    const pairs = sample(n, createRng(4));
    const resamples = 2000;
    const report = calibrationReport({ kind: 'binary', pairs, resamples, seed: 3 }) as BinaryReport;
    const x = pairs.map((p) => p.score!);
    const pass = pairs.map((p) => p.gold === '1');
    const items = {
      accuracy: bootstrapCI(n, confusionMetricOn(x, pass, 0.5, accuracyOf), { resamples, seed: 11 }),
      cohen_kappa: bootstrapCI(n, confusionMetricOn(x, pass, 0.5, kappaOf), { resamples, seed: 11 }),
      roc_auc: bootstrapCI(n, rocAucOn(x, pass), { resamples, seed: 11 }),
    };
    for (const [name, want] of Object.entries(items)) {
      const got = report.ci95[name]!;
      const sd = (want![1] - want![0]) / 3.92; // the bootstrap's standard deviation, near enough
      // Each endpoint's Monte Carlo error at 2,000 resamples is ~0.06 sd; the two streams differ by ~0.09 sd.
      expect(Math.abs(got[0] - want![0]), `${name} lower`).toBeLessThan(0.35 * sd);
      expect(Math.abs(got[1] - want![1]), `${name} upper`).toBeLessThan(0.35 * sd);
      expect(got).not.toEqual(want); // really another stream (the same one would be a wasted check)
    }
  });

  it('covers the population figures as often as the item-by-item bootstrap, at about the nominal 95 %', () => {
    const rng = createRng(21);
    const runs = 400;
    const hits = { accuracy: [0, 0], cohen_kappa: [0, 0], roc_auc: [0, 0] };
    const truth = { accuracy: TRUE_ACCURACY, cohen_kappa: TRUE_KAPPA, roc_auc: TRUE_AUC };
    for (let s = 0; s < runs; s++) {
      const pairs = sample(1000, rng);
      const r = calibrationReport({ kind: 'binary', pairs, resamples: 400, seed: s + 1 }) as BinaryReport;
      const x = pairs.map((p) => p.score!);
      const pass = pairs.map((p) => p.gold === '1');
      const opts = { resamples: 400, seed: s + 1 };
      const items = {
        accuracy: bootstrapCI(1000, confusionMetricOn(x, pass, 0.5, accuracyOf), opts),
        cohen_kappa: bootstrapCI(1000, confusionMetricOn(x, pass, 0.5, kappaOf), opts),
        roc_auc: bootstrapCI(1000, rocAucOn(x, pass), opts),
      };
      for (const k of ['accuracy', 'cohen_kappa', 'roc_auc'] as const) {
        if (covers(r.ci95[k], truth[k])) hits[k][0]!++;
        if (covers(items[k], truth[k])) hits[k][1]!++;
      }
    }
    // 400 runs: a rate's standard error is ~1.1 points. The percentile interval of ROC AUC covers a little
    // under 95 % at this size by either way of drawing (1,000 runs measured 0.933 drawn as counts, 0.939
    // drawn item by item), so the bound is 0.91; the two ways must agree to within 3 points.
    for (const [name, [counts, items]] of Object.entries(hits)) {
      expect(counts! / runs, `${name} drawn as counts`).toBeGreaterThanOrEqual(0.91);
      expect(counts! / runs, `${name} drawn as counts`).toBeLessThanOrEqual(0.975);
      expect(Math.abs(counts! - items!) / runs, `${name}: counts vs items`).toBeLessThanOrEqual(0.03);
    }
  });
});

describe('per-context report: resamples drawn as counts of response shapes', () => {
  // Three contexts per response, gold relevant with probability ½; a response is hard with probability 0.3,
  // and then the judge is right on each of its contexts with probability 0.4 (else 0.9): the contexts of one
  // response are correlated, so only a bootstrap over responses covers. True context accuracy 0.7·0.9 + 0.3·0.4.
  const TRUE_CONTEXT_ACCURACY = 0.7 * 0.9 + 0.3 * 0.4;
  function responses(k: number, rng: Rng): ContextResponse[] {
    return Array.from({ length: k }, (_, r) => {
      const right = rng() < 0.3 ? 0.4 : 0.9;
      const gold = Array.from({ length: 3 }, () => (rng() < 0.5 ? '1' : '0'));
      const verdicts = gold.map((g) => ((rng() < right) === (g === '1') ? 1 : 0) as 0 | 1);
      return { id: r + 1, scoreStatus: 'ok', score: 0.5, verdicts, gold };
    });
  }

  it('covers the population accuracy at the nominal 95 % rate', () => {
    // 20 shapes of three contexts (multisets of 4 cells): 1,200 responses are over DRAWS_PER_UNIT per shape.
    expect(1200).toBeGreaterThan(20 * DRAWS_PER_UNIT);
    const rng = createRng(33);
    const runs = 400;
    let hits = 0;
    for (let s = 0; s < runs; s++) {
      const r = contextReport({ responses: responses(1200, rng), resamples: 400, seed: s + 1 });
      if (covers(r.ci95.accuracy, TRUE_CONTEXT_ACCURACY)) hits++;
    }
    expect(hits / runs).toBeGreaterThanOrEqual(0.92);
    expect(hits / runs).toBeLessThanOrEqual(0.975);
  });
});
