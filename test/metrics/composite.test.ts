import { describe, expect, it } from 'vitest';
import { composite, scored, unscored } from '../../server/metrics/index.ts';

describe('composite', () => {
  it('is the weighted mean with weights normalised by their sum', () => {
    const result = composite([
      { name: 'faithfulness', score: scored(0.8), weight: 2 },
      { name: 'context_recall', score: scored(0.5), weight: 1 },
      { name: 'answer_correctness', score: scored(0.2), weight: 1 },
    ]);
    // (2·0.8 + 0.5 + 0.2) / 4
    expect(result.value).toBeCloseTo(0.575, 12);
  });

  it('returns the component itself for a single component', () => {
    expect(composite([{ name: 'bleu', score: scored(0.3), weight: 5 }])).toEqual({ value: 0.3 });
  });

  it('has no value when a weighted component is unscored, naming the missing ones', () => {
    const result = composite([
      { name: 'faithfulness', score: unscored('no_statements'), weight: 1 },
      { name: 'context_recall', score: scored(1), weight: 1 },
      { name: 'context_precision', score: unscored('no_contexts'), weight: 1 },
    ]);
    expect(result).toEqual({ value: null, reason: 'component_missing', detail: 'faithfulness, context_precision' });
  });

  it('ignores components with weight 0, scored or not', () => {
    const result = composite([
      { name: 'faithfulness', score: scored(0.4), weight: 1 },
      { name: 'answer_relevancy', score: unscored('no_generated_questions'), weight: 0 },
      { name: 'bleu', score: scored(1), weight: 0 },
    ]);
    expect(result).toEqual({ value: 0.4 });
  });

  it('rejects invalid or all-zero weights', () => {
    expect(() => composite([])).toThrow(RangeError);
    expect(() => composite([{ name: 'a', score: scored(1), weight: 0 }])).toThrow(RangeError);
    expect(() => composite([{ name: 'a', score: scored(1), weight: -1 }])).toThrow(RangeError);
    expect(() => composite([{ name: 'a', score: scored(1), weight: Number.NaN }])).toThrow(RangeError);
  });
});

describe('scored', () => {
  it('refuses NaN and infinities', () => {
    expect(() => scored(Number.NaN)).toThrow(RangeError);
    expect(() => scored(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
