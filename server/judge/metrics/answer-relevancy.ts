// answer_relevancy (Ragas "response relevancy"): the judge writes the question the answer replies
// to, n = 3 times, each with a noncommittal flag; the user's question and the generated questions
// are embedded (one request) and the score is their mean cosine similarity, set to 0 by the
// noncommittal rule. Default rule 'all' (0 only when every generation is noncommittal), Ragas 0.4's;
// 'any' (one noncommittal generation zeroes the score), the rule of Ragas 0.1–0.3, is a setting of
// the metric (server/judge/metric-settings.ts). As in Ragas 0.4, a generated question that is the
// empty string is embedded with the others; when all of them are empty there is no score.
// Calls per item: 3 chat + 1 embeddings request. Ragas 0.4 (collections) and Ragas 0.2/0.3 with an
// LLM without the `n` parameter (e.g. Tongyi in the course) also make 3 chat calls; Ragas 0.2/0.3
// with ChatOpenAI sends one request with n = 3, which the Judge interface cannot express.
// The three calls differ only in `variant`, so they are distinct requests (see prompts/relevancy.ts).

import { z } from 'zod';
import { answerRelevancy, cosine } from '../../metrics/index.ts';
import type { NoncommittalRule } from '../../metrics/index.ts';
import { QUESTION_PROMPTS } from '../prompts/relevancy.ts';
import type { MetricDefinition } from '../types.ts';
import { defineMetric, f4, Verdict01 } from './pipeline.ts';
import { said } from '../computation.ts';

export const QuestionInput = z.object({ answer: z.string(), variant: z.number().int().min(1) });
export const QuestionSchema = z.object({ question: z.string(), noncommittal: Verdict01 });

export interface AnswerRelevancyMetricOptions {
  /** Number of generated questions (Ragas's `strictness`), default 3. */
  strictness?: number;
  rule?: NoncommittalRule;
}

export function createAnswerRelevancy(options: AnswerRelevancyMetricOptions = {}): MetricDefinition {
  const n = options.strictness ?? 3;
  const rule = options.rule ?? 'all';
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`strictness must be a positive integer (got ${n})`);

  return defineMetric({
    key: 'answer_relevancy',
    ragas_column: 'answer_relevancy',
    kind: 'llm',
    needs: [],
    uses_embeddings: true,
    steps: [{ step: 'questions', defaults: QUESTION_PROMPTS, input: QuestionInput, output: QuestionSchema }],
    async run(item, p) {
      const generations = await Promise.all(Array.from({ length: n }, (_, i) =>
        p.ask('questions', 'question_generation', QuestionSchema, { answer: item.answer, variant: i + 1 })));
      const failed = generations.find((g) => !g.ok);
      if (failed && !failed.ok) return p.failed('questions', failed.reason);
      const usable = generations.flatMap((g) => (g.ok ? [g.value] : []));
      p.values['generated'] = usable;
      p.values['rule'] = rule;
      // Ragas 0.4: NaN when every generated question is "", else every question (empty ones too) is embedded.
      if (usable.every((g) => g.question === '')) return p.skipped('no_generated_questions', said('comp.ar_all_empty'));

      const embedded = await p.embed([item.question, ...usable.map((g) => g.question)]);
      if (!embedded.ok) return p.error(embedded.reason, said('comp.ar_embedding_failed', { reason: embedded.reason }));
      const [questionVec, ...generatedVecs] = embedded.value;
      const flags = usable.map((g) => g.noncommittal);
      const cosines = generatedVecs.map((v) => cosine(v, questionVec!));
      p.values['cosines'] = cosines;

      const score = answerRelevancy(questionVec!, generatedVecs, flags, { rule });
      if (score.value === null) return p.error(score.reason, said('comp.no_score', { reason: score.reason }));
      const flagged = { flags: flags.join(', '), rule };
      const fires = rule === 'any' ? flags.includes(1) : flags.every((f) => f === 1);
      if (fires) return p.ok(score.value, said('comp.ar_noncommittal', flagged));
      const terms = cosines.map((c) => f4(c ?? 0)).join(' + ');
      return p.ok(score.value, said('comp.ar_mean', { ...flagged, terms, n: cosines.length, value: f4(score.value) }));
    },
  });
}

export const answerRelevancyMetric = createAnswerRelevancy();
