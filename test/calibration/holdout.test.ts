import { describe, it, expect } from 'vitest';
import { holdoutBalance, holdoutPart, holdoutUnit, splitHoldout } from '../../server/calibration/holdout.ts';
import type { HoldoutItem } from '../../server/calibration/holdout.ts';
import { createRng } from '../../server/stats/index.ts';

/** n items with ids scattered over a wide range (labels arrive in any id order) in three strata. */
function items(n: number, seed: number): HoldoutItem[] {
  const rng = createRng(seed);
  const ids = new Set<number>();
  while (ids.size < n) ids.add(1 + Math.floor(rng() * 10_000_000));
  return [...ids].map((id) => {
    const u = rng();
    return { id, stratum: u < 0.6 ? 'pass' : u < 0.9 ? 'fail' : 'unsure' };
  });
}

describe('splitHoldout', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const its = items(2000, 1);
    expect([...splitHoldout(its, 42)]).toEqual([...splitHoldout(its, 42)]);
    const a = splitHoldout(its, 42), b = splitHoldout(its, 43);
    const differ = its.filter((it) => a.get(it.id) !== b.get(it.id)).length;
    expect(differ).toBeGreaterThan(600); // independent splits disagree on 2·0.3·0.7 = 42 %
  });

  it('does not move any item when other items are added, in any order', () => {
    const all = items(5000, 2);
    const before = splitHoldout(all.slice(0, 1000), 7);
    const shuffled = [...all].reverse();
    const after = splitHoldout(shuffled, 7);
    for (const [id, part] of before) expect(after.get(id)).toBe(part);
  });

  it('does not move an item when its gold label (stratum) is corrected', () => {
    const its = items(500, 3);
    const relabelled = its.map((it) => ({ ...it, stratum: it.stratum === 'pass' ? 'fail' : 'pass' }));
    expect([...splitHoldout(relabelled, 9)]).toEqual([...splitHoldout(its, 9)]);
  });

  it('holds out about the share in every stratum (binomial deviation only)', () => {
    const its = items(10_000, 4);
    const split = splitHoldout(its, 11, 0.3);
    const balance = holdoutBalance(its, split);
    expect(balance.map((b) => b.stratum)).toEqual(['fail', 'pass', 'unsure']);
    expect(balance.reduce((s, b) => s + b.calibration + b.held_out, 0)).toBe(10_000);
    for (const b of balance) {
      const m = b.calibration + b.held_out;
      const sd = Math.sqrt(m * 0.3 * 0.7);
      expect(Math.abs(b.held_out - 0.3 * m)).toBeLessThan(4 * sd);
    }
  });

  it('spreads consecutive ids evenly (a hash, not a pattern)', () => {
    const bins = new Array<number>(10).fill(0);
    for (let id = 1; id <= 100_000; id++) bins[Math.floor(holdoutUnit(5, id) * 10)]! += 1;
    const chi2 = bins.reduce((s, o) => s + (o - 10_000) ** 2 / 10_000, 0);
    expect(chi2).toBeLessThan(27.9); // 0.999 quantile, 9 df
    let runs = 0; // held-out runs over consecutive ids look like coin flips
    for (let id = 2; id <= 10_000; id++) if (holdoutPart(5, id) !== holdoutPart(5, id - 1)) runs++;
    expect(runs / 9999).toBeGreaterThan(0.4);
    expect(runs / 9999).toBeLessThan(0.44);
  });

  it('honours shares of 0 and 1 and rejects shares outside them', () => {
    const its = items(300, 5);
    expect([...splitHoldout(its, 1, 0).values()].every((p) => p === 'calibration')).toBe(true);
    expect([...splitHoldout(its, 1, 1).values()].every((p) => p === 'held_out')).toBe(true);
    expect(() => splitHoldout(its, 1, 1.5)).toThrow(RangeError);
  });

  it('accepts ids beyond 32 bits without collapsing them', () => {
    expect(holdoutUnit(1, 2 ** 40 + 1)).not.toBe(holdoutUnit(1, 1));
  });
});
