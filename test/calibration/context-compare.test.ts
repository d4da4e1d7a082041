// Comparing two runs on the same contexts: only contexts usable in both, the flips each way, and the
// paired bootstrap over responses (whole responses drawn, the same for A and B).
import { describe, expect, it } from 'vitest';
import { compareContextRuns } from '../../server/calibration/compare-context.ts';
import type { ContextRow } from '../../server/calibration/context-service.ts';
import { accuracy, clustersOf, confusionMetricOn, createRng, pairedClusterBootstrap } from '../../server/stats/index.ts';

const row = (id: number, gold: (string | null)[], verdicts: (0 | 1)[] | null, status: 'ok' | 'error' = 'ok'): ContextRow =>
  ({ id, system: '', scoreStatus: status, score: null, verdicts, gold });

describe('compareContextRuns', () => {
  it('compares only contexts usable in both runs and lists the flips each way, by rank', () => {
    const a = [row(1, ['1', '0', '1'], [0, 0, 1]), row(2, ['0', '1'], [1, 1]), row(3, ['1', null], [1, 1]), row(4, ['1'], [1])];
    const b = [row(1, ['1', '0', '1'], [1, 1, 1]), row(2, ['0', '1'], [0, 1]), row(3, ['1', null], [1, 0]), row(4, ['1'], null, 'error')];
    const cmp = compareContextRuns(a, b, { resamples: 100 });
    // Response 4 failed in B; context 2 of response 3 has no gold.
    expect(cmp.n).toBe(6);
    expect(cmp.responses).toBe(3);
    expect(cmp.not_in_both).toBe(1);
    expect(cmp.flipped.to_agree).toEqual([{ responseId: 1, index: 0 }, { responseId: 2, index: 0 }]);
    expect(cmp.flipped.to_disagree).toEqual([{ responseId: 1, index: 1 }]);
    expect(cmp.a.n).toBe(6);
    expect(cmp.b.n).toBe(6);
    expect(cmp.a.accuracy).toBeCloseTo(4 / 6, 12);
    expect(cmp.b.accuracy).toBeCloseTo(5 / 6, 12);
  });

  it('leaves out the responses used as examples by either run', () => {
    const a = [row(1, ['1', '0'], [1, 0]), row(2, ['1', '0'], [0, 1])];
    const cmp = compareContextRuns(a, a, { exclude: new Set([2]), resamples: 50 });
    expect(cmp.n).toBe(2);
    expect(cmp.not_in_both).toBe(0);
  });

  it('tests κ(B) − κ(A) and the agreement difference by a paired bootstrap over responses', () => {
    const rng = createRng(4);
    const a: ContextRow[] = [], b: ContextRow[] = [];
    for (let id = 1; id <= 50; id++) {
      const gold = Array.from({ length: 4 }, () => (rng() < 0.5 ? '1' : '0'));
      const va = gold.map((g) => ((rng() < 0.65) === (g === '1') ? 1 : 0) as 0 | 1);
      const vb = gold.map((g, i) => (rng() < 0.5 ? (g === '1' ? 1 : 0) : va[i]!) as 0 | 1);
      a.push(row(id, gold, va));
      b.push(row(id, gold, vb));
    }
    const cmp = compareContextRuns(a, b, { resamples: 400, seed: 3 });
    const gold = a.flatMap((r) => r.gold.map((g) => g === '1'));
    const clusters = clustersOf(a.flatMap((r) => r.gold.map(() => r.id)));
    const stat = (rows: ContextRow[], m: Parameters<typeof confusionMetricOn>[3]) => confusionMetricOn(rows.flatMap((r) => [...r.verdicts!]), gold, 0.5, m);
    expect(cmp.test.accuracy).toEqual(pairedClusterBootstrap(clusters, stat(b, accuracy), stat(a, accuracy), { resamples: 400, seed: 3 }));
    expect(cmp.test.kappa!.diff).toBeCloseTo(cmp.b.cohen_kappa! - cmp.a.cohen_kappa!, 12);
    expect(cmp.test.on).toBe('kappa');
    expect(cmp.verdict).toBe('better');
  });
});
