import { describe, expect, it } from 'vitest';
import {
  bleuScore,
  bleuZh as bleu,
  exactMatch,
  levenshteinDistance,
  levenshteinSimilarity,
  nonLlmContextPrecision,
  nonLlmContextRecall,
  rougeLZh as rougeL,
  rougeScore,
  stringPresence,
} from '../../server/metrics/index.ts';

const INDIA = 'The Eiffel Tower is located in India.';
const PARIS = 'The Eiffel Tower is located in Paris.';

describe('Ragas docs examples (traditional metrics)', () => {
  it('NonLLMStringSimilarity -> 0.8918918918918919', () => {
    // "India." -> "Paris." is 4 substitutions over 37 code points: 1 - 4/37
    expect(levenshteinSimilarity(INDIA, PARIS)).toBeCloseTo(0.8918918918918919, 15);
  });

  it('BleuScore -> 0.7071067811865478', () => {
    // 8 tokens each ("." split off); clipped precisions 7/8, 5/7, 4/6, 3/5; BP = 1
    // (7/8 · 5/7 · 4/6 · 3/5)^(1/4) = 0.25^(1/4) = 0.70710678…
    expect(bleuScore(INDIA, PARIS)).toBeCloseTo(0.7071067811865478, 12);
    expect(bleu(INDIA, PARIS)).toBeCloseTo(0.7071067811865478, 12);
  });

  it('RougeScore (rougeL fmeasure) -> 0.8571428571428571', () => {
    // 7 tokens each, LCS 6: P = R = 6/7
    expect(rougeScore(INDIA, PARIS).fmeasure).toBeCloseTo(0.8571428571428571, 15);
    expect(rougeL(INDIA, PARIS)).toBeCloseTo(0.8571428571428571, 15);
  });

  it('ExactMatch "India" vs "Paris" -> 0, StringPresence of "Eiffel Tower" -> 1', () => {
    expect(exactMatch('India', 'Paris')).toBe(0);
    expect(stringPresence(INDIA, 'Eiffel Tower')).toBe(1);
  });
});

describe('exactMatch and stringPresence', () => {
  it('compare without normalisation', () => {
    expect(exactMatch('Paris', 'Paris')).toBe(1);
    expect(exactMatch('Paris', 'paris')).toBe(0);
    expect(exactMatch('', '')).toBe(1);
    expect(stringPresence('张伟是教研部的成员', '教研部')).toBe(1);
    expect(stringPresence('教研部', '张伟是教研部的成员')).toBe(0);
    // Python: '' in s is True for every s
    expect(stringPresence('anything', '')).toBe(1);
  });
});

describe('levenshteinSimilarity', () => {
  it('is 1 - distance / max length', () => {
    expect(levenshteinDistance('kitten', 'sitting')).toBe(3);
    expect(levenshteinSimilarity('kitten', 'sitting')).toBeCloseTo(1 - 3 / 7, 15);
  });

  it('counts Unicode code points, not UTF-16 units', () => {
    // 2 insertions over 9 characters
    expect(levenshteinSimilarity('张伟是教研部的', '张伟是教研部的成员')).toBeCloseTo(7 / 9, 15);
    // one astral character each: one substitution over length 1
    expect(levenshteinDistance('😀', '😁')).toBe(1);
    expect(levenshteinSimilarity('😀a', '😁a')).toBe(0.5);
  });

  it('handles empty strings', () => {
    expect(levenshteinSimilarity('', '')).toBe(1);
    expect(levenshteinSimilarity('', 'abc')).toBe(0);
    expect(levenshteinSimilarity('abc', '')).toBe(0);
  });

  it('is 1 for identical and 0 for fully different equal-length strings', () => {
    expect(levenshteinSimilarity('same text', 'same text')).toBe(1);
    expect(levenshteinSimilarity('abc', 'xyz')).toBe(0);
  });
});

describe('bleuZh (Chinese-aware BLEU)', () => {
  it('matches a hand computation with exp smoothing', () => {
    // hyp: the cat sat on the mat   ref: the cat is on the mat   (6 tokens each, BP = 1)
    // 1-grams 5/6 (the×2, cat, on, mat); 2-grams 3/5 (the cat, on the, the mat);
    // 3-grams 1/4 (on the mat); 4-grams 0/3 -> exp smoothing 1/(2·3)
    // BLEU = (5/6 · 3/5 · 1/4 · 1/6)^(1/4) = (1/48)^(1/4)
    expect(bleu('the cat sat on the mat', 'the cat is on the mat')).toBeCloseTo((1 / 48) ** 0.25, 12);
  });

  it('applies the brevity penalty', () => {
    // 4 of 6 reference tokens, all n-grams match: BP = exp(1 - 6/4)
    expect(bleu('the cat sat on', 'the cat sat on the mat')).toBeCloseTo(Math.exp(-0.5), 12);
  });

  it('tokenises Chinese per character', () => {
    // 7 vs 9 characters, every hypothesis n-gram occurs in the reference: BLEU = BP = exp(1 - 9/7)
    expect(bleu('张伟是教研部的', '张伟是教研部的成员')).toBeCloseTo(Math.exp(-2 / 7), 12);
    expect(bleu('张伟是教研部的成员', '张伟是教研部的成员')).toBe(1);
    expect(bleu('张伟是人事部门的', '张伟是教研部的成员')).toBeGreaterThan(0);
  });

  it('is 1 for identical texts of at least 4 tokens and 0 for disjoint ones', () => {
    expect(bleu(PARIS, PARIS)).toBe(1);
    expect(bleu('alpha beta gamma delta', 'one two three four')).toBe(0);
  });

  it('scores short texts 0 unless effective order is on (sacreBLEU corpus_bleu vs sentence_bleu)', () => {
    // 1 token: no 2-, 3-, 4-grams, so the missing orders floor the geometric mean to 0
    expect(bleu('Paris', 'Paris')).toBe(0);
    expect(bleu('Paris', 'Paris', { effectiveOrder: true })).toBe(1);
    // 2 of 6 tokens, effective order 2: BP·1 = exp(1 - 6/2)
    expect(bleu('the cat', 'the cat sat on the mat', { effectiveOrder: true })).toBeCloseTo(Math.exp(-2), 12);
  });

  it('is 0 for empty input', () => {
    expect(bleu('', '')).toBe(0);
    expect(bleu('', PARIS)).toBe(0);
    expect(bleu(PARIS, '')).toBe(0);
  });

  it('stays within [0, 1]', () => {
    const texts = [PARIS, INDIA, 'the cat sat on the mat', '张伟是教研部的成员', 'Paris, France', ''];
    for (const a of texts) {
      for (const b of texts) {
        const v = bleu(a, b);
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(1);
      }
    }
  });
});

describe('rougeLZh (Chinese-aware ROUGE-L)', () => {
  it('matches a hand computation', () => {
    // LCS of "the cat sat on the mat" / "the cat is on the mat" = the cat on the mat (5)
    // P = R = 5/6, F = 5/6
    expect(rougeL('the cat sat on the mat', 'the cat is on the mat')).toBeCloseTo(5 / 6, 15);
  });

  it('tokenises Chinese per character', () => {
    // LCS 7; P = 7/7, R = 7/9; F = 2·(7/9) / (16/9) = 14/16
    expect(rougeL('张伟是教研部的', '张伟是教研部的成员')).toBeCloseTo(0.875, 15);
  });

  it('ignores case and punctuation', () => {
    expect(rougeL('THE Eiffel tower!!', 'the eiffel tower')).toBe(1);
  });

  it('is 1 for identical and 0 for disjoint texts', () => {
    expect(rougeL(PARIS, PARIS)).toBe(1);
    expect(rougeL('alpha beta', 'gamma delta')).toBe(0);
  });

  it('is 0 when either side has no tokens (as rouge_score)', () => {
    expect(rougeL('', '')).toBe(0);
    expect(rougeL('', 'abc')).toBe(0);
    expect(rougeL('。', '。')).toBe(0);
  });
});

describe('nonLlmContextPrecision', () => {
  const reference = ['Paris is the capital of France.', 'The Eiffel Tower is one of the most famous landmarks in Paris.'];

  it('scores the Ragas docs example as 0.9999999999 (Ragas divides by Σ v + 1e-10)', () => {
    // Best match is the landmark sentence: 62 code points, distance 28 -> similarity 34/62 >= 0.5
    expect(levenshteinSimilarity(PARIS, reference[1]!)).toBeCloseTo(34 / 62, 15);
    expect(nonLlmContextPrecision([PARIS], reference)).toEqual({ value: 1 / (1 + 1e-10) });
  });

  it('rank-weights the relevance verdicts', () => {
    // verdicts [0, 1] as in the course example
    expect(nonLlmContextPrecision(['unrelated text entirely', 'Paris is the capital of France.'], reference)).toEqual({
      value: 0.5 / (1 + 1e-10),
    });
  });

  it('treats similarity equal to the threshold as relevant (>=)', () => {
    const half = () => 0.5;
    expect(nonLlmContextPrecision(['a'], ['b'], 0.5, half)).toEqual({ value: 1 / (1 + 1e-10) });
    expect(nonLlmContextPrecision(['a'], ['b'], 0.51, half)).toEqual({ value: 0 });
  });

  it('is 0 without retrieved contexts and has no value without reference contexts (Ragas raises)', () => {
    expect(nonLlmContextPrecision([], reference)).toEqual({ value: 0 });
    expect(nonLlmContextPrecision([], [])).toEqual({ value: 0 });
    expect(nonLlmContextPrecision([PARIS], [])).toEqual({ value: null, reason: 'no_reference_contexts' });
  });

  it('rejects a non-finite threshold', () => {
    expect(() => nonLlmContextPrecision([PARIS], reference, Number.NaN)).toThrow(RangeError);
  });
});

describe('nonLlmContextRecall', () => {
  const reference = ['Paris is the capital of France.', 'The Eiffel Tower is one of the most famous landmarks in Paris.'];

  it('scores the Ragas docs example as 0.5', () => {
    // the first reference is retrieved verbatim (similarity 1); the second scores 1 - 48/62 ≈ 0.23
    expect(levenshteinSimilarity(reference[0]!, reference[1]!)).toBeCloseTo(1 - 48 / 62, 15);
    expect(nonLlmContextRecall(['Paris is the capital of France.'], reference)).toEqual({ value: 0.5 });
  });

  it('requires similarity strictly above the threshold (>)', () => {
    const half = () => 0.5;
    expect(nonLlmContextRecall(['a'], ['b'], 0.5, half)).toEqual({ value: 0 });
    expect(nonLlmContextRecall(['a'], ['b'], 0.49, half)).toEqual({ value: 1 });
  });

  it('works on Chinese contexts', () => {
    const retrieved = ['牛顿发现了万有引力', '张伟 教研部工程师'];
    const referenceContexts = ['张伟 教研部工程师，他最近在负责课程研发'];
    // 9 of 20 code points match as a prefix: 11 insertions, similarity 9/20 = 0.45
    expect(levenshteinSimilarity(retrieved[1]!, referenceContexts[0]!)).toBeCloseTo(9 / 20, 15);
    expect(nonLlmContextRecall(retrieved, referenceContexts)).toEqual({ value: 0 });
    expect(nonLlmContextRecall(retrieved, referenceContexts, 0.4)).toEqual({ value: 1 });
  });

  it('has no value when nothing was retrieved (Ragas raises) or without reference contexts (Ragas: NaN)', () => {
    expect(nonLlmContextRecall([], reference)).toEqual({ value: null, reason: 'no_contexts' });
    expect(nonLlmContextRecall([PARIS], [])).toEqual({ value: null, reason: 'no_reference_contexts' });
  });
});
