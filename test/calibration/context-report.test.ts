// The per-context report: binary figures over contexts against a hand-computed example, exclusions in
// contexts, by-rank counts (rank 5 = 5 and beyond), item-level context precision from the gold verdicts
// (Ragas's formula), and intervals from a bootstrap over responses.
import { describe, expect, it } from 'vitest';
import { contextReport, type ContextResponse } from '../../server/calibration/report-context.ts';
import { calibrationReport, type BinaryReport } from '../../server/calibration/report.ts';
import {
  bootstrapCI, clusterBootstrapCI, clustersOf, confusionMetricOn, createRng, kappaFromConfusion, type Confusion,
} from '../../server/stats/index.ts';

const ok = (id: number, gold: (string | null)[], verdicts: (0 | 1)[], score: number): ContextResponse => ({ id, scoreStatus: 'ok', score, verdicts, gold });

/** Average precision written out independently of metrics/ragas-math.ts. */
function averagePrecision(bits: number[]): number {
  let hits = 0, sum = 0;
  bits.forEach((b, i) => { if (b) { hits++; sum += hits / (i + 1); } });
  return sum / hits;
}

// R1..R5 count; R4's first context has no gold; R6 failed; R7 is a few-shot example; R8 was not scored.
const RESPONSES: ContextResponse[] = [
  ok(1, ['1', '0', '1'], [1, 1, 1], 1),
  ok(2, ['0', '0'], [0, 1], 0.5),
  ok(3, ['1', '1', '0', '0', '1', '0'], [1, 0, 0, 0, 1, 1], averagePrecision([1, 0, 0, 0, 1, 1])),
  ok(4, [null, '1'], [1, 1], 1),
  ok(5, ['0', '0', '0'], [0, 0, 0], 0),
  { id: 6, scoreStatus: 'error', score: null, verdicts: null, gold: ['1', '0'] },
  ok(7, ['1'], [1], 1),
  { id: 8, scoreStatus: 'skipped', score: null, verdicts: null, gold: ['1', '0'] },
];
const report = contextReport({ responses: RESPONSES, exclude: new Set([7]), resamples: 200 });

describe('per-context report: figures over contexts', () => {
  it('counts each context once under its exclusion reason', () => {
    expect(report.n).toBe(15);
    expect(report.responses).toBe(5);
    expect(report.excluded).toEqual({ used_as_example: 1, no_gold_label: 1, judge_error: 2, no_score: 2 });
    expect(report.unit).toBe('context');
    expect(report.ci_method).toBe('bootstrap over responses');
  });

  it('gives the binary figures of the hand-computed confusion tp 5, fp 3, tn 6, fn 1', () => {
    expect(report.confusion).toEqual({ tp: 5, fp: 3, tn: 6, fn: 1 });
    expect(report.accuracy).toBeCloseTo(11 / 15, 12);
    expect(report.precision).toBeCloseTo(5 / 8, 12);
    expect(report.recall).toBeCloseTo(5 / 6, 12);
    expect(report.f1).toBeCloseTo(10 / 14, 12);
    // po = 11/15, pe = (6·8 + 9·7)/225 = 111/225: κ = (165 − 111)/(225 − 111)
    expect(report.cohen_kappa).toBeCloseTo(54 / 114, 12);
    expect(report.coverage).toBeCloseTo(6 / 9, 12);
    expect(report.false_failure_rate).toBeCloseTo(1 / 6, 12);
    expect(report.alignment).toBeCloseTo(20 / 27, 12);
    expect(report.figure_n).toMatchObject({ accuracy: 15, precision: 8, recall: 6, coverage: 9, false_failure_rate: 6, cohen_kappa: 15 });
    expect(report.threshold).toBe(0.5);
    expect(report.best_threshold).toBeNull();
  });

  it('splits agreement by rank, rank 5 holding ranks 5 and 6, with the relevance rates of the same contexts', () => {
    expect(report.by_rank).toEqual([
      { rank: 1, n: 4, kappa: 1, accuracy: 1, gold_rate: 0.5, judge_rate: 0.5 },
      { rank: 2, n: 5, kappa: expect.closeTo((0.4 - 0.48) / 0.52, 12), accuracy: 0.4, gold_rate: 0.4, judge_rate: 0.6 },
      { rank: 3, n: 3, kappa: 1, accuracy: 1, gold_rate: 1 / 3, judge_rate: 1 / 3 },
      { rank: 4, n: 1, kappa: null, accuracy: 1, gold_rate: 0, judge_rate: 0 },
      { rank: 5, n: 2, kappa: 0, accuracy: 0.5, gold_rate: 0.5, judge_rate: 1 },
    ]);
  });
});

describe('per-context report: figures from the four counts', () => {
  it('equal the response-level binary report\'s figures computed from every context', () => {
    const rng = createRng(21);
    const rs = Array.from({ length: 80 }, (_, r) => {
      const gold = Array.from({ length: 1 + (r % 5) }, () => (rng() < 0.4 ? '1' : '0'));
      return ok(r + 1, gold, gold.map((g) => ((rng() < 0.7) === (g === '1') ? 1 : 0) as 0 | 1), 0.5);
    });
    const ctx = contextReport({ responses: rs, resamples: 1 });
    const flat = rs.flatMap((r) => r.gold.map((g, i) => ({ id: r.id * 10 + i, score: r.verdicts![i]!, scoreStatus: 'ok' as const, gold: g })));
    const direct = calibrationReport({ kind: 'binary', pairs: flat, resamples: 1 }) as BinaryReport;
    for (const k of ['pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse', 'accuracy', 'precision', 'recall', 'f1', 'cohen_kappa', 'roc_auc', 'coverage',
      'false_failure_rate', 'alignment'] as const) expect(ctx[k], k).toBeCloseTo(direct[k]!, 12);
    expect(ctx.confusion).toEqual(direct.confusion);
    expect(ctx.figure_n).toMatchObject(direct.figure_n);
  });

  it('say nothing where nothing was counted', () => {
    const empty = contextReport({ responses: [{ id: 1, scoreStatus: 'missing', score: null, verdicts: null, gold: ['1', '0'] }], resamples: 10 });
    expect(empty).toMatchObject({ n: 0, accuracy: null, cohen_kappa: null, pearson: null, by_rank: [], meaningful: false, excluded: { no_score: 2 } });
    expect(empty.ci95.cohen_kappa).toBeNull();
  });
});

describe('per-context report: item level', () => {
  const item = report.item_level;

  it('computes the experts\' context precision with Ragas\'s formula on the gold verdicts', () => {
    // R1: (1/1 + 2/3)/2; R3: (1/1 + 2/2 + 3/5)/3
    expect(item.points).toEqual([
      { id: 1, gold: expect.closeTo(5 / 6, 12), judge: 1 },
      { id: 3, gold: expect.closeTo(2.6 / 3, 12), judge: expect.closeTo(1.9 / 3, 12) },
    ]);
    expect(item.points.map((p) => p.gold)).toEqual([averagePrecision([1, 0, 1]), averagePrecision([1, 1, 0, 0, 1, 0])]);
  });

  it('counts partial gold and "nothing relevant" apart, never as a value', () => {
    expect(item).toMatchObject({ n: 2, no_relevant: 2, partial_gold: 1, no_gold: 0, judge_error: 1, no_score: 1, no_relevant_judge_zero: 1 });
    expect(item.pearson).toBeCloseTo(-1, 12);
    expect(item.spearman).toBeCloseTo(-1, 12);
    expect(item.mae).toBeCloseTo((1 / 6 + 0.7 / 3) / 2, 12);
  });
});

describe('per-context report: intervals over responses', () => {
  /** k responses of m contexts each; within a response the judge is right on all of them or wrong on all (together). */
  function responses(k: number, m: number, seed: number, together: boolean): ContextResponse[] {
    const rng = createRng(seed);
    return Array.from({ length: k }, (_, r) => {
      const right = rng() < 0.75;
      const gold = Array.from({ length: m }, () => (rng() < 0.5 ? '1' : '0'));
      const verdicts = gold.map((g) => ((together ? right : rng() < 0.75) === (g === '1') ? 1 : 0) as 0 | 1);
      return ok(r + 1, gold, verdicts, 0.5);
    });
  }
  const kappaOf = (c: Confusion) => (c.tp + c.fn === 0 || c.tn + c.fp === 0 ? null : kappaFromConfusion(c));
  const flatten = (rs: ContextResponse[]) => ({
    verdicts: rs.flatMap((r) => [...r.verdicts!]), gold: rs.flatMap((r) => r.gold.map((g) => g === '1')), cluster: rs.flatMap((r) => r.gold.map(() => r.id)),
  });

  it('equals the cluster bootstrap of stats for κ and accuracy, resampling responses', () => {
    const rs = responses(60, 4, 3, true);
    const r = contextReport({ responses: rs, resamples: 300, seed: 8 });
    const f = flatten(rs);
    const clusters = clustersOf(f.cluster);
    expect(r.ci95.cohen_kappa).toEqual(clusterBootstrapCI(clusters, confusionMetricOn(f.verdicts, f.gold, 0.5, kappaOf), { resamples: 300, seed: 8 }));
    expect(r.ci95.accuracy).toEqual(clusterBootstrapCI(clusters, confusionMetricOn(f.verdicts, f.gold, 0.5, (c) => (c.tp + c.tn) / (c.tp + c.tn + c.fp + c.fn)), { resamples: 300, seed: 8 }));
  });

  it('is wider than the naive context-level interval when the contexts of a response agree', () => {
    const width = (ci: [number, number] | null | undefined) => ci![1] - ci![0];
    const rs = responses(60, 5, 5, true);
    const r = contextReport({ responses: rs, resamples: 500 });
    const f = flatten(rs);
    const naive = bootstrapCI(f.verdicts.length, confusionMetricOn(f.verdicts, f.gold, 0.5, kappaOf), { resamples: 500 });
    expect(width(r.ci95.cohen_kappa)).toBeGreaterThan(1.5 * width(naive));

    const apart = responses(60, 5, 5, false);
    const ra = contextReport({ responses: apart, resamples: 500 });
    const fa = flatten(apart);
    const naiveApart = bootstrapCI(fa.verdicts.length, confusionMetricOn(fa.verdicts, fa.gold, 0.5, kappaOf), { resamples: 500 });
    expect(width(ra.ci95.cohen_kappa) / width(naiveApart)).toBeLessThan(1.3);
  });

  it('gives item-level intervals over responses', () => {
    const rs = responses(40, 3, 9, false).map((r) => ({ ...r, score: averagePrecision([...r.verdicts!]) || 0 }));
    const r = contextReport({ responses: rs, resamples: 300 });
    const ci = r.item_level.ci95;
    expect(ci.spearman![0]).toBeLessThanOrEqual(r.item_level.spearman!);
    expect(ci.mae![1]).toBeGreaterThanOrEqual(r.item_level.mae!);
  });
});
