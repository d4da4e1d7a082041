// The true score of one scope (a criterion, a run, one system or all): judge only, experts only and
// corrected (PPI++), λ, the effective number of labels, the labels planner and the state of the
// sample. Pure: takes the items the estimate is about and the sampled ones, returns figures.
//
// Who counts where:
//   population  every item the run scored (status ok, with a value) in the scope and the sample's
//               frame, minus the run's few-shot examples. The judge-only mean is over all of them.
//   labelled    the sampled items of the population that have a gold value (n): Y and Ŷ.
//   unlabelled  every other item of the population (N), sampled or not: Ŷᵤ. Gold values of items
//               outside the sample are never read, so hand-picked or adjudication-heavy items
//               cannot bias the estimate.
//   missing     sampled items in the scope without a usable pair, counted under the first reason
//               that applies: used_as_example, pending (no label yet), disputed (labels differ, no
//               adjudication), no_score (the judge failed, skipped it, or did not score it).

import { classicalMean, clusteredDifference, effectiveLabels, labelsNeeded, meanContributions, ppiContributions, ppiMean, covariance1n,
  predictionVariance, type Interval, type Linearised, type MeanEstimate, type PpiNote } from '../stats/ppi.ts';
import { scoreScaleOf } from '../calibration/report.ts';
import type { CriterionKind } from '../criteria/values.ts';

/** More than this share of the sample missing and the sample is no longer random: said in a warning. */
export const MISSING_WARNING_SHARE = 0.05;

/**
 * The items an estimate is about, as columns (one entry per item): response id, the dense index of
 * the question it answers (its cluster: answers to the same question are paired), and the judge's
 * prediction on the criterion's scale.
 */
export interface Population {
  ids: Float64Array;
  questions: Uint32Array;
  predictions: Float64Array;
  /** Distinct question indices are below this. */
  nQuestions: number;
}

export type SampledState = 'gold' | 'pending' | 'disputed';

export interface SampledItem { id: number; state: SampledState; gold: number | null }

export interface SampleCounts {
  drawn: number;
  completed: number;
  missing: number;
  pending: number;
  disputed: number;
  no_score: number;
  used_as_example: number;
}

export interface Figure { estimate: number | null; ci95: Interval | null; n: number }

export type EstimateNote = PpiNote | 'missing_over_5_percent' | 'constant_gold' | 'nothing_scored';

export interface ScopeEstimate {
  n_labelled: number;
  n_unlabelled: number;
  lambda: number | null;
  judge_only: Figure;
  gold_only: Figure;
  corrected: Figure;
  effective_labels: number | null;
  labels_needed: { half_width: number; corrected: number | null; gold_only: number | null };
  sample: SampleCounts;
  notes: EstimateNote[];
  /** For comparisons: each figure as per-item contributions tagged with the item's question. */
  linearised: { corrected: Linearised | null; judge: Linearised | null };
  /** Completed items (gold, prediction) for the bias diagnostics, in sample order. */
  completed: { id: number; gold: number; prediction: number }[];
}

const fig = (m: MeanEstimate): Figure => ({ estimate: m.estimate, ci95: m.ci95, n: m.n });

/** Builds the estimate of one scope; `exclude` are the run's few-shot examples (left out of the population by the caller too). */
export function estimateScope(input: {
  population: Population;
  sampled: readonly SampledItem[];
  exclude: ReadonlySet<number>;
  halfWidth: number;
}): ScopeEstimate {
  const { ids, questions, predictions } = input.population;
  const M = ids.length;
  // Where each sampled item sits in the population (a sampled item the run did not score is not there).
  const wanted = new Set(input.sampled.map((x) => x.id));
  const at = new Map<number, number>();
  for (let i = 0; i < M && at.size < wanted.size; i++) if (wanted.has(ids[i]!)) at.set(ids[i]!, i);
  const counts: SampleCounts = { drawn: input.sampled.length, completed: 0, missing: 0, pending: 0, disputed: 0, no_score: 0, used_as_example: 0 };
  const goldAt = new Float64Array(M);
  const isLabelled = new Uint8Array(M);
  const completed: ScopeEstimate['completed'] = [];
  for (const x of input.sampled) {
    const i = at.get(x.id);
    if (input.exclude.has(x.id)) counts.used_as_example++;
    else if (x.state === 'disputed') counts.disputed++;
    else if (x.state === 'pending' || x.gold === null) counts.pending++;
    else if (i === undefined) counts.no_score++;
    else {
      isLabelled[i] = 1;
      goldAt[i] = x.gold;
      counts.completed++;
      completed.push({ id: x.id, gold: x.gold, prediction: predictions[i]! });
      continue;
    }
    counts.missing++;
  }
  const n = counts.completed;
  const N = M - n;
  const y = new Float64Array(n), yhat = new Float64Array(n), yhatU = new Float64Array(N);
  // Clusters in the order of ppiContributions: unlabelled items first, then labelled ones.
  const clusters = new Uint32Array(M);
  for (let i = 0, l = 0, u = 0; i < M; i++) {
    if (isLabelled[i]) {
      y[l] = goldAt[i]!;
      yhat[l] = predictions[i]!;
      clusters[N + l++] = questions[i]!;
    } else {
      yhatU[u] = predictions[i]!;
      clusters[u++] = questions[i]!;
    }
  }
  const notes: EstimateNote[] = [];
  if (M === 0) notes.push('nothing_scored');
  const judge = classicalMean(predictions);
  const gold = classicalMean(y);
  const corrected = ppiMean(y, yhat, yhatU);
  notes.push(...corrected.notes);
  if (n > 1 && gold.notes.includes('constant_values')) notes.push('constant_gold');
  if (counts.drawn > 0 && counts.missing / counts.drawn > MISSING_WARNING_SHARE) notes.push('missing_over_5_percent');

  const plan = n >= 2 && M > 0
    ? labelsNeeded({ varY: covariance1n(y, y), varYhat: predictionVariance(yhat, yhatU), cov: covariance1n(y, yhat), population: M, halfWidth: input.halfWidth })
    : { corrected: null, gold_only: null };
  const nq = input.population.nQuestions;
  const linearCorrected: Linearised | null = corrected.estimate !== null && corrected.lambda !== null
    ? { estimate: corrected.estimate, psi: ppiContributions(y, yhat, yhatU, corrected.lambda), clusters, nClusters: nq }
    : null;
  const linearJudge: Linearised | null = judge.estimate !== null ? { estimate: judge.estimate, psi: meanContributions(predictions), clusters: questions, nClusters: nq } : null;
  return {
    n_labelled: n,
    n_unlabelled: N,
    lambda: corrected.lambda,
    judge_only: fig(judge),
    gold_only: fig(gold),
    corrected: fig(corrected),
    effective_labels: effectiveLabels(y, corrected),
    labels_needed: { half_width: input.halfWidth, ...plan },
    sample: counts,
    notes,
    linearised: { corrected: linearCorrected, judge: linearJudge },
    completed,
  };
}

export type Verdict = 'a_higher' | 'b_higher' | 'no_difference' | 'unknown';

export interface Comparison {
  corrected: Figure & { verdict: Verdict };
  judge_only: Figure & { verdict: Verdict };
  /** The judge alone and the corrected estimate reach different verdicts on the difference. */
  disagree: boolean;
}

function verdictOf(ci: Interval | null): Verdict {
  if (!ci) return 'unknown';
  if (ci[0] > 0) return 'a_higher';
  if (ci[1] < 0) return 'b_higher';
  return 'no_difference';
}

/**
 * A − B for two scopes (two systems, or one system before and after a change under a new name):
 * the difference of their corrected estimates and of the judge-only means, each with a 95 %
 * interval. Responses to the same question are paired (clusters, see stats/ppi.ts); the two
 * samples' draws are taken as independent of each other.
 */
export function compareScopes(a: ScopeEstimate, b: ScopeEstimate): Comparison {
  const diff = (x: Linearised | null, y: Linearised | null): Figure & { verdict: Verdict } => {
    if (!x || !y) return { estimate: null, ci95: null, n: 0, verdict: 'unknown' };
    const d = clusteredDifference(x, y);
    return { estimate: d.estimate, ci95: d.ci95, n: d.n, verdict: verdictOf(d.ci95) };
  };
  const corrected = diff(a.linearised.corrected, b.linearised.corrected);
  const judge = diff(a.linearised.judge, b.linearised.judge);
  return { corrected, judge_only: judge, disagree: corrected.verdict !== 'unknown' && judge.verdict !== 'unknown' && corrected.verdict !== judge.verdict };
}

export type PredictionError = 'categorical_criterion' | 'score_scale_differs';

/**
 * The judge's prediction on the criterion's own scale: the pass indicator at the threshold
 * (binary), the score (numeric), or the score mapped linearly onto the scale (ordinal: a 0..1 score
 * s becomes min + s·(max − min); scores already on the scale are kept, as the report reads them).
 */
export function predictionRule(kind: CriterionKind, threshold: number, scale: { min: number; max: number } | null, scores: ArrayLike<number>):
  ((score: number) => number) | { error: PredictionError } {
  if (kind === 'categorical') return { error: 'categorical_criterion' };
  if (kind === 'binary') return (s) => (s >= threshold ? 1 : 0);
  if (kind === 'numeric') return (s) => s;
  if (!scale) return { error: 'score_scale_differs' };
  const on = scoreScaleOf(scores, scale);
  if (on === 'criterion') return (s) => s;
  if (on === 'unit') return (s) => scale.min + s * (scale.max - scale.min);
  return { error: 'score_scale_differs' };
}

/** A gold value as a number on the criterion's scale; null when it is not one (then the item counts as pending). */
export function goldNumber(kind: CriterionKind, gold: string): number | null {
  if (kind === 'binary') return gold === '1' ? 1 : gold === '0' ? 0 : null;
  if (kind === 'categorical') return null;
  const v = Number(gold);
  return gold.trim() !== '' && Number.isFinite(v) ? v : null;
}
