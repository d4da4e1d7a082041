// The metric catalogue: built-in keys, default prompts in both languages with few-shot examples,
// and the non-LLM metrics agreeing with server/metrics.

import { describe, expect, it } from 'vitest';
import { BUILTIN_METRICS, defaultPrompts, EXAMPLE_METRICS, getMetric } from '../../server/judge/metrics/index.ts';
import {
  bleuScore, bleuZh, exactMatch, levenshteinSimilarity, nonLlmContextPrecision, nonLlmContextRecall, rougeLZh, rougeScore, stringPresence,
} from '../../server/metrics/index.ts';
import type { Judge } from '../../server/judge/types.ts';
import { item } from './helpers.ts';

const noJudge: Judge = {
  chatJson: () => Promise.reject(new Error('no judge')),
  embed: () => Promise.reject(new Error('no judge')),
};

describe('BUILTIN_METRICS', () => {
  it('lists the Ragas-compatible and non-LLM metrics by key', () => {
    expect(Object.keys(BUILTIN_METRICS).sort()).toEqual([
      'answer_correctness', 'answer_relevancy', 'bleu_score', 'bleu_zh', 'context_precision', 'context_precision_without_reference', 'context_recall',
      'exact_match', 'faithfulness', 'non_llm_context_precision_with_reference', 'non_llm_context_recall', 'non_llm_string_similarity',
      'rouge_l_zh', 'rouge_score', 'string_present',
    ]);
    for (const [key, m] of Object.entries(BUILTIN_METRICS)) expect(m.key).toBe(key);
    expect(getMetric('faithfulness')).toBe(BUILTIN_METRICS['faithfulness']);
    expect(getMetric('toString')).toBeUndefined();
    expect(BUILTIN_METRICS['constructor']).toBeUndefined();
  });

  it('gives every LLM step an English and a natural Chinese default with one or two examples', () => {
    const all = [...Object.values(BUILTIN_METRICS), ...Object.values(EXAMPLE_METRICS)];
    for (const m of all) {
      expect(m.kind === 'llm').toBe(m.steps.length > 0);
      for (const s of m.steps) {
        expect(s.defaults.en.language).toBe('en');
        expect(s.defaults.zh.language).toBe('zh');
        expect(s.defaults.zh.instruction).toMatch(/[\u4e00-\u9fff]{10}/);
        expect(s.defaults.en.instruction).not.toMatch(/[\u4e00-\u9fff]/);
        for (const l of ['en', 'zh'] as const) {
          expect(s.defaults[l].output_format).not.toBe('');
          expect(s.defaults[l].examples.length).toBeGreaterThanOrEqual(1);
          expect(s.defaults[l].examples.length).toBeLessThanOrEqual(2);
        }
      }
    }
  });

  it('defaultPrompts gives each step its default, version null', () => {
    const prompts = defaultPrompts(BUILTIN_METRICS['answer_correctness']!, 'zh');
    expect(Object.keys(prompts)).toEqual(['statements', 'classify']);
    expect(prompts['classify']).toMatchObject({ version: null, language: 'zh' });
  });

  it('declares needs and embeddings as the executor expects', () => {
    expect(BUILTIN_METRICS['answer_correctness']).toMatchObject({ needs: ['ground_truth'], uses_embeddings: true, kind: 'llm' });
    expect(BUILTIN_METRICS['answer_relevancy']).toMatchObject({ needs: [], uses_embeddings: true });
    expect(BUILTIN_METRICS['context_precision']!.needs).toEqual(['ground_truth', 'retrieved_contexts']);
    expect(BUILTIN_METRICS['context_precision_without_reference']!.needs).toEqual(['retrieved_contexts']);
    expect(BUILTIN_METRICS['non_llm_context_recall']).toMatchObject({ needs: [], kind: 'non_llm', steps: [] });
  });
});

describe('non-LLM metrics', () => {
  const answer = '张伟是教研部的工程师';
  const truth = '张伟是教研部的成员';
  const ctx = { judge: noJudge, prompts: {} };

  it.each([
    ['exact_match', exactMatch],
    ['string_present', stringPresence],
    ['non_llm_string_similarity', levenshteinSimilarity],
    ['bleu_score', bleuScore],
    ['rouge_score', (a: string, b: string) => rougeScore(a, b).fmeasure],
    ['bleu_zh', bleuZh],
    ['rouge_l_zh', rougeLZh],
  ] as const)('%s agrees with server/metrics on answer vs ground truth', async (key, fn) => {
    const result = await BUILTIN_METRICS[key]!.score(item({ answer, ground_truth: truth }), ctx);
    expect(result).toMatchObject({ status: 'ok', value: fn(answer, truth) });
    expect(result.trace.steps).toEqual([]);
  });

  it('answer-vs-ground-truth metrics skip an item without ground truth', async () => {
    expect(await BUILTIN_METRICS['exact_match']!.score(item({ answer }), ctx)).toMatchObject({ status: 'skipped', value: null, reason: 'no_ground_truth' });
  });

  it('non-LLM context precision and recall agree with server/metrics and skip where Ragas has no value', async () => {
    const it1 = item({ retrieved_contexts: ['牛顿发现了万有引力', '张伟 教研部工程师'], reference_contexts: ['张伟 教研部工程师，负责课程研发'] });
    expect(await BUILTIN_METRICS['non_llm_context_precision_with_reference']!.score(it1, ctx))
      .toMatchObject({ status: 'ok', value: nonLlmContextPrecision(it1.retrieved_contexts, it1.reference_contexts).value });
    expect(await BUILTIN_METRICS['non_llm_context_recall']!.score(it1, ctx))
      .toMatchObject({ status: 'ok', value: nonLlmContextRecall(it1.retrieved_contexts, it1.reference_contexts).value });
    expect(await BUILTIN_METRICS['non_llm_context_recall']!.score({ ...it1, reference_contexts: [] }, ctx))
      .toMatchObject({ status: 'skipped', reason: 'no_reference_contexts' });
    expect(await BUILTIN_METRICS['non_llm_context_recall']!.score({ ...it1, retrieved_contexts: [] }, ctx)).toMatchObject({ status: 'skipped', reason: 'no_contexts' });
    expect(await BUILTIN_METRICS['non_llm_context_precision_with_reference']!.score({ ...it1, retrieved_contexts: [] }, ctx)).toMatchObject({ status: 'ok', value: 0 });
  });
});

describe('few-shot examples in their step schema', () => {
  it('every built-in and example metric default example fits its step', async () => {
    const { validateExamples } = await import('../../server/judge/examples.ts');
    for (const m of [...Object.values(BUILTIN_METRICS), ...Object.values(EXAMPLE_METRICS)]) {
      for (const s of m.steps) for (const l of ['en', 'zh'] as const) expect(validateExamples(s, s.defaults[l].examples), `${m.key}.${s.step} ${l}`).toBeNull();
    }
  });
});
