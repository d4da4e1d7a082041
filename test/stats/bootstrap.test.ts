import { describe, it, expect } from 'vitest';
import { allIndices, bootstrapCI, createRng, pairedBootstrap } from '../../server/stats/bootstrap.ts';
import type { IndexStat } from '../../server/stats/bootstrap.ts';
import { confusionMetricOn, gatheredOn, maeOn, pearsonOn, rmseOn } from '../../server/stats/resample.ts';
import { kendallOn, rocAucOn, spearmanOn } from '../../server/stats/resample-rank.ts';
import { kendallTauB, mae, pearson, rmse, spearman } from '../../server/stats/correlation.ts';
import { accuracy, confusionAt, kappaFromConfusion, rocAuc } from '../../server/stats/binary.ts';
import { addNoise, correlatedInts, flipSome, labelsFromScores, randomBools, randomFloats, randomInts } from './random-data.ts';

const meanOn = (v: readonly number[]): IndexStat => (idx) => {
  let s = 0;
  for (const i of idx) s += v[i]!;
  return idx.length ? s / idx.length : null;
};

describe('createRng', () => {
  it('is deterministic per seed and differs across seeds', () => {
    const a = createRng(42), b = createRng(42), c = createRng(43);
    const sa = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(sa);
    expect(Array.from({ length: 5 }, c)).not.toEqual(sa);
  });

  it('produces roughly uniform values in [0, 1)', () => {
    const rng = createRng(7);
    const bins = new Array<number>(10).fill(0);
    let sum = 0;
    let outOfRange = 0;
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const u = rng();
      if (!(u >= 0 && u < 1)) outOfRange++;
      else bins[Math.floor(u * 10)]! += 1;
      sum += u;
    }
    expect(outOfRange).toBe(0);
    expect(sum / n).toBeCloseTo(0.5, 2);
    // chi-square with 9 df; 27.9 is its 0.999 quantile
    const chi2 = bins.reduce((s, o) => s + (o - n / 10) ** 2 / (n / 10), 0);
    expect(chi2).toBeLessThan(27.9);
  });
});

describe('bootstrapCI', () => {
  it('brackets the mean with a width close to the normal-theory interval', () => {
    const v = randomFloats(2000, 3); // Uniform(0,1): sd = 1/√12
    const ci = bootstrapCI(v.length, meanOn(v), { seed: 11 })!;
    const m = v.reduce((s, x) => s + x, 0) / v.length;
    expect(ci[0]).toBeLessThan(m);
    expect(ci[1]).toBeGreaterThan(m);
    const normalWidth = 2 * 1.959964 * (1 / Math.sqrt(12)) / Math.sqrt(v.length);
    expect((ci[1] - ci[0]) / normalWidth).toBeGreaterThan(0.9);
    expect((ci[1] - ci[0]) / normalWidth).toBeLessThan(1.1);
  });

  it('is reproducible for a seed and narrows as alpha grows', () => {
    const v = randomFloats(300, 5);
    expect(bootstrapCI(300, meanOn(v), { seed: 9 })).toEqual(bootstrapCI(300, meanOn(v), { seed: 9 }));
    const wide = bootstrapCI(300, meanOn(v), { seed: 9, alpha: 0.01 })!;
    const narrow = bootstrapCI(300, meanOn(v), { seed: 9, alpha: 0.2 })!;
    expect(wide[1] - wide[0]).toBeGreaterThan(narrow[1] - narrow[0]);
  });

  it('skips resamples where the statistic is null, and gives up when too many are', () => {
    let calls = 0;
    const half: IndexStat = (idx) => (calls++ % 2 === 0 ? null : idx.length);
    expect(bootstrapCI(10, half, { resamples: 100 })).toEqual([10, 10]);
    expect(bootstrapCI(10, () => null)).toBeNull();
    let k = 0;
    const mostlyNull: IndexStat = () => (k++ % 4 === 0 ? 1 : null);
    expect(bootstrapCI(10, mostlyNull, { resamples: 100 })).toBeNull();
    expect(bootstrapCI(10, () => NaN)).toBeNull();
    expect(bootstrapCI(0, () => 1)).toBeNull();
  });

  it('rejects invalid options', () => {
    expect(() => bootstrapCI(5, () => 1, { resamples: 0 })).toThrow(RangeError);
    expect(() => bootstrapCI(5, () => 1, { alpha: 1 })).toThrow(RangeError);
    expect(() => bootstrapCI(-1, () => 1)).toThrow(RangeError);
  });

  it('brackets the Pearson correlation with 1,000 resamples over 10,000 items', () => {
    const x = randomFloats(10_000, 1);
    const y = addNoise(x, 2);
    const stat = pearsonOn(x, y);
    const ci = bootstrapCI(x.length, stat, { resamples: 1000, seed: 3 })!;
    const r = pearson(x, y)!;
    expect(ci[0]).toBeLessThan(r);
    expect(ci[1]).toBeGreaterThan(r);
  });

  it('runs 1,000 resamples of Spearman and ROC AUC over 10,000 items', () => {
    const x = randomInts(10_000, 1, 5, 1);
    const y = correlatedInts(x, 2, 2);
    const labels = randomBools(10_000, 0.5, 3);
    expect(bootstrapCI(x.length, spearmanOn(x, y), { seed: 1 })).not.toBeNull();
    expect(bootstrapCI(x.length, rocAucOn(y, labels), { seed: 1 })).not.toBeNull();
  });
});

describe('index-based statistics', () => {
  // Each must equal the plain function applied to the gathered resample (with repeats).
  it('equal the plain functions on gathered resamples with repeated items', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const n = 50 + seed * 10;
      const x = randomInts(n, 1, 6, seed);
      const y = correlatedInts(x, 2, seed + 1);
      const scores = randomInts(n, 0, 10, seed + 2).map((v) => v / 10);
      const labels = labelsFromScores(scores, 0, 1, seed + 3);
      const rng = createRng(seed);
      const idx = Uint32Array.from({ length: n }, () => Math.floor(rng() * n));
      const gx = Array.from(idx, (i) => x[i]!);
      const gy = Array.from(idx, (i) => y[i]!);
      const gs = Array.from(idx, (i) => scores[i]!);
      const gl = Array.from(idx, (i) => labels[i]!);
      expect(pearsonOn(x, y)(idx)).toBeCloseTo(pearson(gx, gy)!, 10);
      expect(spearmanOn(x, y)(idx)).toBeCloseTo(spearman(gx, gy)!, 10);
      expect(kendallOn(x, y)(idx)).toBeCloseTo(kendallTauB(gx, gy)!, 10);
      expect(maeOn(x, y)(idx)).toBeCloseTo(mae(gx, gy)!, 10);
      expect(rmseOn(x, y)(idx)).toBeCloseTo(rmse(gx, gy)!, 10);
      expect(rocAucOn(scores, labels)(idx)).toBeCloseTo(rocAuc(gs, gl)!, 10);
      expect(confusionMetricOn(scores, labels, 0.5, kappaFromConfusion)(idx)).toBe(kappaFromConfusion(confusionAt(gs, gl, 0.5)));
      expect(gatheredOn(x, y, (a, b) => pearson(a, b))(idx)).toBeCloseTo(pearson(gx, gy)!, 10);
    }
  });

  it('kendallOn and spearmanOn match on continuous data and on tiny resamples', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const n = 2 + seed * 15;
      const x = randomFloats(n, seed);
      const y = addNoise(x, seed + 1);
      const rng = createRng(seed + 2);
      for (const m of [2, 3, n]) {
        const idx = Uint32Array.from({ length: m }, () => Math.floor(rng() * n));
        const gx = Array.from(idx, (i) => x[i]!);
        const gy = Array.from(idx, (i) => y[i]!);
        const k = kendallTauB(gx, gy);
        if (k === null) expect(kendallOn(x, y)(idx)).toBeNull();
        else expect(kendallOn(x, y)(idx)).toBeCloseTo(k, 10);
        const r = spearman(gx, gy);
        if (r === null) expect(spearmanOn(x, y)(idx)).toBeNull();
        else expect(spearmanOn(x, y)(idx)).toBeCloseTo(r, 10);
      }
    }
  });

  it('return null on degenerate resamples', () => {
    const x = [1, 2, 3, 4];
    const y = [0.1, 0.2, 0.3, 0.4];
    const same = Uint32Array.from([2, 2, 2, 2]);
    expect(pearsonOn(x, y)(same)).toBeNull();
    expect(spearmanOn(x, y)(same)).toBeNull();
    expect(kendallOn(x, y)(same)).toBeNull();
    expect(rocAucOn(y, [true, false, true, false])(same)).toBeNull();
    expect(maeOn(x, y)(new Uint32Array(0))).toBeNull();
  });

  it('evaluate the full sample through allIndices', () => {
    const x = [3, 1, 4, 1, 5, 9, 2, 6];
    const y = [2, 7, 1, 8, 2, 8, 1, 8];
    expect(spearmanOn(x, y)(allIndices(8))).toBeCloseTo(spearman(x, y)!, 12);
  });
});

describe('pairedBootstrap', () => {
  const n = 400;
  const labels = randomBools(n, 0.5, 21);
  const good = flipSome(labels, 0.1, 22); // ~90 % agreement
  const bad = flipSome(labels, 0.4, 23); // ~60 %
  const accOf = (judge: boolean[]) => confusionMetricOn(judge.map(Number), labels, 0.5, accuracy);

  it('finds a clear difference with a CI excluding 0 and a small p-value', () => {
    const r = pairedBootstrap(n, accOf(good), accOf(bad), { seed: 5 })!;
    expect(r.diff).toBeCloseTo(accuracy(confusionAt(good.map(Number), labels, 0.5))! - accuracy(confusionAt(bad.map(Number), labels, 0.5))!, 12);
    expect(r.ci![0]).toBeGreaterThan(0);
    expect(r.p_value).toBeLessThan(0.01);
    expect(r.n_valid).toBe(1000);
  });

  it('gives diff 0, a zero-width CI and p = 1 for identical systems', () => {
    const r = pairedBootstrap(n, accOf(good), accOf(good), { seed: 5 })!;
    expect(r).toEqual({ diff: 0, ci: [0, 0], p_value: 1, n_valid: 1000 });
  });

  it('is symmetric in the two systems and reproducible', () => {
    const ab = pairedBootstrap(n, accOf(good), accOf(bad), { seed: 8 })!;
    const ba = pairedBootstrap(n, accOf(bad), accOf(good), { seed: 8 })!;
    expect(ba.diff).toBeCloseTo(-ab.diff, 12);
    expect(ba.p_value).toBe(ab.p_value);
    expect(ba.ci![0]).toBeCloseTo(-ab.ci![1], 12);
    expect(pairedBootstrap(n, accOf(good), accOf(bad), { seed: 8 })).toEqual(ab);
  });

  it('is null when the full-sample difference is undefined or n = 0', () => {
    expect(pairedBootstrap(10, () => null, () => 1)).toBeNull();
    expect(pairedBootstrap(0, () => 1, () => 1)).toBeNull();
  });
});
