// Non-LLM metrics. The ones named as Ragas's give Ragas 0.4.3's value on the same strings
// (test/metrics/ragas-nonllm-values.test.ts holds them to the values measured with Ragas):
// exact_match, string_present, non_llm_string_similarity, bleu_score, rouge_score (column
// rouge_score(mode=fmeasure)), non_llm_context_precision_with_reference, non_llm_context_recall.
// Where Ragas raises or returns NaN the item is not scored. Ragas's BLEU and ROUGE are useless on
// unspaced Chinese (one token per sentence; every Chinese character dropped), so goldset adds
// Chinese-aware variants under their own names, bleu_zh and rouge_l_zh (character n-grams for
// Chinese), suggested for zh datasets. No judge calls; the arithmetic is server/metrics.

import {
  bleuScore, bleuZh, exactMatch, levenshteinDistance, levenshteinSimilarity, nonLlmContextPrecision, nonLlmContextRecall, rougeLZh,
  rougeScore, stringPresence,
} from '../../metrics/index.ts';
import type { MetricDefinition, ScoreResult } from '../types.ts';
import { defineMetric, f4 } from './pipeline.ts';
import type { Pipeline } from './pipeline.ts';
import { said } from '../computation.ts';

function answerMetric(key: string, column: string | null, run: (answer: string, truth: string, p: Pipeline) => ScoreResult): MetricDefinition {
  return defineMetric({
    key,
    ...(column !== null ? { ragas_column: column } : {}),
    kind: 'non_llm',
    needs: ['ground_truth'],
    uses_embeddings: false,
    steps: [],
    run: async (item, p) => run(item.answer, item.ground_truth, p),
  });
}

export const exactMatchMetric = answerMetric('exact_match', 'exact_match', (a, t, p) => {
  const v = exactMatch(a, t);
  return p.ok(v, said(v === 1 ? 'comp.exact_identical' : 'comp.exact_differs', { value: v }));
});

export const stringPresentMetric = answerMetric('string_present', 'string_present', (a, t, p) => {
  const v = stringPresence(a, t);
  return p.ok(v, said(v === 1 ? 'comp.present_occurs' : 'comp.present_absent', { value: v }));
});

export const stringSimilarityMetric = answerMetric('non_llm_string_similarity', 'non_llm_string_similarity', (a, t, p) => {
  const v = levenshteinSimilarity(a, t);
  const d = levenshteinDistance(a, t);
  const longest = Math.max(Array.from(a).length, Array.from(t).length);
  p.values['distance'] = d;
  p.values['longest'] = longest;
  return p.ok(v, longest === 0 ? said('comp.similarity_both_empty') : said('comp.similarity', { distance: d, longest, value: f4(v) }));
});

export const bleuScoreMetric = answerMetric('bleu_score', 'bleu_score', (a, t, p) => {
  const v = bleuScore(a, t);
  const sentences = a.split('. ').length;
  p.values['reference_sentences'] = t.split('. ').length;
  return p.ok(v, sentences > 1 ? said('comp.bleu_first_of', { sentences, value: f4(v) }) : said('comp.bleu_first', { value: f4(v) }));
});

export const rougeScoreMetric = answerMetric('rouge_score', 'rouge_score(mode=fmeasure)', (a, t, p) => {
  const { precision, recall, fmeasure } = rougeScore(a, t);
  return p.ok(fmeasure, said('comp.rouge', { precision: f4(precision), recall: f4(recall), value: f4(fmeasure) }));
});

export const bleuZhMetric = answerMetric('bleu_zh', null, (a, t, p) => {
  const v = bleuZh(a, t);
  return p.ok(v, said('comp.bleu_zh', { value: f4(v) }));
});

export const rougeLZhMetric = answerMetric('rouge_l_zh', null, (a, t, p) => {
  const v = rougeLZh(a, t);
  return p.ok(v, said('comp.rouge_zh', { value: f4(v) }));
});

function best(text: string, candidates: readonly string[]): number {
  return Math.max(...candidates.map((c) => levenshteinSimilarity(text, c)));
}

const NO_REFERENCE = said('comp.no_reference');

export const nonLlmContextPrecisionMetric = defineMetric({
  key: 'non_llm_context_precision_with_reference',
  ragas_column: 'non_llm_context_precision_with_reference',
  kind: 'non_llm',
  needs: [],
  // No reference contexts: no score (Ragas raises), unless nothing was retrieved either (0, as Ragas).
  scoresOnlyWith: ['reference_contexts'],
  uses_embeddings: false,
  steps: [],
  async run(item, p) {
    const score = nonLlmContextPrecision(item.retrieved_contexts, item.reference_contexts);
    if (score.value === null) return p.skipped(score.reason, NO_REFERENCE);
    if (item.retrieved_contexts.length === 0) return p.ok(score.value, said('comp.no_context_zero'));
    const similarities = item.retrieved_contexts.map((c) => best(c, item.reference_contexts));
    const verdicts = similarities.map((s) => (s >= 0.5 ? 1 : 0));
    p.values['best_similarity'] = similarities;
    p.values['verdicts'] = verdicts;
    const relevant = verdicts.reduce<number>((s, v) => s + v, 0);
    return p.ok(score.value, said('comp.nonllm_precision', { verdicts: verdicts.join(', '), relevant, value: score.value }));
  },
});

export const nonLlmContextRecallMetric = defineMetric({
  key: 'non_llm_context_recall',
  ragas_column: 'non_llm_context_recall',
  kind: 'non_llm',
  needs: [],
  scoresOnlyWith: ['reference_contexts', 'retrieved_contexts'],
  uses_embeddings: false,
  steps: [],
  async run(item, p) {
    const score = nonLlmContextRecall(item.retrieved_contexts, item.reference_contexts);
    if (score.value === null) {
      return p.skipped(score.reason, score.reason === 'no_contexts' ? said('comp.no_context_raises') : NO_REFERENCE);
    }
    const similarities = item.reference_contexts.map((r) => best(r, item.retrieved_contexts));
    const found = similarities.filter((s) => s > 0.5).length;
    p.values['best_similarity'] = similarities;
    return p.ok(score.value, said('comp.nonllm_recall', { found, total: similarities.length, value: f4(score.value) }));
  },
});
