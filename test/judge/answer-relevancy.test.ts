// answer_relevancy through the real judge client against the fake server: three question
// generations (Ragas's strictness 3), one embeddings request, and the noncommittal rule.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { answerRelevancyMetric, createAnswerRelevancy } from '../../server/judge/metrics/index.ts';
import { startFakeOpenAI } from '../fake-openai/server.ts';
import type { FakeOpenAI } from '../fake-openai/server.ts';
import { chatBodies, item, judgeFor, routeSteps, score, scriptEmbeddings, stepInput, systemText, TEST_KEY } from './helpers.ts';

let fake: FakeOpenAI;
beforeAll(async () => { fake = await startFakeOpenAI({ apiKey: TEST_KEY }); });
afterAll(async () => { await fake.close(); });
beforeEach(() => { fake.reset(); });

const it1 = item({ question: '张伟是哪个部门的？', answer: '张伟是教研部的工程师。' });

function script(noncommittal: [number, number, number] = [0, 0, 0]): void {
  routeSteps(fake, {
    question_generation: (input) => {
      const v = Number(input['variant']);
      return { question: `Q${v}`, noncommittal: noncommittal[v - 1] };
    },
  });
  // cosines with the question: Q1 → 1, Q2 → 0, Q3 → 1/√2.
  scriptEmbeddings(fake, { '张伟是哪个部门的？': [1, 0], Q1: [2, 0], Q2: [0, 3], Q3: [1, 1] });
}

describe('answer_relevancy', () => {
  it('is the mean cosine of the question with 3 generated questions, from 3 chat calls and 1 embeddings request', async () => {
    script();
    const result = await score(answerRelevancyMetric, it1, judgeFor(fake), 'zh');
    expect(result.status).toBe('ok');
    expect(result.value).toBeCloseTo((1 + 0 + Math.SQRT1_2) / 3, 12);
    expect(fake.counts()).toMatchObject({ chat: 3, embeddings: 1 });
    expect(result.trace.steps.map((s) => s.step)).toEqual(['questions', 'questions', 'questions']);
  });

  it('asks three distinct requests (variants 1–3), so a temperature-0 judge and the cache give three generations', async () => {
    script();
    await score(answerRelevancyMetric, it1, judgeFor(fake), 'zh');
    const bodies = chatBodies(fake);
    expect(bodies.map((b) => stepInput(b)['variant']).sort()).toEqual([1, 2, 3]);
    expect(new Set(bodies.map((b) => JSON.stringify(b.messages))).size).toBe(3);
    expect(systemText(bodies[0]!)).toContain('回避');
  });

  it("one noncommittal generation zeroes the score under the 'any' rule of Ragas ≤0.3", async () => {
    script([0, 1, 0]);
    const result = await score(createAnswerRelevancy({ rule: 'any' }), it1, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'ok', value: 0 });
    expect(result.trace.computation).toContain("noncommittal [0, 1, 0] (rule 'any') → 0");
  });

  it("under the default 'all' rule of Ragas 0.4 only an all-noncommittal set zeroes the score", async () => {
    script([0, 1, 0]);
    expect((await score(answerRelevancyMetric, it1, judgeFor(fake), 'zh')).value).toBeCloseTo((1 + 0 + Math.SQRT1_2) / 3, 12);
    fake.reset();
    script([1, 1, 1]);
    expect(await score(answerRelevancyMetric, it1, judgeFor(fake), 'zh')).toMatchObject({ status: 'ok', value: 0 });
  });

  it('an empty generated question is embedded with the others, as in Ragas 0.4; all empty is no score (Ragas: NaN)', async () => {
    routeSteps(fake, { question_generation: (input) => ({ question: Number(input['variant']) === 2 ? '' : `Q${String(input['variant'])}`, noncommittal: 0 }) });
    scriptEmbeddings(fake, { '张伟是哪个部门的？': [1, 0], Q1: [2, 0], '': [0, 3], Q3: [1, 1] });
    const some = await score(answerRelevancyMetric, it1, judgeFor(fake), 'zh');
    expect(some.value).toBeCloseTo((1 + 0 + Math.SQRT1_2) / 3, 12);
    fake.reset();
    routeSteps(fake, { question_generation: () => ({ question: '', noncommittal: 0 }) });
    const result = await score(answerRelevancyMetric, it1, judgeFor(fake), 'zh');
    expect(result).toMatchObject({ status: 'skipped', value: null, reason: 'no_generated_questions' });
    expect(fake.counts().embeddings).toBe(0);
  });

  it('a zero embedding is an error, not a score', async () => {
    script();
    scriptEmbeddings(fake, { '张伟是哪个部门的？': [0, 0], Q1: [2, 0], Q2: [0, 3], Q3: [1, 1] });
    expect(await score(answerRelevancyMetric, it1, judgeFor(fake), 'zh')).toMatchObject({ status: 'error', value: null, reason: 'zero_vector' });
  });
});
