// Custom metrics a dataset defines for itself:
// - customRubricMetric: one judge call with the author's instruction ({{question}}, {{answer}},
//   {{ground_truth}}, {{contexts}} placeholders), reply {"reason", "value"} validated by a schema built
//   from the output type, value normalised to 0..1; the trace keeps the raw value so calibration can
//   compare the judge's category or grade with the experts'.
// - compositeMetric: a weighted mean of other metrics (server/metrics composite), with no value
//   when a weighted component has none.

import { z } from 'zod';
import type { ZodType } from 'zod';
import { composite } from '../../metrics/index.ts';
import type { CompositeComponent } from '../../metrics/index.ts';
import { rubricOutputFormat } from '../prompts/rubric.ts';
import type { RubricCategory, RubricOutput } from '../prompts/rubric.ts';
import type { LabelledItem, Language, MetricDefinition, PromptExample, PromptInUse, PromptTemplate, ScoreResult, TraceStep } from '../types.ts';
import { defineMetric, f4 } from './pipeline.ts';
import { explain, said, type Said } from '../computation.ts';

export type { RubricCategory, RubricOutput } from '../prompts/rubric.ts';

const LANGUAGES: readonly Language[] = ['en', 'zh'];

const TemplateSchema = z.object({
  instruction: z.string().trim().min(1),
  output_format: z.string().default(''),
  examples: z.array(z.object({ input: z.record(z.string(), z.unknown()), output: z.unknown(), response_id: z.number().int().optional() })).default([]),
  language: z.enum(['en', 'zh']),
});

/** What a custom rubric metric's stored config must look like (the key comes from the metric row). */
export const CustomRubricConfigSchema = z.object({
  key: z.string().trim().min(1),
  prompt: z.object({ en: TemplateSchema.optional(), zh: TemplateSchema.optional() })
    .refine((p) => p.en !== undefined || p.zh !== undefined, { error: 'a rubric needs a prompt in at least one language' }),
  output: z.enum(['binary', 'categorical', 'scale_1_5', 'score_0_1']),
  categories: z.array(z.object({ value: z.string().trim().min(1), score: z.number().min(0).max(1) })).optional(),
  needs: z.array(z.enum(['ground_truth', 'retrieved_contexts', 'reference_contexts'])).optional(),
}).refine((c) => c.output !== 'categorical' || (c.categories !== undefined && c.categories.length > 0), { error: 'a categorical rubric needs categories' })
  .refine((c) => new Set((c.categories ?? []).map((x) => x.value)).size === (c.categories ?? []).length, { error: 'category values must be unique' });

export interface CustomRubricConfig {
  key: string;
  /** The rubric's prompt per language; a missing language falls back to the other one. */
  prompt: Partial<Record<Language, PromptTemplate>>;
  output: RubricOutput;
  /** Required for 'categorical': the values the judge may answer and their scores in [0, 1]. */
  categories?: RubricCategory[];
  /** Default: ground_truth when an instruction uses {{ground_truth}}, else none. */
  needs?: MetricDefinition['needs'];
}

type RubricReply = { reason: string; value: number | string };

function replySchema(output: RubricOutput, categories: readonly RubricCategory[]): ZodType<RubricReply> {
  switch (output) {
    case 'binary': return z.object({ reason: z.string(), value: z.literal([0, 1]) });
    case 'scale_1_5': return z.object({ reason: z.string(), value: z.number().int().min(1).max(5) });
    case 'score_0_1': return z.object({ reason: z.string(), value: z.number().min(0).max(1) });
    case 'categorical': {
      const [first, ...rest] = categories.map((c) => c.value);
      return z.object({ reason: z.string(), value: z.enum([first!, ...rest]) });
    }
  }
}

/** What a rubric's prompt is rendered with; an example may leave out the fields its instruction does not use. */
export const RubricInput = z.object({ question: z.string(), answer: z.string(), ground_truth: z.string().optional(), contexts: z.array(z.string()).optional() });

/**
 * The rubric value an expert's gold label stands for, or null when the criterion does not speak the
 * rubric's scale: binary gold for pass/fail (and 0/1 scores), ordinal 1–5 gold for a 1–5 grade,
 * numeric 0–1 gold for a 0–1 score, a categorical gold that is one of the rubric's categories.
 */
function rubricValueOf(output: RubricOutput, categories: readonly RubricCategory[], l: LabelledItem): number | string | null {
  const n = Number(l.gold);
  switch (output) {
    case 'binary': return l.criterion.kind === 'binary' && (l.gold === '0' || l.gold === '1') ? n : null;
    case 'scale_1_5': return l.criterion.kind === 'ordinal' && l.criterion.scale_min === 1 && l.criterion.scale_max === 5 && Number.isInteger(n) && n >= 1 && n <= 5 ? n : null;
    case 'score_0_1': return (l.criterion.kind === 'numeric' || l.criterion.kind === 'binary') && l.gold.trim() !== '' && n >= 0 && n <= 1 ? n : null;
    case 'categorical': return l.criterion.kind === 'categorical' && categories.some((c) => c.value === l.gold) ? l.gold : null;
  }
}

/** The judge's raw value as a score in 0..1, and how it got there. */
export function normaliseRubricValue(output: RubricOutput, value: number | string, categories: readonly RubricCategory[] = []): { score: number; how: Said } {
  switch (output) {
    case 'binary': return { score: Number(value), how: said('comp.rubric_binary', { raw: value, value }) };
    case 'scale_1_5': {
      const score = (Number(value) - 1) / 4;
      return { score, how: said('comp.rubric_scale', { raw: value, value: f4(score) }) };
    }
    case 'score_0_1': return { score: Number(value), how: said('comp.rubric_score', { raw: value, value: f4(Number(value)) }) };
    case 'categorical': {
      const category = categories.find((c) => c.value === value);
      if (!category) throw new RangeError(`unknown category ${JSON.stringify(value)}`);
      return { score: category.score, how: said('comp.rubric_category', { raw: JSON.stringify(value), value: f4(category.score) }) };
    }
  }
}

export function customRubricMetric(config: CustomRubricConfig): MetricDefinition {
  const parsed = CustomRubricConfigSchema.safeParse(config);
  if (!parsed.success) throw new RangeError(`invalid rubric metric ${config.key}: ${z.prettifyError(parsed.error)}`);
  const { key, output } = parsed.data;
  const categories = parsed.data.categories ?? [];

  const defaults = {} as Record<Language, PromptTemplate>;
  for (const language of LANGUAGES) {
    const other = language === 'en' ? 'zh' : 'en';
    const template = parsed.data.prompt[language] ?? parsed.data.prompt[other]!;
    const outputFormat = template.output_format.trim() !== '' ? template.output_format : rubricOutputFormat(output, template.language, categories);
    defaults[language] = { ...template, output_format: outputFormat };
  }
  const usesTruth = LANGUAGES.some((l) => /\{\{\s*ground_truth\s*\}\}/.test(defaults[l].instruction));
  const needs = parsed.data.needs ?? (usesTruth ? ['ground_truth'] : []);
  const schema = replySchema(output, categories);

  return defineMetric({
    key,
    kind: 'llm',
    needs,
    uses_embeddings: false,
    steps: [{
      step: 'rubric', defaults, input: RubricInput, output: schema,
      // The expert's label decides the rubric's verdict: the item is the input, the gold value and
      // the expert's rationale the output.
      fromLabel(l): PromptExample[] {
        const value = rubricValueOf(output, categories, l);
        if (value === null) return [];
        const input = { question: l.item.question, answer: l.item.answer, ground_truth: l.item.ground_truth, contexts: l.item.retrieved_contexts };
        return [{ input, output: { reason: l.rationale, value }, response_id: l.response_id }];
      },
    }],
    async run(item, p) {
      const input = { question: item.question, answer: item.answer, ground_truth: item.ground_truth, contexts: item.retrieved_contexts };
      const judged = await p.ask('rubric', 'rubric_verdict', schema, input, { placeholders: 'exclusive' });
      if (!judged.ok) return p.failed('rubric', judged.reason);
      const { score, how } = normaliseRubricValue(output, judged.value.value, categories);
      p.values['output'] = output;
      p.values['raw_value'] = judged.value.value;
      p.values['score'] = score;
      return p.ok(score, how, judged.value.reason);
    },
  });
}

export interface CompositeConfig {
  key: string;
  components: { metric: MetricDefinition; weight: number }[];
}

function only(prompts: Record<string, PromptInUse>, prefix: string): Record<string, PromptInUse> {
  return Object.fromEntries(Object.entries(prompts).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
}

function unionNeeds(metrics: readonly MetricDefinition[]): MetricDefinition['needs'] {
  return [...new Set(metrics.flatMap((m) => m.needs))];
}

/**
 * Weighted mean of component metrics, scored one after the other. Step names (for prompts and the
 * trace) are prefixed with the component's key: "faithfulness.nli". The first component without a
 * value ends the item: the composite has no value either (status and reason from that component,
 * e.g. "faithfulness.no_statements"), and the remaining components are not run, since their calls
 * could not change that. Components with weight 0 are never run.
 */
export function compositeMetric(config: CompositeConfig): MetricDefinition {
  const { key, components } = config;
  if (components.length === 0) throw new RangeError(`composite ${key} has no components`);
  for (const c of components) {
    if (!Number.isFinite(c.weight) || c.weight < 0) throw new RangeError(`weight of ${c.metric.key} must be a finite number >= 0 (got ${c.weight})`);
  }
  const keys = components.map((c) => c.metric.key);
  if (new Set(keys).size !== keys.length) throw new RangeError(`composite ${key} lists a component twice`);
  const active = components.filter((c) => c.weight > 0);
  if (active.length === 0) throw new RangeError(`composite ${key} needs a component with a positive weight`);
  const weightSum = active.reduce((s, c) => s + c.weight, 0);

  return {
    key,
    kind: active.some((c) => c.metric.kind === 'llm') ? 'llm' : 'non_llm',
    needs: unionNeeds(active.map((c) => c.metric)),
    uses_embeddings: active.some((c) => c.metric.uses_embeddings),
    steps: active.flatMap((c) => c.metric.steps.map((s) => ({ ...s, step: `${c.metric.key}.${s.step}` }))),

    async score(item, ctx): Promise<ScoreResult> {
      const steps: TraceStep[] = [];
      const values: Record<string, unknown> = {};
      const lines: Said[] = components.filter((c) => c.weight === 0).map((c) => ({ ...said('comp.weight_zero'), prefix: `${c.metric.key}: ` }));
      const parts: CompositeComponent[] = [];
      for (const [i, c] of active.entries()) {
        const k = c.metric.key;
        let r: ScoreResult;
        try {
          r = await c.metric.score(item, { judge: ctx.judge, prompts: only(ctx.prompts, `${k}.`) });
        } catch (err) {
          r = { status: 'error', value: null, reason: 'internal', trace: { steps: [], ...explain([said('comp.internal', { message: err instanceof Error ? err.message : String(err) })]) } };
        }
        steps.push(...r.trace.steps.map((s) => ({ ...s, step: `${k}.${s.step}` })));
        values[k] = { status: r.status, value: r.value, reason: r.reason, weight: c.weight, ...(r.trace.values ? { values: r.trace.values } : {}) };
        // A component's lines after its name; a component that gave no lines (a metric not built on the pipeline) as its text.
        lines.push(...(r.trace.explained ?? [said('comp.text', { text: r.trace.computation })]).map((l) => ({ ...l, prefix: `${k}: ${l.prefix ?? ''}` })));
        if (r.status !== 'ok') {
          const rest = active.slice(i + 1).map((x) => x.metric.key);
          lines.push(rest.length ? said('comp.component_no_value_rest', { metric: k, reason: r.reason, rest: rest.join(', ') }) : said('comp.component_no_value', { metric: k, reason: r.reason }));
          return { status: r.status, value: null, reason: `${k}.${r.reason}`, trace: { steps, values, ...explain(lines) } };
        }
        parts.push({ name: k, score: { value: r.value }, weight: c.weight });
      }
      const combined = composite(parts);
      if (combined.value === null) {
        return { status: 'error', value: null, reason: combined.reason, trace: { steps, values, ...explain(lines) } };
      }
      const terms = parts.map((p) => `${p.weight}×${f4(p.score.value ?? 0)}`).join(' + ');
      lines.push(said('comp.composite', { formula: weightSum === 1 ? terms : `(${terms}) / ${weightSum}`, value: f4(combined.value) }));
      return { status: 'ok', value: combined.value, reason: null, trace: { steps, values, ...explain(lines) } };
    },
  };
}
