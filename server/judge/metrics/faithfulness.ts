// faithfulness, as Ragas computes it: statements of the answer (one call), then one NLI call judging
// every statement against the retrieved contexts joined by newlines (verdict 0/1 with a reason);
// score = supported / all. An answer with no statements is skipped, never scored 0.
// Calls per item: 2 chat (Ragas: 2).

import { z } from 'zod';
import { faithfulness } from '../../metrics/index.ts';
import { NLI_PROMPTS } from '../prompts/faithfulness.ts';
import { STATEMENTS_PROMPTS } from '../prompts/statements.ts';
import { defineMetric, f4, Verdict01 } from './pipeline.ts';
import { cleanStatements, StatementsInput, StatementsSchema } from './statements.ts';
import { said } from '../computation.ts';

export const NliInput = z.object({ context: z.string(), statements: z.array(z.string()) });
export const NliSchema = z.object({
  statements: z.array(z.object({ statement: z.string(), reason: z.string(), verdict: Verdict01 })),
});

export const faithfulnessMetric = defineMetric({
  key: 'faithfulness',
  ragas_column: 'faithfulness',
  kind: 'llm',
  needs: ['retrieved_contexts'],
  uses_embeddings: false,
  steps: [
    { step: 'statements', defaults: STATEMENTS_PROMPTS, input: StatementsInput, output: StatementsSchema },
    { step: 'nli', defaults: NLI_PROMPTS, input: NliInput, output: NliSchema },
  ],
  async run(item, p) {
    const extracted = await p.ask('statements', 'statements', StatementsSchema, { question: item.question, text: item.answer });
    if (!extracted.ok) return p.failed('statements', extracted.reason);
    const statements = cleanStatements(extracted.value.statements);
    p.values['statements'] = statements;
    if (statements.length === 0) return p.skipped('no_statements', said('comp.f_no_statements'));

    const judged = await p.ask('nli', 'nli_verdicts', NliSchema, { context: item.retrieved_contexts.join('\n'), statements });
    if (!judged.ok) return p.failed('nli', judged.reason);
    const verdicts = judged.value.statements;
    p.values['verdicts'] = verdicts;
    if (verdicts.length === 0) return p.error('empty_verdicts', said('comp.f_empty_verdicts', { n: statements.length }));
    // Like Ragas, the score is over the verdicts the judge returned; a count mismatch is noted.
    if (verdicts.length !== statements.length) {
      p.values['note'] = `the judge returned ${verdicts.length} verdicts for ${statements.length} statements`;
    }

    const score = faithfulness(verdicts.map((v) => v.verdict));
    if (score.value === null) return p.error(score.reason, said('comp.no_score', { reason: score.reason }));
    const supported = verdicts.filter((v) => v.verdict === 1).length;
    return p.ok(score.value, said('comp.f', { supported, n: verdicts.length, value: f4(score.value) }));
  },
});
