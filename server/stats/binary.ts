// Judge-vs-expert agreement on pass/fail: the judge passes an item when its score is
// >= threshold, the expert label is true for pass, and "pass" is the positive class.
// Covers the confusion matrix and its rates, Cohen's kappa, ROC AUC, the kappa-maximising
// threshold and the EvalGen alignment figures of Shankar et al. (2024), "Who Validates
// the Validators?".

import { assertFinite, assertSameLength } from './basic.ts';

export interface Confusion {
  /** judge pass, expert pass */
  tp: number;
  /** judge pass, expert fail */
  fp: number;
  /** judge fail, expert fail */
  tn: number;
  /** judge fail, expert pass */
  fn: number;
}

function checkScored(scores: ArrayLike<number>, labels: ArrayLike<boolean>): void {
  assertSameLength(scores, labels, 'scores and labels');
  assertFinite(scores, 'scores');
}

export function confusionAt(scores: ArrayLike<number>, labels: ArrayLike<boolean>, threshold: number): Confusion {
  checkScored(scores, labels);
  const c: Confusion = { tp: 0, fp: 0, tn: 0, fn: 0 };
  for (let i = 0; i < scores.length; i++) {
    const judgePass = scores[i]! >= threshold;
    if (labels[i]) {
      if (judgePass) c.tp++;
      else c.fn++;
    } else if (judgePass) c.fp++;
    else c.tn++;
  }
  return c;
}

/** Confusion from two boolean verdict lists (judge first, expert second). */
export function confusionFromVerdicts(judge: ArrayLike<boolean>, expert: ArrayLike<boolean>): Confusion {
  assertSameLength(judge, expert, 'judge and expert verdicts');
  const c: Confusion = { tp: 0, fp: 0, tn: 0, fn: 0 };
  for (let i = 0; i < judge.length; i++) {
    if (expert[i]) {
      if (judge[i]) c.tp++;
      else c.fn++;
    } else if (judge[i]) c.fp++;
    else c.tn++;
  }
  return c;
}

function ratio(num: number, den: number): number | null {
  return den === 0 ? null : num / den;
}

export function accuracy(c: Confusion): number | null {
  return ratio(c.tp + c.tn, c.tp + c.fp + c.tn + c.fn);
}

/** Null when the judge passes nothing. */
export function precision(c: Confusion): number | null {
  return ratio(c.tp, c.tp + c.fp);
}

/** Null when the expert passes nothing. */
export function recall(c: Confusion): number | null {
  return ratio(c.tp, c.tp + c.fn);
}

/**
 * F1 as 2TP / (2TP + FP + FN), which equals the harmonic mean of precision and recall when
 * both exist and is 0 (not undefined) when there are positives but no true positives.
 * Null only when neither side has any positive.
 */
export function f1(c: Confusion): number | null {
  return ratio(2 * c.tp, 2 * c.tp + c.fp + c.fn);
}

/**
 * Cohen's kappa between judge and expert verdicts. Null for n = 0 or when expected
 * agreement is 1, i.e. judge and expert both give one and the same verdict throughout.
 */
export function kappaFromConfusion(c: Confusion): number | null {
  const n = c.tp + c.fp + c.tn + c.fn;
  if (n === 0) return null;
  // Integer form: κ = (n·agree − Σ marginal products) / (n² − Σ marginal products).
  const chance = (c.tp + c.fp) * (c.tp + c.fn) + (c.tn + c.fn) * (c.tn + c.fp);
  const den = n * n - chance;
  if (den === 0) return null;
  return (n * (c.tp + c.tn) - chance) / den;
}

/**
 * ROC AUC as the Mann–Whitney probability that a random expert-pass item scores above a
 * random expert-fail item, ties counting one half; this equals the trapezoidal area under
 * the ROC curve with tied scores forming one diagonal segment. Computed from tie-averaged
 * ranks in O(n log n). Null unless both classes are present.
 */
export function rocAuc(scores: ArrayLike<number>, labels: ArrayLike<boolean>): number | null {
  checkScored(scores, labels);
  const n = scores.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((i, j) => scores[i]! - scores[j]!);
  let nPos = 0;
  let rankSumPos = 0;
  for (let i = 0; i < n; ) {
    const s = scores[order[i]!]!;
    let j = i + 1;
    while (j < n && scores[order[j]!] === s) j++;
    const avgRank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) {
      if (labels[order[k]!]) {
        nPos++;
        rankSumPos += avgRank;
      }
    }
    i = j;
  }
  const nNeg = n - nPos;
  if (nPos === 0 || nNeg === 0) return null;
  return (rankSumPos - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

export interface ThresholdChoice {
  threshold: number;
  kappa: number;
  confusion: Confusion;
}

/** Kappas (and distances to 0.5) closer than this are ties: equal quantities can differ in the last bit. */
const TIE_EPS = 1e-12;

/**
 * The threshold among the distinct observed scores that maximises Cohen's kappa between
 * judge (score >= threshold) and expert. Ties in kappa go to the threshold closest to 0.5,
 * the natural midpoint of a 0–1 judge score, and if two are equally close, to the lower
 * one (both comparisons allow 1e-12 of rounding, so 0.3 and 0.7 count as equally close).
 * Null for empty input or when the expert labels are all one class: kappa is then 0 or
 * undefined at every threshold, so no threshold is better than another.
 * One sort plus a linear sweep: O(n log n).
 */
export function bestThreshold(scores: ArrayLike<number>, labels: ArrayLike<boolean>): ThresholdChoice | null {
  checkScored(scores, labels);
  const n = scores.length;
  if (n === 0) return null;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((i, j) => scores[j]! - scores[i]!); // descending
  let totalPos = 0;
  for (let i = 0; i < n; i++) if (labels[i]) totalPos++;
  const totalNeg = n - totalPos;
  if (totalPos === 0 || totalNeg === 0) return null;

  let best: ThresholdChoice | null = null;
  let tp = 0;
  let fp = 0;
  // Sweep thresholds from the highest score down; after consuming a run of equal scores,
  // the judge passes exactly the items with score >= that value.
  for (let i = 0; i < n; ) {
    const t = scores[order[i]!]!;
    while (i < n && scores[order[i]!] === t) {
      if (labels[order[i]!]) tp++;
      else fp++;
      i++;
    }
    best = betterThreshold(best, t, { tp, fp, tn: totalNeg - fp, fn: totalPos - tp });
  }
  return best;
}

/**
 * One step of bestThreshold's sweep (from the highest score down): the better of `best` and
 * threshold t, at which the judge's verdicts give `confusion`.
 */
export function betterThreshold(best: ThresholdChoice | null, t: number, confusion: Confusion): ThresholdChoice | null {
  const kappa = kappaFromConfusion(confusion);
  if (kappa === null) return best;
  if (best === null || kappa > best.kappa + TIE_EPS || (kappa >= best.kappa - TIE_EPS && closerToHalf(t, best.threshold))) {
    return { threshold: t, kappa, confusion };
  }
  return best;
}

function closerToHalf(candidate: number, incumbent: number): boolean {
  const dc = Math.abs(candidate - 0.5);
  const di = Math.abs(incumbent - 0.5);
  if (Math.abs(dc - di) <= TIE_EPS) return candidate < incumbent;
  return dc < di;
}

export interface EvalGenAlignment {
  /** Share of expert-failed items the judge also fails: TN / (TN + FP). Null without expert fails. */
  coverage: number | null;
  /** Share of expert-passed items the judge fails: FN / (FN + TP). Null without expert passes. */
  false_failure_rate: number | null;
  /**
   * Harmonic mean of coverage and (1 − false failure rate); null when either is null.
   * When both are 0 it is 0, the limit of the harmonic mean, not a division by zero.
   */
  alignment: number | null;
}

/** EvalGen figures (Shankar et al. 2024), where the judge plays the role of the assertion set. */
export function evalGenAlignment(c: Confusion): EvalGenAlignment {
  const coverage = ratio(c.tn, c.tn + c.fp);
  const ffr = ratio(c.fn, c.fn + c.tp);
  let alignment: number | null = null;
  if (coverage !== null && ffr !== null) {
    const pass = 1 - ffr;
    alignment = coverage + pass === 0 ? 0 : (2 * coverage * pass) / (coverage + pass);
  }
  return { coverage, false_failure_rate: ffr, alignment };
}
