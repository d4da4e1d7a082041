// Non-LLM metrics: the answer against the ground truth (exact match, string presence, Levenshtein
// similarity, BLEU, ROUGE-L) and the retrieved against the reference contexts (non-LLM context
// precision with match ≥ 0.5, recall with match > 0.5, as Ragas). No judge calls; the arithmetic is
// server/metrics, and the trace shows the figures it used.

import {
  bleu, exactMatch, levenshteinDistance, levenshteinSimilarity, nonLlmContextPrecision, nonLlmContextRecall, rougeL, stringPresence,
} from '../../metrics/index.ts';
import type { MetricDefinition, ScoreResult } from '../types.ts';
import { describePrecision } from './context-precision.ts';
import { defineMetric, f4 } from './pipeline.ts';
import type { Pipeline } from './pipeline.ts';

function answerMetric(key: string, run: (answer: string, truth: string, p: Pipeline) => ScoreResult): MetricDefinition {
  return defineMetric({
    key,
    kind: 'non_llm',
    needs: ['ground_truth'],
    uses_embeddings: false,
    steps: [],
    run: async (item, p) => run(item.answer, item.ground_truth, p),
  });
}

export const exactMatchMetric = answerMetric('exact_match', (a, t, p) => {
  const v = exactMatch(a, t);
  return p.ok(v, `answer ${v === 1 ? 'is identical to' : 'differs from'} the ground truth → ${v}`);
});

export const stringPresenceMetric = answerMetric('string_presence', (a, t, p) => {
  const v = stringPresence(a, t);
  return p.ok(v, `the ground truth ${v === 1 ? 'occurs' : 'does not occur'} in the answer → ${v}`);
});

export const levenshteinSimilarityMetric = answerMetric('levenshtein_similarity', (a, t, p) => {
  const v = levenshteinSimilarity(a, t);
  const d = levenshteinDistance(a, t);
  const longest = Math.max(Array.from(a).length, Array.from(t).length);
  p.values['distance'] = d;
  p.values['longest'] = longest;
  return p.ok(v, longest === 0 ? 'both texts empty → 1' : `1 − distance / longest = 1 − ${d}/${longest} = ${f4(v)}`);
});

export const bleuMetric = answerMetric('bleu', (a, t, p) => {
  const v = bleu(a, t);
  return p.ok(v, `BLEU (4-gram, brevity penalty, exp smoothing; Chinese per character) = ${f4(v)}`);
});

export const rougeLMetric = answerMetric('rouge_l', (a, t, p) => {
  const v = rougeL(a, t);
  return p.ok(v, `ROUGE-L F1 (longest common subsequence of tokens) = ${f4(v)}`);
});

function best(text: string, candidates: readonly string[]): number {
  return Math.max(...candidates.map((c) => levenshteinSimilarity(text, c)));
}

export const nonLlmContextPrecisionMetric = defineMetric({
  key: 'non_llm_context_precision',
  kind: 'non_llm',
  needs: ['retrieved_contexts', 'reference_contexts'],
  uses_embeddings: false,
  steps: [],
  async run(item, p) {
    const similarities = item.retrieved_contexts.map((c) => best(c, item.reference_contexts));
    const verdicts = similarities.map((s) => (s >= 0.5 ? 1 : 0) as 0 | 1);
    p.values['best_similarity'] = similarities;
    p.values['verdicts'] = verdicts;
    const score = nonLlmContextPrecision(item.retrieved_contexts, item.reference_contexts);
    if (score.value === null) return p.skipped(score.reason, 'nothing to compare; not scored');
    return p.ok(score.value, `relevant = best Levenshtein similarity to a reference context ≥ 0.5; ${describePrecision(verdicts, score.value)}`);
  },
});

export const nonLlmContextRecallMetric = defineMetric({
  key: 'non_llm_context_recall',
  kind: 'non_llm',
  needs: ['reference_contexts'],
  uses_embeddings: false,
  steps: [],
  async run(item, p) {
    const score = nonLlmContextRecall(item.retrieved_contexts, item.reference_contexts);
    if (score.value === null) return p.skipped(score.reason, 'no reference contexts; not scored');
    if (item.retrieved_contexts.length === 0) return p.ok(score.value, 'no context was retrieved, so every reference context is missed → 0');
    const similarities = item.reference_contexts.map((r) => best(r, item.retrieved_contexts));
    const found = similarities.filter((s) => s > 0.5).length;
    p.values['best_similarity'] = similarities;
    return p.ok(score.value, `reference contexts found (best Levenshtein similarity > 0.5): ${found}/${similarities.length} = ${f4(score.value)}`);
  },
});
