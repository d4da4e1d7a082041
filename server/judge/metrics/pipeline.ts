// Shared plumbing of the metric pipelines: ask the judge one step (render the step's prompt, call
// chatJson, keep the call in the trace), embed texts, and build ScoreResults. A failed call turns
// into a reason code and a trace entry that keeps the raw reply; it never becomes a 0.

import { z } from 'zod';
import type { ZodType } from 'zod';
import { renderPrompt } from '../prompts/render.ts';
import type { RenderOptions } from '../prompts/render.ts';
import type {
  Judge, Language, MetricDefinition, PromptInUse, ScoreResult, ScoringItem, StepDefinition, Trace, TraceStep,
} from '../types.ts';
import { explain, said, type ComputationKey, type Said } from '../computation.ts';

export type Outcome<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The error kind of whatever a judge threw (LlmCallError carries one), else a generic code. */
function thrownKind(err: unknown, fallback: string): string {
  const kind = (err as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' && kind !== '' ? kind : fallback;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** One score computation: collects the trace while the pipeline runs. */
export class Pipeline {
  readonly steps: TraceStep[] = [];
  readonly values: Record<string, unknown> = {};

  constructor(
    private readonly judge: Judge,
    private readonly prompts: Record<string, PromptInUse>,
  ) {}

  /**
   * Ask the judge for one step. The trace slot is taken before awaiting, so steps run in parallel
   * (one call per context, say) still appear in the order they were asked.
   */
  async ask<T>(step: string, schemaName: string, schema: ZodType<T>, input: Record<string, unknown>, render?: RenderOptions): Promise<Outcome<T>> {
    const slot = this.steps.length;
    const prompt = this.prompts[step];
    if (!prompt) {
      this.steps.push({ step, prompt_version: null, messages: [], raw: null, parsed: null, cached: false, error: `missing_prompt: the run has no prompt for step "${step}"` });
      return { ok: false, reason: 'missing_prompt' };
    }
    const messages = renderPrompt(prompt, input, render);
    const base: TraceStep = { step, prompt_version: prompt.version, input, messages, raw: null, parsed: null, cached: false };
    this.steps.push(base);
    try {
      const res = await this.judge.chatJson(messages, schema, schemaName, { language: prompt.language });
      if (res.ok) {
        this.steps[slot] = { ...base, raw: res.raw, parsed: res.value, cached: res.cached };
        return { ok: true, value: res.value };
      }
      this.steps[slot] = { ...base, raw: res.error.raw ?? null, error: `${res.error.kind}: ${res.error.message}` };
      return { ok: false, reason: res.error.kind };
    } catch (err) {
      const kind = thrownKind(err, 'judge_error');
      this.steps[slot] = { ...base, error: `${kind}: ${message(err)}` };
      return { ok: false, reason: kind };
    }
  }

  /** Embed texts; vectors must come back one per text, non-empty, finite and of equal length. */
  async embed(texts: string[]): Promise<Outcome<number[][]>> {
    let vectors: number[][];
    try {
      vectors = await this.judge.embed(texts);
    } catch (err) {
      const kind = thrownKind(err, 'embedding_error');
      this.values['embedding_error'] = `${kind}: ${message(err)}`;
      return { ok: false, reason: kind };
    }
    const dim = vectors[0]?.length ?? 0;
    const valid = vectors.length === texts.length && dim > 0
      && vectors.every((v) => Array.isArray(v) && v.length === dim && v.every((x) => typeof x === 'number' && Number.isFinite(x)));
    if (!valid) {
      this.values['embedding_error'] = `embedding_invalid: expected ${texts.length} finite vectors of one dimension`;
      return { ok: false, reason: 'embedding_invalid' };
    }
    return { ok: true, value: vectors };
  }

  /** The trace with the computation's lines, and their English text as `computation`. */
  trace(computation: Said | readonly Said[]): Trace {
    const lines = explain(Array.isArray(computation) ? computation as readonly Said[] : [computation as Said]);
    return Object.keys(this.values).length > 0 ? { steps: this.steps, values: this.values, ...lines } : { steps: this.steps, ...lines };
  }

  ok(value: number, computation: Said | readonly Said[], reason: string | null = null): ScoreResult {
    return { status: 'ok', value, reason, trace: this.trace(computation) };
  }

  skipped(reason: string, computation: Said | readonly Said[]): ScoreResult {
    return { status: 'skipped', value: null, reason, trace: this.trace(computation) };
  }

  error(reason: string, computation: Said | readonly Said[]): ScoreResult {
    return { status: 'error', value: null, reason, trace: this.trace(computation) };
  }

  /** The error result for a failed step: "step classify failed (schema); no score". */
  failed(step: string, reason: string): ScoreResult {
    return this.error(reason, said('comp.step_failed', { step, reason }));
  }
}

/** What an item without a needed field says, by the reason's code. */
const MISSING = {
  no_ground_truth: 'comp.no_ground_truth', no_retrieved_contexts: 'comp.no_retrieved_contexts', no_reference_contexts: 'comp.no_reference_contexts',
} as const satisfies Record<`no_${MetricDefinition['needs'][number]}`, ComputationKey>;

/** Reason an item cannot be scored for lack of a needed field (same codes as the run executor). */
export function missingNeed(item: ScoringItem, needs: MetricDefinition['needs']): keyof typeof MISSING | null {
  for (const need of needs) {
    const missing = need === 'ground_truth' ? item.ground_truth.trim() === '' : item[need].length === 0;
    if (missing) return `no_${need}`;
  }
  return null;
}

export interface PipelineSpec {
  key: string;
  ragas_column?: string;
  kind: MetricDefinition['kind'];
  needs: MetricDefinition['needs'];
  scoresOnlyWith?: MetricDefinition['needs'];
  uses_embeddings: boolean;
  steps: StepDefinition[];
  run(item: ScoringItem, p: Pipeline): Promise<ScoreResult>;
}

/**
 * A MetricDefinition around a pipeline: checks the item's needs first (skipped, no calls), and turns
 * an unexpected exception into an 'internal' error that keeps the trace gathered so far.
 */
export function defineMetric(spec: PipelineSpec): MetricDefinition {
  return {
    key: spec.key,
    ...(spec.ragas_column !== undefined ? { ragas_column: spec.ragas_column } : {}),
    kind: spec.kind,
    needs: spec.needs,
    ...(spec.scoresOnlyWith ? { scoresOnlyWith: spec.scoresOnlyWith } : {}),
    uses_embeddings: spec.uses_embeddings,
    steps: spec.steps,
    async score(item, ctx) {
      const p = new Pipeline(ctx.judge, ctx.prompts);
      const missing = missingNeed(item, spec.needs);
      if (missing) return p.skipped(missing, said(MISSING[missing]));
      try {
        return await spec.run(item, p);
      } catch (err) {
        return p.error('internal', said('comp.internal', { message: message(err) }));
      }
    },
  };
}

/** The built-in default prompts of a metric in one language, as a run would use them (version null). */
export function defaultPrompts(metric: MetricDefinition, language: Language): Record<string, PromptInUse> {
  return Object.fromEntries(metric.steps.map((s) => [s.step, { ...s.defaults[language], version: null }]));
}

/** 4 decimals for computation strings. */
export function f4(x: number): string {
  return x.toFixed(4);
}

/** A 0/1 verdict as the judge must give it (JSON Schema: {"type": "number", "enum": [0, 1]}). */
export const Verdict01 = z.literal([0, 1]);
