// Arithmetic that turns LLM-judge verdicts into Ragas scores (answer correctness,
// faithfulness, context precision/recall, answer relevancy). Given the same verdicts
// these agree with Ragas 0.2–0.4; where Ragas would yield NaN (or an epsilon-driven 0
// for "nothing to score") we return null with a reason instead. Pure, no I/O.

import { scored, unscored } from './score.ts';
import type { Score } from './score.ts';

/** A binary judge verdict: 1/true = supported / relevant / attributed / non-committal. */
export type Verdict = 0 | 1 | boolean;

/** Statement counts from Ragas's correctness classifier (lengths of its TP/FP/FN lists). */
export interface StatementCounts {
  readonly tp: number;
  readonly fp: number;
  readonly fn: number;
}

/**
 * Which non-committal flags zero the answer relevancy score.
 * - 'all' (default): Ragas 0.4 (since PR #2327, merged 2025-09-29; ResponseRelevancy and the
 *   collections AnswerRelevancy alike) — `all_noncommittal = np.all(noncommittal)`: zero only when
 *   every generation is non-committal.
 * - 'any': Ragas 0.1/0.2 and 0.3 releases before PR #2327 — `committal = np.any(noncommittal)`,
 *   score × (not committal): one non-committal generation zeroes the score.
 */
export type NoncommittalRule = 'any' | 'all';

function assertCount(n: number, what: string): void {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`${what} must be a non-negative integer (got ${n})`);
}

function toBit(v: Verdict): 0 | 1 {
  return v === true || v === 1 ? 1 : 0;
}

/**
 * Ragas's fbeta_score over statement counts: P = tp/(tp+fp), R = tp/(tp+fn), each 0 when its
 * denominator is 0; F = (1+β²)·P·R / (β²·P + R), 0 when P and R are both 0. For β = 1 this equals
 * the older Ragas (and course) formula tp / (tp + 0.5·(fp+fn)) when tp > 0, else 0.
 */
export function fbeta(tp: number, fp: number, fn: number, beta = 1): number {
  assertCount(tp, 'tp');
  assertCount(fp, 'fp');
  assertCount(fn, 'fn');
  if (!Number.isFinite(beta) || beta < 0) throw new RangeError(`beta must be a finite number >= 0 (got ${beta})`);
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  if (precision === 0 && recall === 0) return 0;
  const b2 = beta * beta;
  return ((1 + b2) * precision * recall) / (b2 * precision + recall);
}

/**
 * Answer correctness = weighted mean of factuality (F-beta of the statement counts) and semantic
 * similarity, weights normalised by their sum (Ragas: np.average([f, s], weights)).
 * `weights` = [factuality, similarity], default [0.75, 0.25]; with a similarity weight of 0 the
 * similarity is not needed and may be null.
 *
 * Deviation: tp = fp = fn = 0 gives null 'no_statements'. Ragas returns factuality 1.0 when both
 * statement lists were empty but 0 when the classifier returned nothing, and the counts alone
 * cannot tell those apart.
 */
export function answerCorrectness(
  counts: StatementCounts,
  similarity: number | null,
  weights: readonly [number, number] = [0.75, 0.25],
  beta = 1,
): Score {
  const [wFact, wSim] = weights;
  if (weights.length !== 2 || !weights.every((w) => Number.isFinite(w) && w >= 0)) {
    throw new RangeError('weights must be two finite, non-negative numbers [factuality, similarity]');
  }
  if (wFact === 0 && wSim === 0) throw new RangeError('at least one weight must be non-zero');
  const factuality = fbeta(counts.tp, counts.fp, counts.fn, beta);
  if (counts.tp + counts.fp + counts.fn === 0) return unscored('no_statements');
  if (wSim === 0) return scored(factuality);
  if (similarity === null || !Number.isFinite(similarity)) return unscored('missing_similarity');
  return scored((wFact * factuality + wSim * similarity) / (wFact + wSim));
}

/** Faithfulness = supported statements / all statements of the response (Ragas: NaN when none). */
export function faithfulness(verdicts: readonly Verdict[]): Score {
  return shareOfOnes(verdicts);
}

/** Context recall = reference statements attributable to the contexts / all reference statements. */
export function contextRecall(attributed: readonly Verdict[]): Score {
  return shareOfOnes(attributed);
}

function shareOfOnes(verdicts: readonly Verdict[]): Score {
  if (verdicts.length === 0) return unscored('no_statements');
  let ones = 0;
  for (const v of verdicts) ones += toBit(v);
  return scored(ones / verdicts.length);
}

/**
 * Context precision (average precision over the ranked contexts):
 * Σ_k (precision@k · v_k) / Σ_k v_k, and 0 when no context is relevant.
 *
 * Ragas divides by (Σ v_k + 1e-10), so it prints 0.9999999999 where we return 1; we omit the
 * epsilon and special-case the zero denominator instead. The two differ by less than 1e-10
 * (the score is at most 1 and the denominator at least 1 whenever it is non-zero).
 * Deviation: an empty ranking is null 'no_contexts' (Ragas: 0 via the epsilon).
 */
export function contextPrecision(verdicts: readonly Verdict[]): Score {
  if (verdicts.length === 0) return unscored('no_contexts');
  let relevantSoFar = 0;
  let numerator = 0;
  verdicts.forEach((v, i) => {
    const bit = toBit(v);
    relevantSoFar += bit;
    numerator += (relevantSoFar / (i + 1)) * bit;
  });
  return scored(relevantSoFar === 0 ? 0 : numerator / relevantSoFar);
}

/**
 * Cosine similarity of two equal-length vectors; null when either has zero norm (numpy gives NaN).
 * Throws on a length mismatch or non-finite component: those are caller bugs.
 */
export function cosine(a: readonly number[], b: readonly number[]): number | null {
  if (a.length !== b.length) throw new RangeError(`vectors must have equal lengths (got ${a.length} and ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new RangeError(`vector component ${i} is not finite`);
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return null;
  // Same normalisation as Ragas: dot / (‖a‖·‖b‖).
  return dot / (Math.sqrt(na) * Math.sqrt(nb));
}

export interface AnswerRelevancyOptions {
  readonly rule?: NoncommittalRule;
}

/**
 * Answer (response) relevancy = mean cosine similarity between the question's embedding and the
 * embedding of each question the judge generated from the response, multiplied by 0 when the
 * non-committal rule fires (see NoncommittalRule; default 'all', Ragas 0.4's rule).
 * The value can be negative, since cosine similarity ranges over [-1, 1].
 *
 * Ragas yields NaN when every generated question is the empty string and otherwise embeds them all,
 * empty ones included; callers do the same. `noncommittal[i]` belongs to `generatedEmbeddings[i]`.
 * When the rule fires the value is 0 without looking at the embeddings.
 */
export function answerRelevancy(
  questionEmbedding: readonly number[],
  generatedEmbeddings: readonly (readonly number[])[],
  noncommittal: readonly Verdict[],
  options: AnswerRelevancyOptions = {},
): Score {
  if (generatedEmbeddings.length !== noncommittal.length) {
    throw new RangeError(
      `generatedEmbeddings and noncommittal must have equal lengths (got ${generatedEmbeddings.length} and ${noncommittal.length})`,
    );
  }
  if (generatedEmbeddings.length === 0) return unscored('no_generated_questions');
  const rule = options.rule ?? 'all';
  const flags = noncommittal.map(toBit);
  const fires = rule === 'any' ? flags.includes(1) : flags.every((f) => f === 1);
  if (fires) return scored(0);
  let sum = 0;
  for (const embedding of generatedEmbeddings) {
    const c = cosine(embedding, questionEmbedding);
    if (c === null) return unscored('zero_vector');
    sum += c;
  }
  return scored(sum / generatedEmbeddings.length);
}
