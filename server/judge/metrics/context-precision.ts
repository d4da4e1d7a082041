// context_precision (with reference: judged against the ground truth) and
// context_precision_without_reference (judged against the answer), as Ragas computes them: one
// verification call per retrieved context, in rank order, verdict 0/1 ("was this context useful
// for arriving at the answer?") with a reason; then average precision
// Σ_k (precision@k · v_k) / Σ_k v_k, 0 when no context is useful. No contexts → skipped.
// Calls per item: one chat call per retrieved context (Ragas: the same).

import { z } from 'zod';
import { contextPrecision } from '../../metrics/index.ts';
import { VERIFY_PROMPTS } from '../prompts/context.ts';
import type { MetricDefinition } from '../types.ts';
import { defineMetric, f4, Verdict01 } from './pipeline.ts';

export const VerifyInput = z.object({ question: z.string(), context: z.string(), answer: z.string() });
export const VerificationSchema = z.object({ reason: z.string(), verdict: Verdict01 });

/** "verdicts [0, 1] → (P@2=0.5000) / 1 = 0.5000" */
export function describePrecision(verdicts: readonly (0 | 1)[], value: number): string {
  const terms: string[] = [];
  let relevant = 0;
  verdicts.forEach((v, i) => {
    relevant += v;
    if (v === 1) terms.push(`P@${i + 1}=${f4(relevant / (i + 1))}`);
  });
  const list = `verdicts [${verdicts.join(', ')}]`;
  if (relevant === 0) return `${list}: no useful context → 0`;
  return `${list} → Σ precision@k·v_k / Σ v_k = (${terms.join(' + ')}) / ${relevant} = ${f4(value)}`;
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
      if (score.value === null) return p.skipped(score.reason, 'no retrieved contexts; not scored');
      return p.ok(score.value, describePrecision(verdicts, score.value));
    },
  });
}

export const contextPrecisionMetric = createContextPrecision('context_precision', 'context_precision', 'ground_truth');
export const contextPrecisionWithoutReferenceMetric = createContextPrecision('context_precision_without_reference', 'llm_context_precision_without_reference', 'answer');
