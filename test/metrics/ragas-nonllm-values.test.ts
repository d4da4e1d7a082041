// Ragas-named non-LLM metrics against the values Ragas 0.4.3 itself gave on the same inputs
// (test/fixtures/ragas-0.4.3/nonllm-values.jsonl, copied from the measured reference data: 240 text
// pairs × 5 metrics and 60 context-list pairs × 2). Every row must agree within 1e-9; where Ragas
// returned NaN or raised, goldset has no score.

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  bleuScore, exactMatch, levenshteinSimilarity, nonLlmContextPrecision, nonLlmContextRecall, rougeScore, stringPresence,
} from '../../server/metrics/index.ts';
import { BUILTIN_METRICS } from '../../server/judge/metrics/index.ts';
import type { Judge, ScoringItem } from '../../server/judge/types.ts';

interface Recorded {
  id: string; kind: string; metric: string; column: string;
  inputs: { response?: string; reference?: string; retrieved_contexts?: string[]; reference_contexts?: string[] };
  ragas_value: number | null | { error: string };
}

const rows: Recorded[] = fs.readFileSync(new URL('../fixtures/ragas-0.4.3/nonllm-values.jsonl', import.meta.url), 'utf8')
  .trim().split('\n').map((l) => JSON.parse(l) as Recorded);

/** The value Ragas gave, or null for NaN and for an exception (an evaluate() table shows NaN for both). */
function expected(r: Recorded): number | null {
  return typeof r.ragas_value === 'number' ? r.ragas_value : null;
}

function pure(r: Recorded): number | null {
  const { response = '', reference = '', retrieved_contexts = [], reference_contexts = [] } = r.inputs;
  switch (r.metric) {
    case 'bleu_score': return bleuScore(response, reference);
    case 'rouge_score': return rougeScore(response, reference).fmeasure;
    case 'non_llm_string_similarity': return levenshteinSimilarity(response, reference);
    case 'string_present': return stringPresence(response, reference);
    case 'exact_match': return exactMatch(response, reference);
    case 'non_llm_context_precision_with_reference': return nonLlmContextPrecision(retrieved_contexts, reference_contexts).value;
    case 'non_llm_context_recall': return nonLlmContextRecall(retrieved_contexts, reference_contexts).value;
    default: throw new Error(`unknown metric ${r.metric}`);
  }
}

function agrees(got: number | null, want: number | null): boolean {
  return want === null ? got === null : got !== null && Math.abs(got - want) <= 1e-9;
}

const noJudge: Judge = { chatJson: () => Promise.reject(new Error('no judge')), embed: () => Promise.reject(new Error('no judge')) };

describe('Ragas 0.4.3 non-LLM values', () => {
  it('has the 1,320 recorded rows', () => {
    expect(rows).toHaveLength(1320);
    expect(new Set(rows.map((r) => r.metric)).size).toBe(7);
  });

  it('every Ragas-named metric function gives Ragas value on every row (within 1e-9, no score where Ragas gave NaN or raised)', () => {
    const wrong = rows.filter((r) => !agrees(pure(r), expected(r))).map((r) => `${r.id} ${r.metric}: ${pure(r)} vs ${JSON.stringify(r.ragas_value)}`);
    expect(wrong).toEqual([]);
  });

  it('the goldset metric of each Ragas name scores every row as Ragas did, except items without a ground truth', async () => {
    const wrong: string[] = [];
    let blankTruth = 0;
    for (const r of rows) {
      const metric = BUILTIN_METRICS[r.metric]!;
      expect(metric.ragas_column).toBe(r.column);
      const { response = '', reference = '', retrieved_contexts = [], reference_contexts = [] } = r.inputs;
      const item: ScoringItem = { question: 'q', answer: response, ground_truth: reference, retrieved_contexts, reference_contexts };
      const result = await metric.score(item, { judge: noJudge, prompts: {} });
      // goldset keeps no ground truth as '' (not written yet) and does not score such an item; Ragas
      // scores the empty or blank string (e.g. string_present 1 for reference '').
      if (metric.needs.includes('ground_truth') && reference.trim() === '') {
        expect(result).toMatchObject({ status: 'skipped', reason: 'no_ground_truth' });
        blankTruth++;
        continue;
      }
      if (!agrees(result.value, expected(r))) wrong.push(`${r.id} ${r.metric}: ${result.value} vs ${JSON.stringify(r.ragas_value)}`);
    }
    expect(wrong).toEqual([]);
    expect(blankTruth).toBe(15);
  });

  it('shows the quirks measured: BLEU can exceed 1 by rounding, Chinese ROUGE is 0, all-relevant precision is 0.9999999999', () => {
    expect(rows.some((r) => r.metric === 'bleu_score' && (expected(r) ?? 0) > 1)).toBe(true);
    expect(rows.filter((r) => r.metric === 'rouge_score' && r.kind === 'zh_nospace').every((r) => expected(r) === 0)).toBe(true);
    expect(nonLlmContextPrecision(['abc'], ['abc']).value).toBe(0.9999999999);
  });
});
