// faithfulness, context precision (with and without reference) and context recall through the real
// judge client against the fake server: the course's third row, Ragas's call counts, skips and errors.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  contextPrecisionMetric, contextPrecisionWithoutReferenceMetric, contextRecallMetric, faithfulnessMetric,
} from '../../server/judge/metrics/index.ts';
import { startFakeOpenAI } from '../fake-openai/server.ts';
import type { FakeOpenAI } from '../fake-openai/server.ts';
import { chatBodies, item, judgeFor, routeSteps, score, systemText, TEST_KEY } from './helpers.ts';

let fake: FakeOpenAI;
beforeAll(async () => { fake = await startFakeOpenAI({ apiKey: TEST_KEY }); });
afterAll(async () => { await fake.close(); });
beforeEach(() => { fake.reset(); });

// The course's third row: correct answer, an irrelevant context ranked above the relevant one.
const row3 = item({
  question: '张伟是哪个部门的？',
  answer: '张伟是教研部的',
  ground_truth: '张伟是教研部的成员',
  retrieved_contexts: ['牛顿发现了万有引力', '张伟 教研部工程师，他最近在负责课程研发'],
});

describe('context_precision', () => {
  it('verdicts [0, 1] give 0.5 (the course’s third row), one call per context in rank order', async () => {
    routeSteps(fake, {
      context_verification: (input) => (String(input['context']).includes('牛顿')
        ? { reason: '与张伟无关。', verdict: 0 }
        : { reason: '写明张伟在教研部。', verdict: 1 }),
    });
    const result = await score(contextPrecisionMetric, row3, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'ok', value: 0.5 });
    expect(fake.counts().chat).toBe(2);
    expect(result.trace.steps.map((s) => (s.parsed as { verdict: number }).verdict)).toEqual([0, 1]);
    expect(result.trace.values?.['verdicts']).toEqual([0, 1]);
    expect(result.trace.computation).toBe('verdicts [0, 1] → Σ precision@k·v_k / Σ v_k = (P@2=0.5000) / 1 = 0.5000');
  });

  it('makes as many calls as there are retrieved contexts', async () => {
    routeSteps(fake, { context_verification: () => ({ reason: 'useful', verdict: 1 }) });
    const result = await score(contextPrecisionMetric, { ...row3, retrieved_contexts: ['a', 'b', 'c', 'd', 'e'] }, judgeFor(fake), 'en');
    expect(result).toMatchObject({ status: 'ok', value: 1 });
    expect(fake.counts().chat).toBe(5);
  });

  it('judges against the ground truth with reference, and against the answer without', async () => {
    routeSteps(fake, { context_verification: () => ({ reason: 'r', verdict: 1 }) });
    await score(contextPrecisionMetric, { ...row3, answer: 'ANSWER', ground_truth: 'TRUTH' }, judgeFor(fake), 'zh');
    await score(contextPrecisionWithoutReferenceMetric, { ...row3, answer: 'ANSWER', ground_truth: 'TRUTH' }, judgeFor(fake), 'zh');
    const users = chatBodies(fake).map((b) => String(b.messages.at(-1)?.content));
    expect(users.slice(0, 2).every((u) => u.includes('TRUTH') && !u.includes('ANSWER'))).toBe(true);
    expect(users.slice(2).every((u) => u.includes('ANSWER') && !u.includes('TRUTH'))).toBe(true);
    expect(systemText(chatBodies(fake)[0]!)).toContain('参考资料');
  });

  it('no useful context gives 0, a real score', async () => {
    routeSteps(fake, { context_verification: () => ({ reason: 'no', verdict: 0 }) });
    expect(await score(contextPrecisionMetric, row3, judgeFor(fake), 'zh')).toMatchObject({ status: 'ok', value: 0 });
  });

  it('no retrieved contexts is skipped without a call', async () => {
    const result = await score(contextPrecisionMetric, { ...row3, retrieved_contexts: [] }, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'skipped', value: null, reason: 'no_retrieved_contexts' });
    expect(fake.counts().chat).toBe(0);
  });

  it('one malformed verdict makes the item an error that keeps the raw reply', async () => {
    fake.onChat((body) => (String(body.messages.find((m) => m.role === 'user')?.content).includes('牛顿') ? 'verdict: maybe' : { reason: 'ok', verdict: 1 }));
    const result = await score(contextPrecisionMetric, row3, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'error', value: null, reason: 'unparseable' });
    expect(result.trace.steps[0]).toMatchObject({ raw: 'verdict: maybe', parsed: null });
    expect(result.trace.steps[1]!.parsed).toEqual({ reason: 'ok', verdict: 1 });
  });
});

describe('context_recall', () => {
  it('1 of 1 ground-truth statement attributed gives 1 (the course’s third row) in one call', async () => {
    routeSteps(fake, {
      context_attribution: (input) => {
        expect(input['context']).toBe('牛顿发现了万有引力\n张伟 教研部工程师，他最近在负责课程研发');
        expect(input['reference']).toBe('张伟是教研部的成员');
        return { classifications: [{ statement: '张伟是教研部的成员', reason: '资料写明张伟是教研部工程师。', attributed: 1 }] };
      },
    });
    const result = await score(contextRecallMetric, row3, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'ok', value: 1 });
    expect(fake.counts().chat).toBe(1);
    expect(result.trace.computation).toBe('1 of 1 ground-truth statement attributed to the contexts → 1/1 = 1.0000');
  });

  it('counts attributed statements: 1 of 2 gives 0.5', async () => {
    routeSteps(fake, {
      context_attribution: () => ({ classifications: [
        { statement: '张伟是教研部的成员', reason: '有', attributed: 1 },
        { statement: '张伟负责大数据方向', reason: '没有', attributed: 0 },
      ] }),
    });
    expect(await score(contextRecallMetric, row3, judgeFor(fake), 'zh')).toMatchObject({ status: 'ok', value: 0.5 });
  });

  it('no statements in the reply is skipped (no_statements), never 0', async () => {
    routeSteps(fake, { context_attribution: () => ({ classifications: [] }) });
    expect(await score(contextRecallMetric, row3, judgeFor(fake), 'zh')).toMatchObject({ status: 'skipped', value: null, reason: 'no_statements' });
  });

  it('nothing retrieved is a recall of 0 without a call', async () => {
    const result = await score(contextRecallMetric, { ...row3, retrieved_contexts: [] }, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'ok', value: 0 });
    expect(fake.counts().chat).toBe(0);
  });
});

describe('faithfulness', () => {
  const answer = '张伟是教研部负责大模型课程的同事。';

  it('statements then NLI verdicts: 1 of 2 supported gives 0.5 in exactly 2 calls', async () => {
    routeSteps(fake, {
      statements: () => ({ statements: ['张伟是教研部的', '张伟负责大模型课程'] }),
      nli_verdicts: (input) => {
        expect(input['statements']).toEqual(['张伟是教研部的', '张伟负责大模型课程']);
        return { statements: [
          { statement: '张伟是教研部的', reason: '资料写明。', verdict: 1 },
          { statement: '张伟负责大模型课程', reason: '资料只说课程研发。', verdict: 0 },
        ] };
      },
    });
    const result = await score(faithfulnessMetric, { ...row3, answer }, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'ok', value: 0.5 });
    expect(fake.counts().chat).toBe(2);
    expect(result.trace.steps.map((s) => s.step)).toEqual(['statements', 'nli']);
    expect(result.trace.computation).toBe('1 of 2 statements supported by the contexts → 1/2 = 0.5000');
    expect(systemText(chatBodies(fake)[1]!)).toContain('参考资料');
  });

  it('an answer without statements is skipped (no_statements) after one call', async () => {
    routeSteps(fake, { statements: () => ({ statements: [] }) });
    const result = await score(faithfulnessMetric, { ...row3, answer: '抱歉，我无法回答。' }, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'skipped', value: null, reason: 'no_statements' });
    expect(fake.counts().chat).toBe(1);
  });

  it('an NLI reply with a verdict outside 0/1 that stays wrong is an error (schema)', async () => {
    routeSteps(fake, {
      statements: () => ({ statements: ['张伟是教研部的'] }),
      nli_verdicts: () => ({ statements: [{ statement: '张伟是教研部的', reason: '?', verdict: 2 }] }),
    });
    const result = await score(faithfulnessMetric, { ...row3, answer }, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'error', value: null, reason: 'schema' });
    expect(result.trace.steps[1]!.raw).toContain('"verdict":2');
    expect(fake.counts().chat).toBe(3); // statements + NLI + one repair attempt
  });

  it('an item without retrieved contexts is skipped', async () => {
    expect(await score(faithfulnessMetric, { ...row3, retrieved_contexts: [] }, judgeFor(fake), 'zh'))
      .toMatchObject({ status: 'skipped', reason: 'no_retrieved_contexts' });
  });
});
