// A few-shot example is always in its own step's input/output schema: the check that refuses a
// version naming the example and field, the example made from the judge's trace, and a rubric's
// example made from an expert's label.
import { describe, expect, it } from 'vitest';
import { BUILTIN_METRICS, customRubricMetric } from '../../server/judge/metrics/index.ts';
import { exampleFromTrace, validateExamples } from '../../server/judge/examples.ts';
import { examplesError, exampleSkeleton } from '../../server/judge/example-messages.ts';
import { translator } from '../../server/i18n/index.ts';
import type { LabelledItem, StepDefinition } from '../../server/judge/types.ts';

const step = (metric: string, name: string): StepDefinition => BUILTIN_METRICS[metric]!.steps.find((s) => s.step === name)!;

describe('validateExamples', () => {
  it('refuses the old rubric-shaped example on the statements step, naming the example and the field', () => {
    const statements = step('faithfulness', 'statements');
    const good = { input: { question: 'q', text: 'a' }, output: { statements: ['s'] } };
    const bad = { input: { question: 'q', text: 'a' }, output: { value: '0', reason: 'r' } };
    expect(validateExamples(statements, [good])).toBeNull();
    expect(validateExamples(statements, [good, bad])).toEqual({ example: 2, field: 'output.statements', code: 'missing' });
  });

  it('names wrong types, values not allowed, unknown fields and non-examples', () => {
    const nli = step('faithfulness', 'nli');
    const input = { context: 'c', statements: ['s'] };
    expect(validateExamples(nli, [{ input, output: { statements: [{ statement: 's', reason: 'r', verdict: 'yes' }] } }]))
      .toMatchObject({ example: 1, field: 'output.statements[0].verdict', code: 'not_allowed' });
    expect(validateExamples(nli, [{ input: { context: 1, statements: [] }, output: { statements: [] } }]))
      .toEqual({ example: 1, field: 'input.context', code: 'wrong_type', expected: 'string' });
    expect(validateExamples(nli, [{ input: { ...input, extra: 1 }, output: { statements: [] } }]))
      .toEqual({ example: 1, field: 'input.extra', code: 'unknown_field' });
    expect(validateExamples(nli, [{ input, output: { statements: [] }, note: 'x' }])).toEqual({ example: 1, field: 'note', code: 'unknown_field' });
    expect(validateExamples(nli, ['text'])).toEqual({ example: 1, field: '', code: 'not_an_example' });
    expect(validateExamples(nli, [{ input, output: { statements: [] }, response_id: 7 }])).toBeNull();
  });

  it('words the problem in the user\'s language with the step\'s shape', () => {
    const nli = step('faithfulness', 'nli');
    const examples = [{ input: { context: 'c', statements: ['s'] }, output: { statements: [{ statement: 's', reason: 'r' }] } }];
    expect(examplesError(nli, examples, translator('en'))).toContain('Example 1: output.statements[0].verdict is missing.');
    expect(examplesError(nli, examples, translator('zh'))).toContain('示例 1：缺少 output.statements[0].verdict');
    expect(exampleSkeleton(nli)).toBe('{"input":{"context":"…","statements":["…"]},"output":{"statements":[{"statement":"…","reason":"…","verdict":0}]}}');
  });
});

describe('examples from traces and from labels', () => {
  it('takes the judge\'s own input and output of the first call of the step', () => {
    const trace = { computation: '', steps: [
      { step: 'statements', prompt_version: null, input: { question: 'q', text: 'a' }, messages: [], raw: '{}', parsed: { statements: ['x'] }, cached: false },
      { step: 'nli', prompt_version: null, input: { context: 'c', statements: ['x'] }, messages: [], raw: '{}',
        parsed: { statements: [{ statement: 'x', reason: 'r', verdict: 1 }] }, cached: false },
    ] };
    expect(exampleFromTrace(step('faithfulness', 'nli'), trace, 5)).toEqual({
      input: { context: 'c', statements: ['x'] }, output: { statements: [{ statement: 'x', reason: 'r', verdict: 1 }] }, response_id: 5,
    });
    expect(exampleFromTrace(step('faithfulness', 'nli'), { computation: '', steps: [] }, 5)).toBeNull();
  });

  it('offers no "from label" on built-in steps and makes a rubric example in the rubric\'s schema', () => {
    for (const m of Object.values(BUILTIN_METRICS)) for (const s of m.steps) expect(s.fromLabel, `${m.key}.${s.step}`).toBeUndefined();
    const rubric = customRubricMetric({ key: 'ok', output: 'binary', prompt: { en: { language: 'en', instruction: 'Is {{answer}} right?', output_format: '', examples: [] } } }).steps[0]!;
    const labelled: LabelledItem = {
      response_id: 3, gold: '0', rationale: 'wrong department', corrected_answer: '',
      criterion: { kind: 'binary', scale_min: null, scale_max: null },
      item: { question: 'q', answer: 'a', ground_truth: 'g', retrieved_contexts: ['c'], reference_contexts: [] },
    };
    const made = rubric.fromLabel!(labelled);
    expect(made).toEqual([{ input: { question: 'q', answer: 'a', ground_truth: 'g', contexts: ['c'] }, output: { reason: 'wrong department', value: 0 }, response_id: 3 }]);
    expect(validateExamples(rubric, made)).toBeNull();
    expect(rubric.fromLabel!({ ...labelled, criterion: { kind: 'ordinal', scale_min: 1, scale_max: 5 }, gold: '4' })).toEqual([]);
  });
});
