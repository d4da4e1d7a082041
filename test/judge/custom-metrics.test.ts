// Custom rubric metrics (normalisation per output type, raw value kept for calibration), composite
// metrics (weighted mean, null propagation), and the chapter's examples, including the conciseness
// word-count rule.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  compositeMetric, concisenessScore, countWords, customRubricMetric, defaultPrompts, EXAMPLE_METRICS, faithfulnessMetric, getMetric,
} from '../../server/judge/metrics/index.ts';
import type { RubricOutput } from '../../server/judge/metrics/index.ts';
import type { PromptTemplate } from '../../server/judge/types.ts';
import { startFakeOpenAI } from '../fake-openai/server.ts';
import type { FakeOpenAI } from '../fake-openai/server.ts';
import { chatBodies, item, judgeFor, routeSteps, score, systemText, TEST_KEY, userText } from './helpers.ts';

let fake: FakeOpenAI;
beforeAll(async () => { fake = await startFakeOpenAI({ apiKey: TEST_KEY }); });
afterAll(async () => { await fake.close(); });
beforeEach(() => { fake.reset(); });

const prompt: PromptTemplate = { language: 'en', instruction: 'Rate the answer.\nQuestion: {{question}}\nAnswer: {{answer}}', output_format: '', examples: [] };
const zhang = item({ question: '张伟是哪个部门的？', answer: '张伟是教研部的。', ground_truth: '张伟是教研部的成员。' });

function rubric(output: RubricOutput, extra: Partial<Parameters<typeof customRubricMetric>[0]> = {}) {
  return customRubricMetric({ key: `r_${output}`, prompt: { en: prompt }, output, ...extra });
}

describe('custom rubric metrics', () => {
  it.each([
    ['binary', 1, 1],
    ['binary', 0, 0],
    ['scale_1_5', 1, 0],
    ['scale_1_5', 4, 0.75],
    ['scale_1_5', 5, 1],
    ['score_0_1', 0.8, 0.8],
  ] as const)('%s value %s is normalised to %s, the raw value kept in the trace', async (output, value, expected) => {
    routeSteps(fake, { rubric_verdict: () => ({ reason: 'because', value }) });
    const result = await score(rubric(output), zhang, judgeFor(fake));
    expect(result).toMatchObject({ status: 'ok', value: expected, reason: 'because' });
    expect(result.trace.values).toMatchObject({ output, raw_value: value, score: expected });
    expect(fake.counts().chat).toBe(1);
  });

  it("categorical: the category's score, with the category itself kept for calibration", async () => {
    routeSteps(fake, { rubric_verdict: () => ({ reason: '只说了部门。', value: 'partial' }) });
    const result = await score(EXAMPLE_METRICS['completeness']!, zhang, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'ok', value: 0.5, reason: '只说了部门。' });
    expect(result.trace.values).toMatchObject({ raw_value: 'partial' });
    expect(result.trace.computation).toBe('category "partial" → 0.5000');
  });

  it('fills the placeholders into the instruction and shows the judge nothing else', async () => {
    routeSteps(fake, { rubric_verdict: () => ({ reason: 'r', value: 'complete' }) });
    await score(EXAMPLE_METRICS['completeness']!, zhang, judgeFor(fake), 'zh');
    const body = chatBodies(fake)[0]!;
    expect(systemText(body)).toContain('问题：张伟是哪个部门的？\n回答：张伟是教研部的。');
    expect(systemText(body)).toContain('"complete"、"partial"、"unanswered"');
    expect(userText(body)).toBe('请评估上面说明中给出的内容（示例仅作参考），只输出 JSON 对象。');
    expect(JSON.stringify(body.messages)).not.toContain('张伟是教研部的成员');
    expect(body.response_format?.json_schema?.schema).toMatchObject({ properties: { value: { enum: ['complete', 'partial', 'unanswered'] } } });
  });

  it('a value outside the output type that stays wrong after the repair is an error, never 0', async () => {
    routeSteps(fake, { rubric_verdict: () => ({ reason: 'great', value: 7 }) });
    const result = await score(rubric('scale_1_5'), zhang, judgeFor(fake));
    expect(result).toMatchObject({ status: 'error', value: null, reason: 'schema' });
    expect(result.trace.steps[0]!.raw).toBe('{"reason":"great","value":7}');
  });

  it('generates the output format when the template leaves it empty, and uses the other language when one is missing', () => {
    const m = rubric('scale_1_5');
    expect(m.steps[0]!.defaults.en.output_format).toContain('an integer from 1 to 5');
    expect(m.steps[0]!.defaults.zh.instruction).toBe(prompt.instruction);
  });

  it('needs the ground truth when an instruction uses {{ground_truth}}', () => {
    expect(rubric('binary').needs).toEqual([]);
    expect(customRubricMetric({ key: 'g', prompt: { en: { ...prompt, instruction: 'Compare {{answer}} with {{ground_truth}}' } }, output: 'binary' }).needs).toEqual(['ground_truth']);
  });

  it('rejects an invalid configuration', () => {
    expect(() => rubric('categorical')).toThrow(/categories/);
    expect(() => rubric('categorical', { categories: [{ value: 'a', score: 1 }, { value: 'a', score: 0 }] })).toThrow(/unique/);
    expect(() => rubric('categorical', { categories: [{ value: 'a', score: 2 }] })).toThrow();
    expect(() => customRubricMetric({ key: 'x', prompt: {}, output: 'binary' })).toThrow(/at least one language/);
  });
});

describe('composite metrics', () => {
  const exact = getMetric('exact_match')!;
  const lev = getMetric('non_llm_string_similarity')!;

  it('is the weighted mean of its components, weights normalised by their sum', async () => {
    const it1 = item({ answer: 'abcd', ground_truth: 'abce' }); // exact 0, Levenshtein 0.75
    const c = compositeMetric({ key: 'mix', components: [{ metric: exact, weight: 1 }, { metric: lev, weight: 3 }] });
    const result = await score(c, it1, judgeFor(fake));
    expect(result).toMatchObject({ status: 'ok', value: (1 * 0 + 3 * 0.75) / 4 });
    expect(result.trace.computation).toContain('composite = (1×0.0000 + 3×0.7500) / 4 = 0.5625');
    expect(c.kind).toBe('non_llm');
  });

  it('has no value when a component has none (skipped propagates), and does not run the rest', async () => {
    routeSteps(fake, { statements: () => ({ statements: [] }), rubric_verdict: () => ({ reason: 'r', value: 1 }) });
    const c = compositeMetric({ key: 'grounded', components: [{ metric: faithfulnessMetric, weight: 0.6 }, { metric: rubric('binary'), weight: 0.4 }] });
    const it1 = item({ question: 'q', answer: 'a', retrieved_contexts: ['c'] });
    const result = await c.score(it1, { judge: judgeFor(fake), prompts: defaultPrompts(c, 'en') });
    expect(result).toMatchObject({ status: 'skipped', value: null, reason: 'faithfulness.no_statements' });
    expect(fake.counts().chat).toBe(1);
    expect(result.trace.steps.map((s) => s.step)).toEqual(['faithfulness.statements']);
  });

  it('has no value when a component errors (error propagates)', async () => {
    fake.onChat(() => 'garbage');
    const c = compositeMetric({ key: 'c', components: [{ metric: exact, weight: 1 }, { metric: rubric('binary'), weight: 1 }] });
    const result = await c.score(item({ answer: 'a', ground_truth: 'a' }), { judge: judgeFor(fake), prompts: defaultPrompts(c, 'en') });
    expect(result).toMatchObject({ status: 'error', value: null, reason: 'r_binary.unparseable' });
    expect(result.trace.steps[0]).toMatchObject({ step: 'r_binary.rubric', raw: 'garbage' });
  });

  it('prefixes step names with the component key, for prompts and traces, and unions the needs', async () => {
    const c = compositeMetric({ key: 'c', components: [{ metric: faithfulnessMetric, weight: 1 }, { metric: exact, weight: 1 }] });
    expect(c.steps.map((s) => s.step)).toEqual(['faithfulness.statements', 'faithfulness.nli']);
    expect(c.needs).toEqual(['retrieved_contexts', 'ground_truth']);
    expect(c.kind).toBe('llm');
    routeSteps(fake, {
      statements: () => ({ statements: ['s1', 's2'] }),
      nli_verdicts: () => ({ statements: [{ statement: 's1', reason: 'r', verdict: 1 }, { statement: 's2', reason: 'r', verdict: 1 }] }),
    });
    const result = await c.score(item({ question: 'q', answer: 'x', ground_truth: 'x', retrieved_contexts: ['ctx'] }), { judge: judgeFor(fake), prompts: defaultPrompts(c, 'zh') });
    expect(result).toMatchObject({ status: 'ok', value: 1 });
    expect(result.trace.steps.map((s) => s.step)).toEqual(['faithfulness.statements', 'faithfulness.nli']);
    expect(systemText(chatBodies(fake)[0]!)).toContain('事实陈述');
  });

  it('rejects bad weights and duplicate components', () => {
    expect(() => compositeMetric({ key: 'c', components: [{ metric: exact, weight: -1 }] })).toThrow();
    expect(() => compositeMetric({ key: 'c', components: [{ metric: exact, weight: 0 }] })).toThrow();
    expect(() => compositeMetric({ key: 'c', components: [{ metric: exact, weight: 1 }, { metric: exact, weight: 1 }] })).toThrow();
  });
});

describe('conciseness (the chapter’s word-count rule)', () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

  it('counts words like Python len(answer.split())', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('  a b\t\tc\nd  ')).toBe(4);
    expect(countWords('张伟是教研部的工程师，他最近在负责课程研发。')).toBe(1);
    expect(countWords('a\u3000b')).toBe(2);
  });

  it.each([[0, 1], [50, 1], [51, 0.8], [100, 0.8], [101, 0.6], [200, 0.6], [201, 0.4]])('%s words → %s', async (n, expected) => {
    expect(concisenessScore(n)).toBe(expected);
    const result = await score(EXAMPLE_METRICS['conciseness']!, item({ answer: words(n) }), judgeFor(fake));
    expect(result).toMatchObject({ status: 'ok', value: expected });
  });

  it('is a non-LLM metric', () => {
    expect(EXAMPLE_METRICS['conciseness']).toMatchObject({ kind: 'non_llm', steps: [], needs: [] });
  });
});

describe('customer_service_quality example', () => {
  it('scores 0..1 from the judge with the Chinese rubric for zh', async () => {
    routeSteps(fake, { rubric_verdict: () => ({ reason: '没有给出后续处理。', value: 0.3 }) });
    const result = await score(EXAMPLE_METRICS['customer_service_quality']!, item({ question: '订单延迟了怎么办？', answer: '请耐心等待。' }), judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'ok', value: 0.3 });
    expect(systemText(chatBodies(fake)[0]!)).toContain('用户问题：订单延迟了怎么办？');
  });
});
