// context_precision (with reference: judged against the ground truth) and
// context_precision_without_reference (judged against the answer), as Ragas computes them: one
// verification call per retrieved context, in rank order, verdict 0/1 ("was this context useful
// for arriving at the answer?") with a reason; then average precision
// Σ_k (precision@k · v_k) / Σ_k v_k, 0 when no context is useful. No contexts → skipped.
// Calls per item: one chat call per retrieved context (Ragas: the same).

import { z } from 'zod';
import { contextPrecision } from '../../metrics/index.ts';
import { VERIFY_PROMPTS } from '../prompts/context.ts';
import type { Language, MetricDefinition, PromptExample, ScoringItem } from '../types.ts';
import { defineMetric, f4, Verdict01 } from './pipeline.ts';
import { said, type Said } from '../computation.ts';

export const VerificationSchema = z.object({ reason: z.string(), verdict: Verdict01 });
/** What the verify step is asked with: one context, and the ground truth (or the answer, without reference) as `answer`. */
export const VerifyInput = z.object({ question: z.string(), context: z.string(), answer: z.string() });

/** One expert-labelled retrieved context, as the prompt lab offers it for a few-shot example of the verify step. */
export interface LabelledContext {
  response_id: number;
  item: Pick<ScoringItem, 'question' | 'answer' | 'ground_truth' | 'retrieved_contexts'>;
  /** 0-based index of the context in item.retrieved_contexts, and its gold value ('1' relevant, '0' not). */
  index: number;
  gold: string;
  /** The expert's rationale; empty when they gave none (the reason then says what the gold value is). */
  rationale: string;
  language: Language;
}

const DEFAULT_REASON: Record<Language, Record<'0' | '1', string>> = {
  en: { 1: 'The experts judged this context useful for arriving at the answer.', 0: 'The experts judged this context not useful for arriving at the answer.' },
  zh: { 1: '专家判断这段资料有助于得出答案。', 0: '专家判断这段资料无助于得出答案。' },
};

/**
 * The verify step's few-shot example from an expert's label of one context, in the step's own schema:
 * the step's input for that context (the ground truth, or the answer without reference, as `answer`),
 * the gold value as the verdict and the expert's rationale as the reason. Null when the gold value is
 * not a verdict. `response_id` marks the item so that it is never counted in the prompt's figures.
 */
export function verifyExampleFromLabel(reference: 'ground_truth' | 'answer', l: LabelledContext): PromptExample | null {
  const context = l.item.retrieved_contexts[l.index];
  if ((l.gold !== '1' && l.gold !== '0') || context === undefined) return null;
  const input = VerifyInput.parse({ question: l.item.question, context, answer: reference === 'ground_truth' ? l.item.ground_truth : l.item.answer });
  const output = VerificationSchema.parse({ reason: l.rationale.trim() || DEFAULT_REASON[l.language][l.gold], verdict: l.gold === '1' ? 1 : 0 });
  return { input, output, response_id: l.response_id };
}

/** The verify step's examples from labels, per metric: which text its `answer` is. */
export const VERIFY_REFERENCE: Readonly<Record<string, 'ground_truth' | 'answer'>> = {
  context_precision: 'ground_truth',
  context_precision_without_reference: 'answer',
};

/** "verdicts [0, 1] → (P@2=0.5000) / 1 = 0.5000" */
export function describePrecision(verdicts: readonly (0 | 1)[], value: number): Said {
  const terms: string[] = [];
  let relevant = 0;
  verdicts.forEach((v, i) => {
    relevant += v;
    if (v === 1) terms.push(`P@${i + 1}=${f4(relevant / (i + 1))}`);
  });
  const list = verdicts.join(', ');
  if (relevant === 0) return said('comp.cp_none_useful', { verdicts: list });
  return said('comp.cp_mean', { verdicts: list, terms: terms.join(' + '), relevant, value: f4(value) });
}

function createContextPrecision(key: string, column: string, reference: 'ground_truth' | 'answer'): MetricDefinition {
  return defineMetric({
    key,
    ragas_column: column,
    kind: 'llm',
    needs: reference === 'ground_truth' ? ['ground_truth', 'retrieved_contexts'] : ['retrieved_contexts'],
    uses_embeddings: false,
    steps: [{ step: 'verify', defaults: VERIFY_PROMPTS, input: VerifyInput, output: VerificationSchema }],
    async run(item, p) {
      const answer = reference === 'ground_truth' ? item.ground_truth : item.answer;
      const judged = await Promise.all(item.retrieved_contexts.map((context) =>
        p.ask('verify', 'context_verification', VerificationSchema, { question: item.question, context, answer })));
      const failed = judged.find((j) => !j.ok);
      if (failed && !failed.ok) return p.failed('verify', failed.reason);
      const verdicts = judged.map((j) => (j.ok ? j.value.verdict : 0));
      p.values['verdicts'] = verdicts;
      const score = contextPrecision(verdicts);
      if (score.value === null) return p.skipped(score.reason, said('comp.cp_no_contexts'));
      return p.ok(score.value, describePrecision(verdicts, score.value));
    },
  });
}

export const contextPrecisionMetric = createContextPrecision('context_precision', 'context_precision', 'ground_truth');
export const contextPrecisionWithoutReferenceMetric = createContextPrecision('context_precision_without_reference', 'llm_context_precision_without_reference', 'answer');
