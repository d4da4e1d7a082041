// The metric catalogue: Ragas-compatible LLM metrics, non-LLM metrics, and the builders for custom
// rubric and composite metrics. Each is a MetricDefinition (server/judge/types.ts).
//
// LLM calls per item (goldset vs Ragas for the same metric):
//   answer_correctness        3 chat + 1 embeddings request   (Ragas: 3 chat + 2 embedding requests)
//   faithfulness              2 chat                          (Ragas: 2)
//   context_precision[_without_reference]  1 chat per retrieved context (Ragas: the same)
//   context_recall            1 chat                          (Ragas: 1)
//   answer_relevancy          3 chat + 1 embeddings request   (Ragas 0.4: 3 chat + 2 embedding requests;
//                                                               0.2/0.3 with ChatOpenAI: 1 request with n = 3)
//   non-LLM metrics           none
// Every built-in metric names the column Ragas writes it in (ragas_column), except goldset's own
// Chinese-aware bleu_zh and rouge_l_zh.

import type { Language, MetricDefinition, PromptInUse } from '../types.ts';
import { answerCorrectnessMetric } from './answer-correctness.ts';
import { answerRelevancyMetric } from './answer-relevancy.ts';
import { contextPrecisionMetric, contextPrecisionWithoutReferenceMetric } from './context-precision.ts';
import { contextRecallMetric } from './context-recall.ts';
import { faithfulnessMetric } from './faithfulness.ts';
import {
  bleuScoreMetric, bleuZhMetric, exactMatchMetric, nonLlmContextPrecisionMetric, nonLlmContextRecallMetric, rougeLZhMetric, rougeScoreMetric,
  stringPresentMetric, stringSimilarityMetric,
} from './non-llm.ts';
import { defaultPrompts as defaultPromptsOf } from './pipeline.ts';

// Null prototype: a lookup such as BUILTIN_METRICS['constructor'] finds nothing rather than Object's.
export const BUILTIN_METRICS: Record<string, MetricDefinition> = Object.assign(Object.create(null) as Record<string, MetricDefinition>, Object.fromEntries([
  answerCorrectnessMetric,
  faithfulnessMetric,
  contextPrecisionMetric,
  contextPrecisionWithoutReferenceMetric,
  contextRecallMetric,
  answerRelevancyMetric,
  exactMatchMetric,
  stringPresentMetric,
  stringSimilarityMetric,
  bleuScoreMetric,
  rougeScoreMetric,
  nonLlmContextPrecisionMetric,
  nonLlmContextRecallMetric,
  bleuZhMetric,
  rougeLZhMetric,
].map((m) => [m.key, m])));

/** goldset's own variants offered first for Chinese datasets, where Ragas's BLEU and ROUGE see no Chinese words. */
export const CHINESE_AWARE_METRICS: readonly string[] = ['bleu_zh', 'rouge_l_zh'];

export function getMetric(key: string): MetricDefinition | undefined {
  return Object.hasOwn(BUILTIN_METRICS, key) ? BUILTIN_METRICS[key] : undefined;
}

/** A metric's built-in prompts in one language, shaped as a run's `prompts` (version null). */
export function defaultPrompts(metric: MetricDefinition, language: Language): Record<string, PromptInUse> {
  return defaultPromptsOf(metric, language);
}

export { createAnswerCorrectness } from './answer-correctness.ts';
export type { AnswerCorrectnessOptions } from './answer-correctness.ts';
export { createAnswerRelevancy } from './answer-relevancy.ts';
export type { AnswerRelevancyMetricOptions } from './answer-relevancy.ts';
export { compositeMetric, customRubricMetric, CustomRubricConfigSchema, normaliseRubricValue } from './custom.ts';
export type { CompositeConfig, CustomRubricConfig, RubricCategory, RubricOutput } from './custom.ts';
export { concisenessScore, countWords, EXAMPLE_METRICS, EXAMPLE_RUBRIC_CONFIGS } from './examples.ts';
export { missingNeed } from './pipeline.ts';
export {
  answerCorrectnessMetric, answerRelevancyMetric, contextPrecisionMetric, contextPrecisionWithoutReferenceMetric, contextRecallMetric, faithfulnessMetric,
};
