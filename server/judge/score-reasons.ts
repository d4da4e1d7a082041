// Why a score has no value: the codes the runner and the metrics give (a score's `reason` when its
// status is `error` or `skipped`), worded in the user's language by `scoreReason`. A scored item's
// `reason` is something else: a custom rubric metric's judge explains its value there, in its own words.
import type { T } from '../i18n/index.ts';
import type { LlmErrorKind } from '../llm/errors.ts';
import type { UnscoredReason } from '../metrics/score.ts';
import type { MetricDefinition } from './types.ts';

export type ScoreReasonCode =
  | UnscoredReason
  | LlmErrorKind
  | `no_${MetricDefinition['needs'][number]}`
  | 'empty_classification' | 'empty_verdicts' | 'embedding_invalid' | 'missing_prompt' | 'internal' | 'response_deleted' | 'over_limit';

/** Every code, for `scoreReason` and the test that finds the codes the code gives (test/unit/score-reasons.test.ts). */
export const SCORE_REASON_CODES: ReadonlySet<string> = new Set<string>([
  'no_statements', 'no_contexts', 'no_reference_contexts', 'no_generated_questions', 'zero_vector', 'missing_similarity', 'component_missing',
  'unparseable', 'schema', 'http', 'timeout', 'auth', 'model_not_found', 'unreachable',
  'no_ground_truth', 'no_retrieved_contexts',
  'empty_classification', 'empty_verdicts', 'embedding_invalid', 'missing_prompt', 'internal', 'response_deleted', 'over_limit',
] satisfies ScoreReasonCode[]);

/** The reason in words for an unscored item, or null when there is none to word (a scored item's, an unknown code). */
export function scoreReason(t: T, status: string, reason: string | null): string | null {
  if (status === 'ok' || reason === null || !SCORE_REASON_CODES.has(reason)) return null;
  return t(`reason.${reason as ScoreReasonCode}`);
}
