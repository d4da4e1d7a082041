import { describe, it, expect } from 'vitest';
import { comparePromptVersions } from '../../server/calibration/compare.ts';
import type { BinaryReport, CalibrationPair } from '../../server/calibration/report.ts';
import { createRng, mcnemarExact, pairedBootstrap, spearmanOn } from '../../server/stats/index.ts';

const ok = (id: number, score: number, gold: string): CalibrationPair => ({ id, score, scoreStatus: 'ok', gold });

/**
 * 30 binary items: 12 both versions get right, 8 both get wrong, `onlyA` only A gets right and
 * `onlyB` only B gets right (the rest of the 10 discordant slots are unused).
 */
function discordant(onlyA: number, onlyB: number): { a: CalibrationPair[]; b: CalibrationPair[] } {
  const a: CalibrationPair[] = [], b: CalibrationPair[] = [];
  let id = 0;
  const add = (gold: '1' | '0', aRight: boolean, bRight: boolean) => {
    id++;
    const right = gold === '1' ? 0.9 : 0.1, wrong = gold === '1' ? 0.1 : 0.9;
    a.push(ok(id, aRight ? right : wrong, gold));
    b.push(ok(id, bRight ? right : wrong, gold));
  };
  for (let i = 0; i < 12; i++) add(i % 2 ? '1' : '0', true, true);
  for (let i = 0; i < 8; i++) add(i % 2 ? '1' : '0', false, false);
  for (let i = 0; i < onlyA; i++) add(i % 2 ? '1' : '0', true, false);
  for (let i = 0; i < onlyB; i++) add(i % 2 ? '1' : '0', false, true);
  return { a, b };
}

describe('comparePromptVersions: binary criteria', () => {
  it('finds B better with b = 1, c = 9: McNemar p = 2·11/1024', () => {
    const { a, b } = discordant(1, 9);
    const cmp = comparePromptVersions(a, b, 'binary', 0.5, { resamples: 100 });
    expect(cmp.n).toBe(30);
    expect(cmp.test).toMatchObject({ method: 'mcnemar_exact', b: 1, c: 9 });
    expect(cmp.test.p_value).toBeCloseTo(22 / 1024, 14); // 2·P(X <= 1), X ~ Bin(10, 1/2) = 0.0215
    expect(cmp.test.p_value).toBeCloseTo(0.0215, 4);
    expect(cmp.verdict).toBe('better');
    expect(cmp.flipped.to_agree).toEqual([22, 23, 24, 25, 26, 27, 28, 29, 30]);
    expect(cmp.flipped.to_disagree).toEqual([21]);
    expect((cmp.a as BinaryReport).accuracy).toBeCloseTo(13 / 30, 12);
    expect((cmp.b as BinaryReport).accuracy).toBeCloseTo(21 / 30, 12);
  });

  it('finds B worse when the versions swap', () => {
    const { a, b } = discordant(1, 9);
    const cmp = comparePromptVersions(b, a, 'binary', 0.5, { resamples: 100 });
    expect(cmp.test).toMatchObject({ b: 9, c: 1 });
    expect(cmp.verdict).toBe('worse');
  });

  it('sees no clear difference when as many items flip each way (p = 1)', () => {
    const { a, b } = discordant(5, 5);
    const cmp = comparePromptVersions(a, b, 'binary', 0.5, { resamples: 100 });
    expect(cmp.test).toEqual({ method: 'mcnemar_exact', b: 5, c: 5, p_value: 1 });
    expect(cmp.verdict).toBe('no_clear_difference');
  });

  it('needs more than a lean: b = 2, c = 8 is not significant at 0.05', () => {
    const { a, b } = discordant(2, 8);
    const cmp = comparePromptVersions(a, b, 'binary', 0.5, { resamples: 100 });
    expect(cmp.test.p_value).toBeCloseTo(mcnemarExact(2, 8).p_value, 15);
    expect(cmp.test.p_value).toBeGreaterThan(0.05);
    expect(cmp.verdict).toBe('no_clear_difference');
  });

  it('compares only items usable in both versions, and not the examples', () => {
    const { a, b } = discordant(1, 9);
    b[0] = { ...b[0]!, score: null, scoreStatus: 'error' };
    const extraA = [...a, ok(100, 0.9, '1')];
    const cmp = comparePromptVersions(extraA, b, 'binary', 0.5, { resamples: 50, exclude: new Set([2]) });
    expect(cmp.n).toBe(28);
    expect(cmp.not_in_both).toBe(2); // item 1 (error in B) and item 100 (A only)
    expect(cmp.excluded_b).toEqual({ used_as_example: 1, no_gold_label: 0, judge_error: 1, no_score: 0 });
    expect(cmp.a.n).toBe(28);
    expect(cmp.b.n).toBe(28);
  });

  it('refuses items whose gold differs between the two inputs', () => {
    const { a, b } = discordant(1, 1);
    b[3] = { ...b[3]!, gold: b[3]!.gold === '1' ? '0' : '1' };
    expect(() => comparePromptVersions(a, b, 'binary')).toThrow(/gold/);
  });
});

describe('comparePromptVersions: categorical criteria', () => {
  it('uses McNemar on exact category agreement', () => {
    const gold = ['x', 'y', 'z', 'x', 'y', 'z'];
    const a = gold.map((g, i): CalibrationPair => ({ id: i + 1, score: null, scoreStatus: 'ok', gold: g, label: i < 2 ? g : 'x' }));
    const b = gold.map((g, i): CalibrationPair => ({ id: i + 1, score: null, scoreStatus: 'ok', gold: g, label: g }));
    const cmp = comparePromptVersions(a, b, 'categorical', 0.5, { categories: ['x', 'y', 'z'], resamples: 50 });
    // A right on 1, 2, 4 (gold x); B right everywhere.
    expect(cmp.test).toMatchObject({ method: 'mcnemar_exact', b: 0, c: 3 });
    expect(cmp.test.p_value).toBeCloseTo(0.25, 14); // 2 · (1/2)³
    expect(cmp.flipped.to_agree).toEqual([3, 5, 6]);
  });
});

describe('comparePromptVersions: numeric and ordinal criteria', () => {
  const rng = createRng(8);
  const gold = Array.from({ length: 200 }, () => Math.round(rng() * 100) / 100);
  const noisy = gold.map((g) => Math.min(1, Math.max(0, g + (rng() - 0.5) * 1.2)));
  const close = gold.map((g) => Math.min(1, Math.max(0, g + (rng() - 0.5) * 0.1)));
  const pairs = (scores: number[]) => scores.map((s, i) => ok(i + 1, s, String(gold[i])));

  it('runs a paired bootstrap on the Spearman difference, B minus A', () => {
    const cmp = comparePromptVersions(pairs(noisy), pairs(close), 'numeric', 0.5, { resamples: 300, seed: 4 });
    const g = Float64Array.from(gold);
    const expected = pairedBootstrap(200, spearmanOn(close, g), spearmanOn(noisy, g), { resamples: 300, seed: 4 })!;
    expect(cmp.test).toEqual({ method: 'paired_bootstrap', statistic: 'spearman', diff: expected.diff, ci95: expected.ci, p_value: expected.p_value, n_valid: expected.n_valid });
    expect(cmp.test.method === 'paired_bootstrap' && cmp.test.diff! > 0).toBe(true);
    expect(cmp.verdict).toBe('better');
    expect(comparePromptVersions(pairs(close), pairs(noisy), 'numeric', 0.5, { resamples: 300 }).verdict).toBe('worse');
  });

  it('sees no difference between identical versions', () => {
    const cmp = comparePromptVersions(pairs(noisy), pairs(noisy), 'numeric', 0.5, { resamples: 100 });
    expect(cmp.test).toMatchObject({ diff: 0, p_value: 1 });
    expect(cmp.verdict).toBe('no_clear_difference');
    expect(cmp.flipped).toEqual({ to_agree: [], to_disagree: [] });
  });

  it('flips an item only when its error changes by more than the tolerance', () => {
    const a = [ok(1, 0.5, '0.5'), ok(2, 0.5, '0.5'), ok(3, 0.2, '0.5'), ok(4, 0.9, '0.5')];
    const b = [ok(1, 0.55, '0.5'), ok(2, 0.8, '0.5'), ok(3, 0.5, '0.5'), ok(4, 0.85, '0.5')];
    const cmp = comparePromptVersions(a, b, 'numeric', 0.5, { resamples: 20, tolerance: 0.1 });
    expect(cmp.flipped).toEqual({ to_agree: [3], to_disagree: [2] });
  });

  it('compares ordinal errors on one scale when one version scores 0..1 and the other on the criterion scale', () => {
    const scale = ['1', '2', '3', '4', '5'];
    const a = [ok(1, 0.5, '3'), ok(2, 1, '5'), ok(3, 0, '5')]; // 0..1 judge
    const b = [ok(1, 3, '3'), ok(2, 1, '5'), ok(3, 5, '5')]; // 1..5 rubric
    const cmp = comparePromptVersions(a, b, 'ordinal', 0.5, { categories: scale, resamples: 20 });
    expect(cmp.flipped).toEqual({ to_agree: [3], to_disagree: [2] });
  });
});
