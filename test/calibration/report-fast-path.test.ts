// The report's fast paths (point figures read off the sorted cells, one walk per resample for the
// confusion count and ROC AUC, the inlined index stream) must give the figures of the plain
// definitions to the last bit. The reference here recomputes every figure item by item with the
// stats functions, on resamples drawn with createRng itself.
import { describe, expect, it } from 'vitest';
import { calibrationReport, type BinaryReport, type CalibrationPair } from '../../server/calibration/report.ts';
import {
  accuracy, bestThreshold, cellsOf, confusionAt, createRng, evalGenAlignment, f1, indexStream, kappaFromConfusion, kendallTauB, pearson,
  quantileSorted, rocAuc, spearman,
} from '../../server/stats/index.ts';

const ok = (id: number, score: number, gold: string): CalibrationPair => ({ id, score, scoreStatus: 'ok', gold });

/** n items, gold 0/1, a score leaning towards it: untied (full precision) or on a 0.01 grid. */
function pairs(n: number, seed: number, grid: boolean): CalibrationPair[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, (_, i) => {
    const pass = rng() < 0.55;
    const raw = Math.min(1, Math.max(0, (pass ? 0.3 : 0) + rng() * 0.7));
    return ok(i + 1, grid ? Math.round(raw * 100) / 100 : raw + i * 1e-12, pass ? '1' : '0');
  });
}

/** Percentile interval of `stat` over resamples drawn exactly as bootstrapCI defines them (Math.floor(rng() * n)). */
function reference(n: number, resamples: number, stat: (idx: number[]) => number | null): [number, number] | null {
  const rng = createRng(1);
  const values: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const idx = Array.from({ length: n }, () => Math.floor(rng() * n));
    const v = stat(idx);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  if (values.length < 2 || values.length < resamples / 2) return null;
  const sorted = Float64Array.from(values).sort();
  return [quantileSorted(sorted, 0.025)!, quantileSorted(sorted, 0.975)!];
}

describe('calibration report fast paths equal the plain definitions', () => {
  it('the index stream is createRng read as indices', () => {
    const n = 997;
    const rng = createRng(42);
    const want = Array.from({ length: 5000 }, () => Math.floor(rng() * n));
    const stream = indexStream(42);
    const a = new Uint32Array(2000);
    stream.indices(a, n);
    const w = new Float64Array(n);
    const identity = Uint32Array.from({ length: n }, (_, i) => i);
    stream.count(3000, n, identity, w);
    expect([...a]).toEqual(want.slice(0, 2000));
    const counted = new Float64Array(n);
    for (const i of want.slice(2000)) counted[i]! += 1;
    expect([...w]).toEqual([...counted]);
  });

  for (const grid of [false, true]) {
    it(`binary, scores ${grid ? 'on a 0.01 grid (ties)' : 'at full precision (no ties)'}: point figures and intervals to the bit`, () => {
      const n = 400;
      const resamples = 200;
      const p = pairs(n, grid ? 7 : 11, grid);
      if (!grid) expect(new Set(p.map((q) => q.score)).size).toBe(n);
      const report = calibrationReport({ kind: 'binary', pairs: p, resamples, threshold: 0.45 }) as BinaryReport;
      const x = p.map((q) => q.score!);
      const g = p.map((q) => Number(q.gold));
      const pass = g.map((v) => v === 1);

      expect(report.spearman).toBe(spearman(x, g));
      expect(report.kendall_tau_b).toBe(kendallTauB(x, g));
      expect(report.pearson).toBe(pearson(x, g));
      expect(report.roc_auc).toBe(rocAuc(x, pass));
      const best = bestThreshold(x, pass)!;
      expect(report.best_threshold).toBe(best.threshold);
      expect(report.best_threshold_kappa).toBe(best.kappa);

      const at = (idx: number[]) => confusionAt(idx.map((i) => x[i]!), idx.map((i) => pass[i]!), 0.45);
      const expertKappa = (idx: number[]) => {
        const c = at(idx);
        return c.tp + c.fn === 0 || c.tn + c.fp === 0 ? null : kappaFromConfusion(c);
      };
      expect(report.ci95.accuracy).toEqual(reference(n, resamples, (idx) => accuracy(at(idx))));
      expect(report.ci95.f1).toEqual(reference(n, resamples, (idx) => f1(at(idx))));
      expect(report.ci95.cohen_kappa).toEqual(reference(n, resamples, expertKappa));
      expect(report.ci95.alignment).toEqual(reference(n, resamples, (idx) => evalGenAlignment(at(idx)).alignment));
      expect(report.ci95.roc_auc).toEqual(reference(n, resamples, (idx) => rocAuc(idx.map((i) => x[i]!), idx.map((i) => pass[i]!))));
    });
  }

  it('ordinal, untied scores: Spearman and Kendall point figures from the cells equal the sorting versions', () => {
    const rng = createRng(3);
    const p = Array.from({ length: 300 }, (_, i) => {
      const grade = 1 + Math.floor(rng() * 5);
      return ok(i + 1, grade / 5 + rng() * 0.3 + i * 1e-12, String(grade));
    });
    const report = calibrationReport({ kind: 'ordinal', categories: ['1', '2', '3', '4', '5'], pairs: p, resamples: 20 });
    const x = p.map((q) => q.score!);
    const g = p.map((q) => Number(q.gold));
    expect(report.spearman).toBe(spearman(x, g));
    expect(report.kendall_tau_b).toBe(kendallTauB(x, g));
    // The cells hold every item once: their sizes sum to n.
    expect(cellsOf(x, g).size.reduce((a, b) => a + b, 0)).toBe(300);
  });
});
