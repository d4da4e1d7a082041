// Non-LLM metrics comparing a response with a reference string, following Ragas's
// ExactMatch, StringPresence, NonLLMStringSimilarity, BleuScore and RougeScore, plus
// the non-LLM context precision/recall built on string similarity. Pure, no I/O.

import { contextPrecision } from './ragas-math.ts';
import { scored, unscored } from './score.ts';
import type { Score } from './score.ts';
import { tokenizeBleu, tokenizeRouge } from './tokenize.ts';

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

export interface BleuOptions {
  /**
   * sacreBLEU effective_order: average only the n-gram orders the hypothesis has (sentence_bleu's
   * default). Off by default, as in corpus_bleu, which Ragas uses: a response shorter than 4
   * tokens then scores 0 even against an identical reference.
   */
  readonly effectiveOrder?: boolean;
}

/**
 * BLEU in [0, 1] for one response against one reference, equal to sacreBLEU
 * corpus_bleu([response], [[reference]]).score / 100 with its defaults: 4-gram clipped precisions,
 * brevity penalty, smooth_method 'exp' (each zero-match order gets 1/(2^k · total), k counting
 * such orders), no effective order, 0 when nothing matches at all. Tokens from tokenizeBleu.
 *
 * Ragas's BleuScore first splits both texts into sentences and scores them as parallel segments
 * (which fails when the sentence counts differ); we score the whole text as one segment.
 */
export function bleu(response: string, reference: string, options: BleuOptions = {}): number {
  const hyp = tokenizeBleu(response);
  const ref = tokenizeBleu(reference);
  const correct: number[] = [];
  const total: number[] = [];
  for (let n = 1; n <= MAX_ORDER; n++) {
    const hypCounts = ngramCounts(hyp, n);
    const refCounts = ngramCounts(ref, n);
    let matched = 0;
    for (const [gram, count] of hypCounts) matched += Math.min(count, refCounts.get(gram) ?? 0);
    correct.push(matched);
    total.push(Math.max(0, hyp.length - n + 1));
  }
  if (correct.every((c) => c === 0)) return 0;

  const brevity = hyp.length >= ref.length ? 1 : Math.exp(1 - ref.length / hyp.length);
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
  // exp(mean of logs) of equal 100s rounds to 100.00000000000004; clamp so identical texts give 1
  // (sacreBLEU itself returns the 4e-16 excess).
  return Math.min(1, (brevity * Math.exp(logSum / order)) / 100);
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

/**
 * ROUGE-L F1 (rouge_score 'rougeL' fmeasure, which Ragas's RougeScore returns by default):
 * LCS over tokenizeRouge tokens, P = LCS/|response|, R = LCS/|reference|, F = 2PR/(P+R).
 * 0 when either side has no tokens (rouge_score does the same, even for two empty strings).
 */
export function rougeL(response: string, reference: string): number {
  const hyp = tokenizeRouge(response);
  const ref = tokenizeRouge(reference);
  if (hyp.length === 0 || ref.length === 0) return 0;
  const lcs = lcsLength(hyp, ref);
  if (lcs === 0) return 0;
  const precision = lcs / hyp.length;
  const recall = lcs / ref.length;
  return (2 * precision * recall) / (precision + recall);
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
 * Ragas NonLLMContextPrecisionWithReference: a retrieved context is relevant when its best
 * similarity to any reference context is >= threshold; then the rank-weighted precision of
 * contextPrecision. Null when there is nothing to rank ('no_contexts', Ragas: 0) or nothing to
 * compare with ('no_reference_contexts', Ragas: error).
 */
export function nonLlmContextPrecision(
  retrieved: readonly string[],
  reference: readonly string[],
  threshold = 0.5,
  similarity: StringSimilarity = levenshteinSimilarity,
): Score {
  assertThreshold(threshold);
  if (retrieved.length === 0) return unscored('no_contexts');
  if (reference.length === 0) return unscored('no_reference_contexts');
  const verdicts = retrieved.map((rc) => bestMatch(rc, reference, similarity) >= threshold);
  return contextPrecision(verdicts);
}

/**
 * Ragas NonLLMContextRecall: share of reference contexts whose best similarity to any retrieved
 * context is strictly > threshold (Ragas uses > here but >= for precision). Null without reference
 * contexts (Ragas: NaN); 0 when nothing was retrieved, since every reference context is then
 * missed (Ragas raises on the empty max()).
 */
export function nonLlmContextRecall(
  retrieved: readonly string[],
  reference: readonly string[],
  threshold = 0.5,
  similarity: StringSimilarity = levenshteinSimilarity,
): Score {
  assertThreshold(threshold);
  if (reference.length === 0) return unscored('no_reference_contexts');
  if (retrieved.length === 0) return scored(0);
  let found = 0;
  for (const ref of reference) if (bestMatch(ref, retrieved, similarity) > threshold) found++;
  return scored(found / reference.length);
}
