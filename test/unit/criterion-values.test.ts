import { describe, expect, it } from 'vitest';
import { canonicalValue, choices, inferShape, type CriterionShape } from '../../server/criteria/values.ts';

const binary: CriterionShape = { kind: 'binary', options: [], scale_min: null, scale_max: null };
const cat: CriterionShape = { kind: 'categorical', options: [{ value: 'correct', label: 'Correct' }, { value: 'hallucinated', label: '幻觉' }], scale_min: null, scale_max: null };
const ord: CriterionShape = { kind: 'ordinal', options: [], scale_min: 1, scale_max: 5 };
const num: CriterionShape = { kind: 'numeric', options: [], scale_min: null, scale_max: null };

describe('canonicalValue', () => {
  it('reads binary values in English and Chinese words', () => {
    expect(['yes', 'TRUE', '1', '正确', 'pass'].map((v) => canonicalValue(binary, v))).toEqual(['1', '1', '1', '1', '1']);
    expect(['no', 'False', '0', '错误', 'fail'].map((v) => canonicalValue(binary, v))).toEqual(['0', '0', '0', '0', '0']);
    expect(canonicalValue(binary, 'maybe')).toBeNull();
  });

  it('accepts only the options of a categorical criterion, by value or label', () => {
    expect(canonicalValue(cat, 'correct')).toBe('correct');
    expect(canonicalValue(cat, '幻觉')).toBe('hallucinated');
    expect(canonicalValue(cat, 'partially')).toBeNull();
  });

  it('keeps ordinal values on the scale and numeric ones in 0..1', () => {
    expect(canonicalValue(ord, '3')).toBe('3');
    expect(canonicalValue(ord, '6')).toBeNull();
    expect(canonicalValue(ord, '2.5')).toBeNull();
    expect(canonicalValue(num, '0.75')).toBe('0.75');
    expect(canonicalValue(num, '1.2')).toBeNull();
    expect(canonicalValue(num, 'abc')).toBeNull();
  });

  it('numbers the choices of an ordinal scale', () => {
    expect(choices(ord).map((c) => c.value)).toEqual(['1', '2', '3', '4', '5']);
  });
});

describe('inferShape', () => {
  it('infers binary, ordinal, numeric and categorical columns', () => {
    expect(inferShape(['yes', 'no', 'yes']).kind).toBe('binary');
    expect(inferShape(['1', '4', '5']).kind).toBe('ordinal');
    expect(inferShape(['0.2', '0.9']).kind).toBe('numeric');
    expect(inferShape(['correct', 'hallucinated']).options.map((o) => o.value)).toEqual(['correct', 'hallucinated']);
  });
});
