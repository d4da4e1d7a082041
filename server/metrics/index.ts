// Public API of the metric math: Ragas-compatible LLM-judge arithmetic, non-LLM text
// metrics and composites. Everything here is pure; judging and embedding happen elsewhere.

export { isScored, scored, unscored } from './score.ts';
export type { Score, Scored, Unscored, UnscoredReason } from './score.ts';

export {
  answerCorrectness,
  answerRelevancy,
  contextPrecision,
  contextRecall,
  cosine,
  faithfulness,
  fbeta,
} from './ragas-math.ts';
export type { AnswerRelevancyOptions, NoncommittalRule, StatementCounts, Verdict } from './ragas-math.ts';

export {
  bleu,
  exactMatch,
  levenshteinDistance,
  levenshteinSimilarity,
  nonLlmContextPrecision,
  nonLlmContextRecall,
  rougeL,
  stringPresence,
} from './text-metrics.ts';
export type { BleuOptions, StringSimilarity } from './text-metrics.ts';

export { tokenizeBleu, tokenizeRouge } from './tokenize.ts';

export { composite } from './composite.ts';
export type { CompositeComponent } from './composite.ts';
