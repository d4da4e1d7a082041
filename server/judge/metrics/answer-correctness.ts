// answer_correctness, as Ragas computes it: statements of the answer and of the ground truth (one
// statement-generation call per text, as Ragas makes), one classification call sorting them into
// TP / FP / FN with reasons, one embeddings request for both texts; then
// weights·[Fβ(TP, FP, FN), cos(answer, ground truth)] normalised by the weights' sum (default 0.75/0.25, β = 1).
// Calls per item: 3 chat + 1 embeddings request (Ragas: 3 chat + 2 embedding requests, one per text).

import { z } from 'zod';
import { answerCorrectness, cosine, fbeta } from '../../metrics/index.ts';
import { CLASSIFY_PROMPTS } from '../prompts/correctness.ts';
import { STATEMENTS_PROMPTS } from '../prompts/statements.ts';
import type { MetricDefinition } from '../types.ts';
import { defineMetric, f4 } from './pipeline.ts';
import { cleanStatements, StatementsInput, StatementsSchema } from './statements.ts';
import { said } from '../computation.ts';

const StatementWithReason = z.object({ statement: z.string(), reason: z.string() });
export const ClassifyInput = z.object({ question: z.string(), answer: z.array(z.string()), ground_truth: z.array(z.string()) });
export const ClassificationSchema = z.object({
  TP: z.array(StatementWithReason),
  FP: z.array(StatementWithReason),
  FN: z.array(StatementWithReason),
});

export interface AnswerCorrectnessOptions {
  /** [factuality, similarity], default [0.75, 0.25]; with a similarity weight of 0 nothing is embedded. */
  weights?: readonly [number, number];
  beta?: number;
}

/** The weighted mean of factuality and similarity, as a formula (similarity is not null). */
function weighted(weights: readonly [number, number], factuality: number, similarity: number, value: number): string {
  const [wf, ws] = weights;
  const sum = wf + ws;
  const terms = `${wf}×${f4(factuality)} + ${ws}×${f4(similarity)}`;
  return sum === 1 ? `${terms} = ${f4(value)}` : `(${terms}) / ${sum} = ${f4(value)}`;
}

export function createAnswerCorrectness(options: AnswerCorrectnessOptions = {}): MetricDefinition {
  const weights = options.weights ?? [0.75, 0.25];
  const beta = options.beta ?? 1;
  const useSimilarity = weights[1] !== 0;
  const fName = beta === 1 ? 'F1' : `F-beta(β=${beta})`;

  return defineMetric({
    key: 'answer_correctness',
    ragas_column: 'answer_correctness',
    kind: 'llm',
    needs: ['ground_truth'],
    uses_embeddings: useSimilarity,
    steps: [
      { step: 'statements', defaults: STATEMENTS_PROMPTS, input: StatementsInput, output: StatementsSchema },
      { step: 'classify', defaults: CLASSIFY_PROMPTS, input: ClassifyInput, output: ClassificationSchema },
    ],
    async run(item, p) {
      // Trace order: the answer's statements first, then the ground truth's.
      const [fromAnswer, fromTruth] = await Promise.all([
        p.ask('statements', 'statements', StatementsSchema, { question: item.question, text: item.answer }),
        p.ask('statements', 'statements', StatementsSchema, { question: item.question, text: item.ground_truth }),
      ]);
      if (!fromAnswer.ok) return p.failed('statements', fromAnswer.reason);
      if (!fromTruth.ok) return p.failed('statements', fromTruth.reason);
      const answer = cleanStatements(fromAnswer.value.statements);
      const groundTruth = cleanStatements(fromTruth.value.statements);
      p.values['answer_statements'] = answer;
      p.values['ground_truth_statements'] = groundTruth;
      if (answer.length === 0 && groundTruth.length === 0) {
        return p.skipped('no_statements', said('comp.ac_no_statements'));
      }

      const [classified, embedded] = await Promise.all([
        p.ask('classify', 'correctness_classification', ClassificationSchema, { question: item.question, answer, ground_truth: groundTruth }),
        useSimilarity ? p.embed([item.answer, item.ground_truth]) : Promise.resolve(null),
      ]);
      if (!classified.ok) return p.failed('classify', classified.reason);
      const { TP, FP, FN } = classified.value;
      p.values['TP'] = TP;
      p.values['FP'] = FP;
      p.values['FN'] = FN;
      const counts = { tp: TP.length, fp: FP.length, fn: FN.length };
      if (counts.tp + counts.fp + counts.fn === 0) {
        return p.error('empty_classification', said('comp.ac_empty_classification'));
      }

      let similarity: number | null = null;
      if (embedded) {
        if (!embedded.ok) return p.error(embedded.reason, said('comp.ac_embedding_failed', { reason: embedded.reason }));
        similarity = cosine(embedded.value[0]!, embedded.value[1]!);
        if (similarity === null) return p.error('zero_vector', said('comp.zero_vector'));
        p.values['similarity'] = similarity;
      }

      const factuality = fbeta(counts.tp, counts.fp, counts.fn, beta);
      p.values['factuality'] = factuality;
      const score = answerCorrectness(counts, similarity, weights, beta);
      if (score.value === null) return p.error(score.reason, said('comp.no_score', { reason: score.reason }));
      const f = { f: fName, tp: counts.tp, fp: counts.fp, fn: counts.fn, factuality: f4(factuality) };
      return p.ok(score.value, similarity === null ? said('comp.ac_factuality_only', { ...f, value: f4(score.value) })
        : said('comp.ac_weighted', { ...f, formula: weighted(weights, factuality, similarity, score.value) }));
    },
  });
}

export const answerCorrectnessMetric = createAnswerCorrectness();
