// context_recall, as Ragas computes it: one call that splits the ground truth into statements and
// says for each whether it can be attributed to the retrieved contexts (joined by newlines), 1/0
// with a reason; score = attributed / all. No statements → skipped.
// With no retrieved context at all nothing can be attributed, so the score is 0 without a call
// (as the non-LLM recall does): skipping would hide retrieval that found nothing from the mean.
// Calls per item: 1 chat (Ragas: 1).

import { z } from 'zod';
import { contextRecall } from '../../metrics/index.ts';
import { ATTRIBUTE_PROMPTS } from '../prompts/context.ts';
import { defineMetric, f4, Verdict01 } from './pipeline.ts';
import { said } from '../computation.ts';

export const AttributeInput = z.object({ question: z.string(), context: z.string(), reference: z.string() });
export const AttributionSchema = z.object({
  classifications: z.array(z.object({ statement: z.string(), reason: z.string(), attributed: Verdict01 })),
});

export const contextRecallMetric = defineMetric({
  key: 'context_recall',
  ragas_column: 'context_recall',
  kind: 'llm',
  needs: ['ground_truth'],
  uses_embeddings: false,
  steps: [{ step: 'attribute', defaults: ATTRIBUTE_PROMPTS, input: AttributeInput, output: AttributionSchema }],
  async run(item, p) {
    if (item.retrieved_contexts.length === 0) {
      return p.ok(0, said('comp.cr_no_context'));
    }
    const judged = await p.ask('attribute', 'context_attribution', AttributionSchema, {
      question: item.question,
      context: item.retrieved_contexts.join('\n'),
      reference: item.ground_truth,
    });
    if (!judged.ok) return p.failed('attribute', judged.reason);
    const classifications = judged.value.classifications;
    p.values['classifications'] = classifications;
    const score = contextRecall(classifications.map((c) => c.attributed));
    if (score.value === null) return p.skipped(score.reason, said('comp.cr_no_statements'));
    const attributed = classifications.filter((c) => c.attributed === 1).length;
    const n = classifications.length;
    return p.ok(score.value, said('comp.cr', { attributed, n, value: f4(score.value) }));
  },
});
