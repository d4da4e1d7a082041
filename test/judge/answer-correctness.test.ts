// answer_correctness through the real judge client against the fake server: the course's
// 张伟 example, Ragas's call count, the Chinese default prompts, and failures that must never
// become a 0.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { answerCorrectnessMetric, createAnswerCorrectness } from '../../server/judge/metrics/index.ts';
import { cosine } from '../../server/metrics/index.ts';
import { reply, startFakeOpenAI } from '../fake-openai/server.ts';
import type { FakeOpenAI } from '../fake-openai/server.ts';
import { chatBodies, item, judgeFor, routeSteps, score, scriptEmbeddings, systemText, TEST_KEY } from './helpers.ts';

let fake: FakeOpenAI;
beforeAll(async () => { fake = await startFakeOpenAI({ apiKey: TEST_KEY }); });
afterAll(async () => { await fake.close(); });
beforeEach(() => { fake.reset(); });

const ANSWER = '张伟是教研部负责大模型课程的同事。';
const TRUTH = '张伟是教研部负责大数据方向的同事。';
const course = item({ question: '张伟是哪个部门的？', answer: ANSWER, ground_truth: TRUTH });

const classification = {
  TP: [{ statement: '张伟是教研部的', reason: '标准答案同样说明张伟属于教研部。' }],
  FP: [{ statement: '张伟负责大模型课程', reason: '标准答案说的是大数据方向。' }],
  FN: [{ statement: '张伟负责大数据方向', reason: '回答没有提到大数据方向。' }],
};

function scriptCourse(): void {
  routeSteps(fake, {
    statements: (input) => (input['text'] === ANSWER
      ? { statements: ['张伟是教研部的', '张伟负责大模型课程'] }
      : { statements: ['张伟是教研部的', '张伟负责大数据方向'] }),
    correctness_classification: () => classification,
  });
  // cos([3,4], [4,3]) = 24/25 = 0.96 exactly.
  scriptEmbeddings(fake, { [ANSWER]: [3, 4], [TRUTH]: [4, 3] });
}

describe('answer_correctness on the course example', () => {
  it('TP=1, FP=1, FN=1 gives factuality 0.5 and score 0.75·0.5 + 0.25·s exactly', async () => {
    scriptCourse();
    const s = cosine([3, 4], [4, 3])!;
    const result = await score(answerCorrectnessMetric, course, judgeFor(fake), 'zh');
    expect(result.status).toBe('ok');
    expect(result.value).toBe(0.75 * 0.5 + 0.25 * s);
    expect(result.trace.values).toMatchObject({
      factuality: 0.5,
      similarity: s,
      answer_statements: ['张伟是教研部的', '张伟负责大模型课程'],
      ground_truth_statements: ['张伟是教研部的', '张伟负责大数据方向'],
      TP: classification.TP, FP: classification.FP, FN: classification.FN,
    });
    expect(result.trace.computation).toBe('F1(TP=1, FP=1, FN=1)=0.5000; 0.75×0.5000 + 0.25×0.9600 = 0.6150');
  });

  it('makes exactly 3 chat calls and 1 embeddings request, as Ragas does 3 chat calls', async () => {
    scriptCourse();
    await score(answerCorrectnessMetric, course, judgeFor(fake), 'zh');
    expect(fake.counts()).toMatchObject({ chat: 3, embeddings: 1 });
  });

  it('keeps every call in the trace in order: answer statements, ground-truth statements, classification', async () => {
    scriptCourse();
    const result = await score(answerCorrectnessMetric, course, judgeFor(fake), 'zh');
    expect(result.trace.steps.map((s) => s.step)).toEqual(['statements', 'statements', 'classify']);
    expect(result.trace.steps[0]!.messages[1]!.content).toContain(ANSWER);
    expect(result.trace.steps[1]!.messages[1]!.content).toContain(TRUTH);
    expect(result.trace.steps[2]!.parsed).toEqual(classification);
    expect(result.trace.steps.every((s) => s.prompt_version === null && s.raw !== null && s.error === undefined)).toBe(true);
  });

  it('uses the Chinese default prompts for language zh and the English ones for en', async () => {
    scriptCourse();
    await score(answerCorrectnessMetric, course, judgeFor(fake), 'zh');
    const zh = chatBodies(fake).map(systemText);
    expect(zh[0]).toContain('事实陈述');
    expect(zh[2]).toContain('标准答案');
    fake.reset();
    scriptCourse();
    await score(answerCorrectnessMetric, course, judgeFor(fake), 'en');
    const en = chatBodies(fake).map(systemText);
    expect(en[0]).toContain('self-contained factual statements');
    expect(en[0]).not.toContain('事实陈述');
  });

  it('works in json_object mode too (schema in the system prompt)', async () => {
    scriptCourse();
    const result = await score(answerCorrectnessMetric, course, judgeFor(fake, { structuredOutput: 'json_object' }), 'zh');
    expect(result).toMatchObject({ status: 'ok', value: 0.75 * 0.5 + 0.25 * 0.96 });
  });

  it('with a similarity weight of 0 embeds nothing and scores factuality alone', async () => {
    scriptCourse();
    const result = await score(createAnswerCorrectness({ weights: [1, 0] }), course, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'ok', value: 0.5 });
    expect(fake.counts()).toMatchObject({ chat: 3, embeddings: 0 });
  });
});

describe('answer_correctness failures', () => {
  it('a reply that stays malformed after the repair attempt is an error with the raw reply kept, never 0', async () => {
    fake.onChat(() => 'this is not JSON');
    scriptEmbeddings(fake, { [ANSWER]: [3, 4], [TRUTH]: [4, 3] });
    const result = await score(answerCorrectnessMetric, course, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'error', value: null, reason: 'unparseable' });
    expect(result.trace.steps[0]).toMatchObject({ step: 'statements', raw: 'this is not JSON', parsed: null });
    expect(result.trace.steps[0]!.error).toMatch(/^unparseable: /);
  });

  it('a classification that breaks the schema is an error (reason schema) with the raw reply kept', async () => {
    routeSteps(fake, {
      statements: () => ({ statements: ['张伟是教研部的'] }),
      correctness_classification: () => ({ TP: 'everything' }),
    });
    scriptEmbeddings(fake, { [ANSWER]: [3, 4], [TRUTH]: [4, 3] });
    const result = await score(answerCorrectnessMetric, course, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'error', value: null, reason: 'schema' });
    expect(result.trace.steps[2]!.raw).toBe('{"TP":"everything"}');
  });

  it('no statements from either text is skipped (no_statements) without classifying or embedding', async () => {
    routeSteps(fake, { statements: () => ({ statements: [] }) });
    const result = await score(answerCorrectnessMetric, course, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'skipped', value: null, reason: 'no_statements' });
    expect(fake.counts()).toMatchObject({ chat: 2, embeddings: 0 });
  });

  it('an embeddings failure is an error with the endpoint error kind', async () => {
    scriptCourse();
    fake.onEmbeddings(() => reply.error(400, { message: 'bad input' }));
    const result = await score(answerCorrectnessMetric, course, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'error', value: null, reason: 'http' });
    expect(String(result.trace.values?.['embedding_error'])).toContain('http');
  });

  it('an item without ground truth is skipped before any call', async () => {
    const result = await score(answerCorrectnessMetric, { ...course, ground_truth: '  ' }, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'skipped', value: null, reason: 'no_ground_truth' });
    expect(fake.counts().total).toBe(0);
  });

  it('a run without a prompt for a step is an error (missing_prompt)', async () => {
    const result = await answerCorrectnessMetric.score(course, { judge: judgeFor(fake), prompts: {} });
    expect(result).toMatchObject({ status: 'error', value: null, reason: 'missing_prompt' });
    expect(fake.counts().chat).toBe(0);
  });
});
