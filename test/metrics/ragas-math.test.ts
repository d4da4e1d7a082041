import { describe, expect, it } from 'vitest';
import {
  answerCorrectness,
  answerRelevancy,
  contextPrecision,
  contextRecall,
  cosine,
  faithfulness,
  fbeta,
} from '../../server/metrics/index.ts';
import type { Score } from '../../server/metrics/index.ts';

function valueOf(score: Score): number {
  if (score.value === null) throw new Error(`expected a value, got null (${score.reason})`);
  return score.value;
}

// The F1 formula as written in the course text and older Ragas releases.
function courseF1(tp: number, fp: number, fn: number): number {
  return tp > 0 ? tp / (tp + 0.5 * (fp + fn)) : 0;
}

// Ragas's own average-precision expression, epsilon included, for comparison.
function ragasAveragePrecision(verdicts: readonly number[]): number {
  const denominator = verdicts.reduce((a, b) => a + b, 0) + 1e-10;
  let numerator = 0;
  for (let i = 0; i < verdicts.length; i++) {
    const upTo = verdicts.slice(0, i + 1).reduce((a, b) => a + b, 0);
    numerator += (upTo / (i + 1)) * verdicts[i]!;
  }
  return numerator / denominator;
}

describe('fbeta', () => {
  it('gives 0.5 for the course example TP=FP=FN=1', () => {
    // answer ["张伟是教研部的", "张伟负责大模型课程"] vs ground truth ["张伟是教研部的", "张伟负责大数据方向"]
    expect(fbeta(1, 1, 1)).toBe(0.5);
    expect(courseF1(1, 1, 1)).toBe(0.5);
  });

  it('agrees with the course formula tp/(tp+0.5(fp+fn)) for beta = 1', () => {
    for (let tp = 0; tp <= 6; tp++) {
      for (let fp = 0; fp <= 6; fp++) {
        for (let fn = 0; fn <= 6; fn++) {
          expect(Math.abs(fbeta(tp, fp, fn) - courseF1(tp, fp, fn))).toBeLessThan(1e-12);
        }
      }
    }
  });

  it('is 0 without true positives and 1 for a perfect match', () => {
    expect(fbeta(0, 0, 0)).toBe(0);
    expect(fbeta(0, 3, 2)).toBe(0);
    expect(fbeta(4, 0, 0)).toBe(1);
  });

  it('weights recall by beta', () => {
    // P = 2/3, R = 1/2; F2 = 5·P·R / (4P + R) = (5/3) / (19/6) = 10/19
    expect(fbeta(2, 1, 2, 2)).toBeCloseTo(10 / 19, 12);
    // beta = 0 reduces to precision
    expect(fbeta(2, 1, 2, 0)).toBeCloseTo(2 / 3, 12);
  });

  it('rejects invalid counts and beta', () => {
    expect(() => fbeta(-1, 0, 0)).toThrow(RangeError);
    expect(() => fbeta(1.5, 0, 0)).toThrow(RangeError);
    expect(() => fbeta(1, 0, 0, Number.NaN)).toThrow(RangeError);
    expect(() => fbeta(1, 0, 0, -1)).toThrow(RangeError);
  });
});

describe('answerCorrectness', () => {
  it('reproduces the course score 0.994619 for TP=1, FP=0, FN=0 with similarity 0.978476', () => {
    // '张伟是教研部的' vs '张伟是教研部的成员': 0.75·1 + 0.25·s = 0.994619  =>  s = 0.978476
    const s = (0.994619 - 0.75) / 0.25;
    expect(s).toBeCloseTo(0.978476, 12);
    expect(valueOf(answerCorrectness({ tp: 1, fp: 0, fn: 0 }, 0.978476))).toBeCloseTo(0.994619, 12);
  });

  it('is consistent with the other two course rows when factuality is 0', () => {
    // With TP = 0 only the similarity term remains: 0.25·s. The table's 0.175227 and 0.193980
    // then imply similarities 0.700908 and 0.77592, both plausible embedding cosines.
    expect(valueOf(answerCorrectness({ tp: 0, fp: 1, fn: 1 }, 0.700908))).toBeCloseTo(0.175227, 12);
    expect(valueOf(answerCorrectness({ tp: 0, fp: 1, fn: 1 }, 0.77592))).toBeCloseTo(0.19398, 12);
  });

  it('uses F1 = 0.5 for the course statement example', () => {
    const counts = { tp: 1, fp: 1, fn: 1 };
    expect(valueOf(answerCorrectness(counts, 0.8))).toBeCloseTo(0.75 * 0.5 + 0.25 * 0.8, 12);
    // similarity weight 0: no embedding needed
    expect(valueOf(answerCorrectness(counts, null, [1, 0]))).toBe(0.5);
  });

  it('normalises the weights by their sum', () => {
    const counts = { tp: 2, fp: 1, fn: 0 };
    const a = valueOf(answerCorrectness(counts, 0.6, [0.75, 0.25]));
    const b = valueOf(answerCorrectness(counts, 0.6, [3, 1]));
    expect(b).toBeCloseTo(a, 12);
    expect(valueOf(answerCorrectness(counts, 0.6, [1, 1]))).toBeCloseTo((0.8 + 0.6) / 2, 12);
    expect(valueOf(answerCorrectness(counts, 0.6, [0, 2]))).toBeCloseTo(0.6, 12);
  });

  it('passes beta through to the factuality F-score', () => {
    const counts = { tp: 2, fp: 1, fn: 2 };
    expect(valueOf(answerCorrectness(counts, null, [1, 0], 2))).toBeCloseTo(10 / 19, 12);
  });

  it('has no value without statements or without a needed similarity', () => {
    expect(answerCorrectness({ tp: 0, fp: 0, fn: 0 }, 0.9)).toEqual({ value: null, reason: 'no_statements' });
    expect(answerCorrectness({ tp: 1, fp: 0, fn: 0 }, null)).toEqual({ value: null, reason: 'missing_similarity' });
    expect(answerCorrectness({ tp: 1, fp: 0, fn: 0 }, Number.NaN)).toEqual({
      value: null,
      reason: 'missing_similarity',
    });
  });

  it('rejects invalid weights', () => {
    const counts = { tp: 1, fp: 0, fn: 0 };
    expect(() => answerCorrectness(counts, 1, [0, 0])).toThrow(RangeError);
    expect(() => answerCorrectness(counts, 1, [-1, 2])).toThrow(RangeError);
    expect(() => answerCorrectness(counts, 1, [Number.POSITIVE_INFINITY, 1])).toThrow(RangeError);
  });
});

describe('faithfulness', () => {
  it('is the share of supported statements (Ragas docs example: 1 of 2 -> 0.5)', () => {
    expect(valueOf(faithfulness([1, 0]))).toBe(0.5);
    expect(valueOf(faithfulness([true, true, false]))).toBeCloseTo(2 / 3, 12);
    expect(valueOf(faithfulness([0, 0]))).toBe(0);
  });

  it('has no value without statements', () => {
    expect(faithfulness([])).toEqual({ value: null, reason: 'no_statements' });
  });
});

describe('contextPrecision', () => {
  it('matches the course example [0, 1] -> 0.5', () => {
    // context₁ precision 0/1 = 0, context₂ 1/2 = 0.5; (0 + 0.5) / 1 relevant = 0.5
    expect(valueOf(contextPrecision([0, 1]))).toBe(0.5);
  });

  it('keeps 1 when an irrelevant chunk follows the relevant one (Ragas docs note)', () => {
    expect(valueOf(contextPrecision([1, 0]))).toBe(1);
    expect(valueOf(contextPrecision([1]))).toBe(1);
  });

  it('is 0 when nothing is relevant', () => {
    expect(valueOf(contextPrecision([0, 0]))).toBe(0);
  });

  it('scores the course quiz ranking (only the 4th of 5 relevant) as 1/4', () => {
    expect(valueOf(contextPrecision([0, 0, 0, 1, 0]))).toBe(0.25);
  });

  it('averages precision@k over relevant ranks', () => {
    // ranks 1 and 3 relevant: (1/1 + 2/3) / 2
    expect(valueOf(contextPrecision([1, 0, 1]))).toBeCloseTo((1 + 2 / 3) / 2, 12);
    expect(valueOf(contextPrecision([true, false, true]))).toBeCloseTo((1 + 2 / 3) / 2, 12);
  });

  it('agrees with Ragas (epsilon 1e-10 in the denominator) to 1e-9', () => {
    // Ragas docs print 0.9999999999 for a single relevant context; we return exactly 1.
    expect(Math.abs(valueOf(contextPrecision([1])) - 0.9999999999)).toBeLessThan(1e-9);
    let seed = 42;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let trial = 0; trial < 500; trial++) {
      const length = 1 + Math.floor(next() * 12);
      const verdicts = Array.from({ length }, () => (next() < 0.4 ? 1 : 0) as 0 | 1);
      expect(Math.abs(valueOf(contextPrecision(verdicts)) - ragasAveragePrecision(verdicts))).toBeLessThan(1e-9);
    }
  });

  it('has no value for an empty ranking', () => {
    expect(contextPrecision([])).toEqual({ value: null, reason: 'no_contexts' });
  });
});

describe('contextRecall', () => {
  it('matches the course example 1 = 1/1', () => {
    expect(valueOf(contextRecall([1]))).toBe(1);
  });

  it('is the attributed share', () => {
    expect(valueOf(contextRecall([1, 0, 1]))).toBeCloseTo(2 / 3, 12);
    expect(valueOf(contextRecall([false]))).toBe(0);
  });

  it('has no value without reference statements', () => {
    expect(contextRecall([])).toEqual({ value: null, reason: 'no_statements' });
  });
});

describe('cosine', () => {
  it('computes dot / (|a|·|b|)', () => {
    expect(cosine([1, 2, 3], [1, 2, 3])).toBeCloseTo(1, 12);
    expect(cosine([1, 0], [0, 5])).toBe(0);
    expect(cosine([1, 1], [-2, -2])).toBeCloseTo(-1, 12);
    // (3·4 + 4·3) / (5·5) = 24/25
    expect(cosine([3, 4], [4, 3])).toBeCloseTo(0.96, 12);
  });

  it('is null for a zero vector and throws on bad input', () => {
    expect(cosine([0, 0], [1, 2])).toBeNull();
    expect(cosine([], [])).toBeNull();
    expect(() => cosine([1, 2], [1])).toThrow(RangeError);
    expect(() => cosine([1, Number.NaN], [1, 2])).toThrow(RangeError);
  });
});

describe('answerRelevancy', () => {
  const question = [1, 0];
  const generated = [
    [1, 0], // cos 1
    [0, 1], // cos 0
    [3, 4], // cos 0.6
  ];

  it('is the mean cosine similarity to the question when all answers are committal', () => {
    expect(valueOf(answerRelevancy(question, generated, [0, 0, 0]))).toBeCloseTo(1.6 / 3, 12);
  });

  it("is 0 when any generation is non-committal under the 'any' rule (Ragas ≤0.3)", () => {
    expect(answerRelevancy(question, generated, [0, 1, 0], { rule: 'any' })).toEqual({ value: 0 });
    expect(answerRelevancy(question, generated, [true, false, false], { rule: 'any' })).toEqual({ value: 0 });
  });

  it("is 0 only when every generation is non-committal under the default 'all' rule (Ragas 0.4)", () => {
    expect(valueOf(answerRelevancy(question, generated, [0, 1, 0]))).toBeCloseTo(1.6 / 3, 12);
    expect(valueOf(answerRelevancy(question, generated, [0, 1, 0], { rule: 'all' }))).toBeCloseTo(1.6 / 3, 12);
    expect(answerRelevancy(question, generated, [1, 1, 1], { rule: 'all' })).toEqual({ value: 0 });
  });

  it('can be negative', () => {
    expect(valueOf(answerRelevancy([1, 0], [[-1, 0]], [0]))).toBe(-1);
  });

  it('has no value without generations or with a zero embedding', () => {
    expect(answerRelevancy(question, [], [])).toEqual({ value: null, reason: 'no_generated_questions' });
    expect(answerRelevancy(question, [[0, 0]], [0])).toEqual({ value: null, reason: 'zero_vector' });
    expect(answerRelevancy([0, 0], generated, [0, 0, 0])).toEqual({ value: null, reason: 'zero_vector' });
  });

  it('throws when flags and embeddings do not pair up', () => {
    expect(() => answerRelevancy(question, generated, [0, 0])).toThrow(RangeError);
  });
});
