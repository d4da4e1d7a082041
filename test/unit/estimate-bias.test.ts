// Bias diagnostics of the true score and the estimate of one scope, on small data computed by hand.
import { describe, expect, it } from 'vitest';
import { biasDiagnostics, type BiasItem } from '../../server/estimate/bias.ts';
import { estimateScope, predictionRule } from '../../server/estimate/compute.ts';
import { ols } from '../../server/stats/ols.ts';

describe('biasDiagnostics', () => {
  // The judge gives 0.1 too much per 100 characters (residual gold − prediction falls with length); contexts do not matter.
  const items: BiasItem[] = Array.from({ length: 24 }, (_, i) => ({
    residual: -0.001 * (50 + 25 * i) + ((i * 7) % 5 - 2) / 100, answer_chars: 50 + 25 * i, n_contexts: 1 + ((i * 3) % 4), system: i % 3 ? 'v1' : 'v2',
  }));

  it('is one OLS of the residual on every factor, Holm-adjusted, and flags the length effect', () => {
    const r = biasDiagnostics(items, true);
    expect(r.rows.map((x) => x.factor)).toEqual(['answer_length', 'contexts', 'system=v2']);
    const fit = ols([items.map(() => 1), items.map((x) => x.answer_chars / 100), items.map((x) => x.n_contexts), items.map((x) => (x.system === 'v2' ? 1 : 0))], items.map((x) => x.residual));
    expect(r.rows[0]!.effect).toBeCloseTo(fit.coef[1]!, 12);
    expect(r.rows[0]!.effect!).toBeCloseTo(-0.1, 2);
    expect(r.rows[0]!.p_adjusted).toBeCloseTo(Math.min(1, 3 * fit.p[1]!), 12); // the smallest of three p-values
    expect(r.rows[2]!.reference).toBe('v1'); // the most frequent system
    expect(r.flagged).toEqual(['answer_length']);
  });

  it('leaves out the system over one system, says a factor that does not vary, and tests nothing below 10 items', () => {
    const same = items.map((x) => ({ ...x, n_contexts: 2 }));
    const r = biasDiagnostics(same, false);
    expect(r.rows.map((x) => x.factor)).toEqual(['answer_length', 'contexts']);
    expect(r.rows[1]).toMatchObject({ effect: null, p_value: null, p_adjusted: null });
    expect(biasDiagnostics(items.slice(0, 9), true)).toMatchObject({ too_few: true, flagged: [] });
  });
});

describe('estimateScope', () => {
  it('counts the sample\'s missing items by reason and uses sampled gold only', () => {
    // Five items, predictions 1 1 0 1 1; sampled: 1 (gold 0), 2 (gold 1), 3 (pending), 4 (disputed), 9 (gold, never scored).
    const population = { ids: Float64Array.from([1, 2, 3, 4, 5]), questions: Uint32Array.from([0, 1, 2, 3, 4]), predictions: Float64Array.from([1, 1, 0, 1, 1]), nQuestions: 5 };
    const r = estimateScope({ population, halfWidth: 0.05, exclude: new Set(), sampled: [
      { id: 1, state: 'gold', gold: 0 }, { id: 2, state: 'gold', gold: 1 }, { id: 3, state: 'pending', gold: null },
      { id: 4, state: 'disputed', gold: null }, { id: 9, state: 'gold', gold: 1 },
    ] });
    expect(r.sample).toEqual({ drawn: 5, completed: 2, missing: 3, pending: 1, disputed: 1, no_score: 1, used_as_example: 0 });
    expect(r).toMatchObject({ n_labelled: 2, n_unlabelled: 3 });
    expect(r.judge_only.estimate).toBeCloseTo(0.8, 15);
    expect(r.gold_only.estimate).toBeCloseTo(0.5, 15);
    expect(r.notes).toContain('missing_over_5_percent');
  });

  it('reads the judge\'s prediction on the criterion\'s scale', () => {
    const binary = predictionRule('binary', 0.7, null, []) as (s: number) => number;
    expect([binary(0.69), binary(0.7)]).toEqual([0, 1]);
    const ordinal = predictionRule('ordinal', 0.5, { min: 1, max: 5 }, [0.25, 0.5]) as (s: number) => number;
    expect(ordinal(0.25)).toBe(2);
    const onScale = predictionRule('ordinal', 0.5, { min: 1, max: 5 }, [1, 4, 5]) as (s: number) => number;
    expect(onScale(4)).toBe(4);
    expect(predictionRule('ordinal', 0.5, { min: 1, max: 5 }, [7, 9])).toEqual({ error: 'score_scale_differs' });
    expect(predictionRule('categorical', 0.5, null, [])).toEqual({ error: 'categorical_criterion' });
  });
});
