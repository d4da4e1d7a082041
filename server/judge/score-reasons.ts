// Why a score has no value: the codes the runner and the metrics give (a score's `reason` when its
// status is `error` or `skipped`), worded in the user's language by `scoreReason` (catalogue keys
// `reason.<code>`). A scored item's `reason` is something else: a custom rubric metric's judge
// explains its value there, in its own words.
import type { T } from '../i18n/index.ts';
import type { LlmErrorKind } from '../llm/errors.ts';
import type { UnscoredReason } from '../metrics/score.ts';
import type { MetricDefinition } from './types.ts';

type ScoreReasonCode =
  | UnscoredReason
  | LlmErrorKind
  | `no_${MetricDefinition['needs'][number]}`
  | 'empty_classification' | 'empty_verdicts' | 'embedding_invalid' | 'missing_prompt' | 'internal' | 'response_deleted' | 'over_limit';

// One entry per code: a code added to any of the types above fails to compile until it is listed here
// (and, through the catalogue's keys, worded in both languages).
const LISTED: Record<ScoreReasonCode, true> = {
  no_statements: true, no_contexts: true, no_reference_contexts: true, no_generated_questions: true, zero_vector: true,
  missing_similarity: true, component_missing: true,
  unparseable: true, schema: true, http: true, timeout: true, auth: true, model_not_found: true, unreachable: true,
  no_ground_truth: true, no_retrieved_contexts: true,
  empty_classification: true, empty_verdicts: true, embedding_invalid: true, missing_prompt: true, internal: true, response_deleted: true, over_limit: true,
};

/** Every code, for `scoreReason` and the test that finds the codes the code writes (test/unit/score-reasons.test.ts). */
export const SCORE_REASON_CODES: ReadonlySet<string> = new Set(Object.keys(LISTED));

/** The reason in words for an unscored item, or null when there is none to word (a scored item's, an unknown code). */
export function scoreReason(t: T, status: string, reason: string | null): string | null {
  if (status === 'ok' || reason === null || !SCORE_REASON_CODES.has(reason)) return null;
  return t(`reason.${reason as ScoreReasonCode}`);
}
