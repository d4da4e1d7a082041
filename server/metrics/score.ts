// The one result shape every metric in this folder returns when a value may be
// uncomputable: either a finite number, or null plus a reason code. Never 0 and
// never NaN for "could not score", so an unscored item cannot pass as a bad one.

/** Why a metric has no value. */
export type UnscoredReason =
  /** Faithfulness, context recall, answer correctness: the judge produced no statements to count. */
  | 'no_statements'
  /** Context precision: there are no retrieved contexts to rank. */
  | 'no_contexts'
  /** Non-LLM context precision/recall: there are no reference contexts to compare with. */
  | 'no_reference_contexts'
  /** Answer relevancy: no generated questions (hence no embeddings) to compare. */
  | 'no_generated_questions'
  /** Cosine similarity with an all-zero embedding is undefined. */
  | 'zero_vector'
  /** Answer correctness with a non-zero similarity weight but no similarity value. */
  | 'missing_similarity'
  /** Composite: a component with a non-zero weight has no value. */
  | 'component_missing';

export type Scored = { readonly value: number };
export type Unscored = { readonly value: null; readonly reason: UnscoredReason; readonly detail?: string };
export type Score = Scored | Unscored;

/** Wraps a computed value; throws on NaN/±Infinity because those mean a bug, not "unscored". */
export function scored(value: number): Scored {
  if (!Number.isFinite(value)) throw new RangeError(`metric value must be finite (got ${value})`);
  return { value };
}

export function unscored(reason: UnscoredReason, detail?: string): Unscored {
  return detail === undefined ? { value: null, reason } : { value: null, reason, detail };
}

export function isScored(score: Score): score is Scored {
  return score.value !== null;
}
