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
  bleuScore,
  bleuZh,
  exactMatch,
  levenshteinDistance,
  levenshteinSimilarity,
  nonLlmContextPrecision,
  nonLlmContextRecall,
  rougeLZh,
  rougeScore,
  sacreBleu,
  stringPresence,
} from './text-metrics.ts';
export type { BleuOptions, RougeFigures, StringSimilarity } from './text-metrics.ts';

export { tokenize13a, tokenizeBleuZh, tokenizeRougeScore, tokenizeRougeZh } from './tokenize.ts';
export { porterStem } from './porter.ts';

export { composite } from './composite.ts';
export type { CompositeComponent } from './composite.ts';
