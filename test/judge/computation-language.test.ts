// A score's computation in the reader's language: each metric says its lines as catalogue keys and
// values; the trace keeps them with their English text (unchanged, for exports and the API); a page
// says them in Chinese or English, and a trace stored as text only (before the lines) shows its text.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compositeMetric, faithfulnessMetric, getMetric } from '../../server/judge/metrics/index.ts';
import { computationIn, inEnglish } from '../../server/judge/computation.ts';
import { boundTrace } from '../../server/judge/stored-trace.ts';
import { translator } from '../../server/i18n/index.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { item, judgeFor, routeSteps, score, TEST_KEY } from './helpers.ts';

const en = translator('en');
const zh = translator('zh');
let fake: FakeOpenAI;
beforeAll(async () => { fake = await startFakeOpenAI({ apiKey: TEST_KEY }); });
afterAll(async () => { await fake.close(); });
beforeEach(() => { fake.reset(); });

describe('a computation in the reader\'s language', () => {
  it('says faithfulness\'s count in Chinese, and keeps the English text the trace always had', async () => {
    routeSteps(fake, {
      statements: () => ({ statements: ['张伟是教研部的', '张伟负责招聘'] }),
      nli_verdicts: () => ({ statements: [{ statement: '张伟是教研部的', reason: '资料写明', verdict: 1 }, { statement: '张伟负责招聘', reason: '资料未提及', verdict: 0 }] }),
    });
    const result = await score(faithfulnessMetric, item({ question: '张伟是哪个部门的？', answer: '张伟是教研部的，负责招聘。', retrieved_contexts: ['张伟 教研部工程师'] }), judgeFor(fake), 'zh');
    expect(result.trace.computation).toBe('1 of 2 statements supported by the contexts → 1/2 = 0.5000');
    expect(computationIn(result.trace, en)).toBe(result.trace.computation);
    expect(computationIn(result.trace, zh)).toBe('2 条陈述中有 1 条得到参考资料支持 → 1/2 = 0.5000');
    // Stored and read back (bounded as every stored trace is): the same.
    expect(computationIn(boundTrace(JSON.parse(JSON.stringify(result.trace))), zh)).toBe('2 条陈述中有 1 条得到参考资料支持 → 1/2 = 0.5000');
  });

  it('says an item skipped for a missing field in Chinese', async () => {
    const result = await score(getMetric('exact_match')!, item({ answer: 'a' }), judgeFor(fake));
    expect(result).toMatchObject({ status: 'skipped', reason: 'no_ground_truth' });
    expect(result.trace.computation).toBe('the item has no ground truth; not scored');
    expect(computationIn(result.trace, zh)).toBe('该条数据没有标准答案，不打分');
  });

  it('says a composite line by line, each component after its name, a weight-0 component too', async () => {
    const c = compositeMetric({ key: 'mix', components: [
      { metric: getMetric('exact_match')!, weight: 1 }, { metric: getMetric('non_llm_string_similarity')!, weight: 3 }, { metric: getMetric('string_present')!, weight: 0 },
    ] });
    const result = await score(c, item({ answer: 'abcd', ground_truth: 'abce' }), judgeFor(fake));
    expect(result.trace.computation.split('\n')).toEqual([
      'string_present: weight 0, not run',
      'exact_match: answer differs from the ground truth → 0',
      'non_llm_string_similarity: 1 − Levenshtein distance / longest = 1 − 1/4 = 0.7500',
      'composite = (1×0.0000 + 3×0.7500) / 4 = 0.5625',
    ]);
    expect(computationIn(result.trace, zh).split('\n')).toEqual([
      'string_present: 权重为 0，未运行',
      'exact_match: 回答与标准答案不同 → 0',
      'non_llm_string_similarity: 1 − 编辑距离 / 较长文本长度 = 1 − 1/4 = 0.7500',
      '组合分数 = (1×0.0000 + 3×0.7500) / 4 = 0.5625',
    ]);
  });

  it('shows a trace stored as text only, or with lines it cannot say, as its text', () => {
    const text = '0 of 1 statements supported → 0';
    expect(computationIn({ computation: text }, zh)).toBe(text);
    expect(computationIn({ computation: text, explained: [{ key: 'comp.no_such_line' as 'comp.f' }] }, zh)).toBe(text);
    // Only computation lines: a stored trace cannot make a page say any other message.
    expect(computationIn({ computation: text, explained: [{ key: 'nav.home' as 'comp.f' }] }, zh)).toBe(text);
    expect(computationIn({ computation: text, explained: 'comp.f' as never }, zh)).toBe(text);
  });

  it('keeps the English text equal to the lines said in English', () => {
    const lines = [{ key: 'comp.f' as const, params: { supported: 1, n: 1, value: '1.0000' } }];
    expect(inEnglish(lines)).toBe('1 of 1 statement supported by the contexts → 1/1 = 1.0000');
    expect(computationIn({ computation: inEnglish(lines), explained: lines }, zh)).toBe('1 条陈述中有 1 条得到参考资料支持 → 1/1 = 1.0000');
  });
});
