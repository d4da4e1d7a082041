// Non-LLM metrics comparing a response with a reference string: Ragas's ExactMatch,
// StringPresence, NonLLMStringSimilarity, BleuScore and RougeScore with Ragas's values, goldset's
// Chinese-aware BLEU and ROUGE-L, and the non-LLM context precision/recall built on string
// similarity. Pure, no I/O.

import { scored, unscored } from './score.ts';
import type { Score } from './score.ts';
import { tokenize13a, tokenizeBleuZh, tokenizeRougeScore, tokenizeRougeZh } from './tokenize.ts';

/** 1 when the strings are identical (no normalisation, as in Ragas), else 0. */
export function exactMatch(response: string, reference: string): number {
  return response === reference ? 1 : 0;
}

/** 1 when the reference occurs in the response (Python `reference in response`; '' is in every string). */
export function stringPresence(response: string, reference: string): number {
  return response.includes(reference) ? 1 : 0;
}

/** Levenshtein edit distance over Unicode code points (not UTF-16 units, matching Python str). */
export function levenshteinDistance(a: string, b: string): number {
  let s = Array.from(a);
  let t = Array.from(b);
  if (s.length < t.length) [s, t] = [t, s];
  if (t.length === 0) return s.length;
  // Rolling single row over the shorter string.
  const row = new Uint32Array(t.length + 1);
  for (let j = 0; j <= t.length; j++) row[j] = j;
  for (let i = 1; i <= s.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    const si = s[i - 1];
    for (let j = 1; j <= t.length; j++) {
      const above = row[j]!;
      const cost = si === t[j - 1] ? 0 : 1;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return row[t.length]!;
}

/**
 * Ragas NonLLMStringSimilarity with its default Levenshtein measure:
 * 1 − distance / max(length), lengths in code points (rapidfuzz normalized_distance); 1 when both are empty.
 */
export function levenshteinSimilarity(response: string, reference: string): number {
  const longest = Math.max(Array.from(response).length, Array.from(reference).length);
  if (longest === 0) return 1;
  return 1 - levenshteinDistance(response, reference) / longest;
}

const MAX_ORDER = 4;

function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  // Tokens never contain whitespace, so a space-joined key is unambiguous.
  for (let i = 0; i + n <= tokens.length; i++) {
    const key = tokens.slice(i, i + n).join(' ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** sacreBLEU's floored log: log(0) becomes a huge negative number, so the score collapses to 0. */
function flooredLog(x: number): number {
  return x === 0 ? -9999999999 : Math.log(x);
}

/** sacreBLEU's reference length for the brevity penalty: the closest to the hypothesis, the shorter on a tie. */
function closestLength(hypLength: number, refLengths: readonly number[]): number {
  let closestDiff = -1;
  let closest = -1;
  for (const len of refLengths) {
    const diff = Math.abs(hypLength - len);
    if (closestDiff === -1 || diff < closestDiff) {
      closestDiff = diff;
      closest = len;
    } else if (diff === closestDiff && len < closest) closest = len;
  }
  return closest;
}

export interface BleuOptions {
  /**
   * sacreBLEU effective_order: average only the n-gram orders the hypothesis has (sentence_bleu's
   * default). Off by default, as in corpus_bleu, which Ragas uses: a response shorter than 4
   * tokens then scores 0 even against an identical reference.
   */
  readonly effectiveOrder?: boolean;
}

/**
 * BLEU in [0, 1] (up to rounding: equal precisions of 100 give 1.0000000000000004) of one
 * tokenised hypothesis against one or more tokenised references, equal to sacreBLEU
 * corpus_bleu([hyp], [[ref1], [ref2], …]).score / 100 with its defaults: 4-gram precisions with
 * counts clipped by the largest count in any reference, brevity penalty against the closest
 * reference length, smooth_method 'exp' (each zero-match order gets 1/(2^k · total), k counting
 * such orders), no effective order, 0 when nothing matches at all.
 */
export function sacreBleu(hyp: readonly string[], refs: readonly (readonly string[])[], options: BleuOptions = {}): number {
  const correct: number[] = [];
  const total: number[] = [];
  for (let n = 1; n <= MAX_ORDER; n++) {
    const hypCounts = ngramCounts(hyp, n);
    const refMax = new Map<string, number>();
    for (const ref of refs) for (const [gram, count] of ngramCounts(ref, n)) refMax.set(gram, Math.max(refMax.get(gram) ?? 0, count));
    let matched = 0;
    for (const [gram, count] of hypCounts) matched += Math.min(count, refMax.get(gram) ?? 0);
    correct.push(matched);
    total.push(Math.max(0, hyp.length - n + 1));
  }
  if (correct.every((c) => c === 0)) return 0;

  const refLength = closestLength(hyp.length, refs.map((r) => r.length));
  const brevity = hyp.length >= refLength ? 1 : Math.exp(1 - refLength / hyp.length);
  // Percent-scale precisions exactly as sacreBLEU computes them, so rounding matches.
  const precisions = [0, 0, 0, 0];
  let smooth = 1;
  let order = MAX_ORDER;
  for (let n = 1; n <= MAX_ORDER; n++) {
    const tot = total[n - 1]!;
    const cor = correct[n - 1]!;
    if (tot === 0) break;
    if (options.effectiveOrder) order = n;
    if (cor === 0) {
      smooth *= 2;
      precisions[n - 1] = 100 / (smooth * tot);
    } else {
      precisions[n - 1] = (100 * cor) / tot;
    }
  }
  let logSum = 0;
  for (let i = 0; i < order; i++) logSum += flooredLog(precisions[i]!);
  return (brevity * Math.exp(logSum / order)) / 100;
}

/**
 * Ragas's BleuScore (bleu_score): both texts are split on ". " and passed to sacreBLEU's
 * corpus_bleu as hypotheses and as one reference stream per reference sentence. sacreBLEU pairs
 * hypotheses with references segment by segment and the references form a single segment, so
 * only the first sentence of the response is scored, against every reference sentence as an
 * alternative reference. 13a tokens: an unspaced Chinese sentence is one token.
 */
export function bleuScore(response: string, reference: string): number {
  const hypothesis = response.split('. ')[0]!;
  return sacreBleu(tokenize13a(hypothesis), reference.split('. ').map(tokenize13a));
}

/**
 * goldset's Chinese-aware BLEU (bleu_zh): sacreBLEU with its 'zh' rules (every CJK character a
 * token, 13a for the rest) over the whole response against the whole ground truth, one segment;
 * clamped to 1 so identical texts give exactly 1.
 */
export function bleuZh(response: string, reference: string, options: BleuOptions = {}): number {
  return Math.min(1, sacreBleu(tokenizeBleuZh(response), [tokenizeBleuZh(reference)], options));
}

function lcsLength(a: readonly string[], b: readonly string[]): number {
  const [long, short] = a.length >= b.length ? [a, b] : [b, a];
  const row = new Uint32Array(short.length + 1);
  for (const token of long) {
    let diagonal = 0;
    for (let j = 1; j <= short.length; j++) {
      const above = row[j]!;
      row[j] = token === short[j - 1] ? diagonal + 1 : Math.max(above, row[j - 1]!);
      diagonal = above;
    }
  }
  return row[short.length]!;
}

export interface RougeFigures { precision: number; recall: number; fmeasure: number }

/**
 * rouge_score's ROUGE-L of token lists: P = LCS/|prediction|, R = LCS/|target|, F = 2PR/(P+R);
 * all 0 when either side has no tokens (even two empty strings) or nothing is in common.
 */
function rougeLFigures(prediction: readonly string[], target: readonly string[]): RougeFigures {
  if (prediction.length === 0 || target.length === 0) return { precision: 0, recall: 0, fmeasure: 0 };
  const lcs = lcsLength(prediction, target);
  const precision = lcs / prediction.length;
  const recall = lcs / target.length;
  return { precision, recall, fmeasure: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 };
}

/**
 * Ragas's RougeScore with its defaults (rouge_type 'rougeL'; the column rouge_score(mode=fmeasure)
 * is `.fmeasure`): rouge_score's scorer with use_stemmer=True, the reference as target and the
 * response as prediction. Chinese characters are dropped by its tokenizer: Chinese text scores 0.
 */
export function rougeScore(response: string, reference: string): RougeFigures {
  return rougeLFigures(tokenizeRougeScore(response), tokenizeRougeScore(reference));
}

/** goldset's Chinese-aware ROUGE-L F1 (rouge_l_zh): the same LCS figure over tokenizeRougeZh tokens. */
export function rougeLZh(response: string, reference: string): number {
  return rougeLFigures(tokenizeRougeZh(response), tokenizeRougeZh(reference)).fmeasure;
}

/** A string similarity in [0, 1]; Ragas's default for the non-LLM context metrics is Levenshtein. */
export type StringSimilarity = (a: string, b: string) => number;

function assertThreshold(threshold: number): void {
  if (!Number.isFinite(threshold)) throw new RangeError(`threshold must be finite (got ${threshold})`);
}

function bestMatch(text: string, candidates: readonly string[], similarity: StringSimilarity): number {
  let best = -Infinity;
  for (const c of candidates) best = Math.max(best, similarity(text, c));
  return best;
}

/**
 * Ragas's NonLLMContextPrecisionWithReference: a retrieved context is relevant when its best
 * similarity to any reference context is >= threshold; then Ragas's average precision
 * Σ_k (precision@k · v_k) / (Σ_k v_k + 1e-10), epsilon included (all relevant gives 0.9999999999).
 * Nothing retrieved gives 0, as in Ragas; retrieved contexts but no reference context is null
 * 'no_reference_contexts' (Ragas raises on the empty max()).
 */
export function nonLlmContextPrecision(
  retrieved: readonly string[],
  reference: readonly string[],
  threshold = 0.5,
  similarity: StringSimilarity = levenshteinSimilarity,
): Score {
  assertThreshold(threshold);
  if (retrieved.length > 0 && reference.length === 0) return unscored('no_reference_contexts');
  const verdicts = retrieved.map((rc) => (bestMatch(rc, reference, similarity) >= threshold ? 1 : 0));
  let relevant = 0;
  let numerator = 0;
  verdicts.forEach((v, i) => {
    relevant += v;
    numerator += (relevant / (i + 1)) * v;
  });
  return scored(numerator / (relevant + 1e-10));
}

/**
 * Ragas's NonLLMContextRecall: share of reference contexts whose best similarity to any retrieved
 * context is strictly > threshold (Ragas uses > here but >= for precision). Null without reference
 * contexts ('no_reference_contexts', Ragas: NaN) and without retrieved contexts ('no_contexts',
 * Ragas raises on the empty max()).
 */
export function nonLlmContextRecall(
  retrieved: readonly string[],
  reference: readonly string[],
  threshold = 0.5,
  similarity: StringSimilarity = levenshteinSimilarity,
): Score {
  assertThreshold(threshold);
  if (reference.length === 0) return unscored('no_reference_contexts');
  if (retrieved.length === 0) return unscored('no_contexts');
  let found = 0;
  for (const ref of reference) if (bestMatch(ref, retrieved, similarity) > threshold) found++;
  return scored(found / reference.length);
}
