// The contract between metric definitions (what to ask the judge, how to turn answers into a number)
// and the run executor (which items, which prompt versions, storing scores and traces).
import type { ZodType } from 'zod';
import type { Said } from './computation.ts';
import type { ChatJsonResult, JudgeMessage } from '../llm/client.ts';

export type Language = 'en' | 'zh';

/**
 * One few-shot example of a step, in that step's own input and output schema (checked when a
 * version is saved). `response_id`: the item it was made from, never counted in that prompt's figures.
 */
export interface PromptExample { input: Record<string, unknown>; output: unknown; response_id?: number }

/** One LLM step's prompt, as stored in a prompt version: the layout Ragas uses for saved prompts. */
export interface PromptTemplate {
  instruction: string;
  /** Appended after the instruction: what JSON to answer with. */
  output_format: string;
  examples: PromptExample[];
  language: Language;
}

/** A prompt as used in a run: the template plus the version it came from (null = built-in default). */
export interface PromptInUse extends PromptTemplate { version: number | null }

/** What a metric reads of one response. */
export interface ScoringItem {
  question: string;
  answer: string;
  ground_truth: string;
  retrieved_contexts: string[];
  reference_contexts: string[];
}

/** The judge as metrics see it: structured chat and embeddings (goldset's client satisfies this). */
export interface Judge {
  chatJson<T>(messages: JudgeMessage[], schema: ZodType<T>, schemaName: string, options?: { language?: Language }): Promise<ChatJsonResult<T>>;
  embed(texts: string[]): Promise<number[][]>;
}

/** One call of a metric's pipeline, kept for audit: the prompt as sent, the raw reply, what was parsed. */
export interface TraceStep {
  step: string;
  prompt_version: number | null;
  /** The step's input as the prompt was rendered with it (traces before this field have none). */
  input?: Record<string, unknown>;
  messages: JudgeMessage[];
  raw: string | null;
  parsed: unknown;
  cached: boolean;
  error?: string;
  /** Set when the stored step was cut to the limits (server/judge/stored-trace.ts): the lengths before. */
  truncated?: { raw?: number; parsed?: number; messages?: number };
}

export interface Trace {
  steps: TraceStep[];
  /** Embedding similarities and other numbers that are not LLM replies. */
  values?: Record<string, unknown>;
  /** How the number was computed, in words and figures, e.g. "F1(TP=1, FP=1, FN=1) = 0.5; 0.75·0.5 + 0.25·0.98 = 0.62" (English). */
  computation: string;
  /** The same, line by line as catalogue keys and values, for a page to say in its reader's language (computation.ts). */
  explained?: Said[];
}

/**
 * ok: value is a number. skipped: the item has nothing to score (e.g. no statements; never counted as 0).
 * error: a call failed or its reply could not be parsed after one repair attempt.
 */
export type ScoreResult =
  | { status: 'ok'; value: number; reason: string | null; trace: Trace }
  | { status: 'skipped'; value: null; reason: string; trace: Trace }
  | { status: 'error'; value: null; reason: string; trace: Trace };

/**
 * An expert-labelled item as the prompt lab offers it for few-shot examples. Response-level
 * criteria fill `gold`; a step judged per retrieved context may read per-context gold values once
 * the lab passes them (extend this type for that, and give the step a `fromLabel`).
 */
export interface LabelledItem {
  response_id: number;
  item: ScoringItem;
  criterion: { kind: 'binary' | 'categorical' | 'ordinal' | 'numeric'; scale_min: number | null; scale_max: number | null };
  gold: string;
  rationale: string;
  corrected_answer: string;
}

export interface StepDefinition {
  step: string;
  /** Built-in default prompts; the dataset's language picks one. */
  defaults: Record<Language, PromptTemplate>;
  /** What the step's prompt is rendered with, and the reply it must give: few-shot examples are checked against both. */
  input: ZodType<Record<string, unknown>>;
  output: ZodType;
  /**
   * Few-shot examples made from an expert's label, for a step whose output that label decides (a
   * rubric's verdict). Absent: labels cannot inform this step, and the prompt lab offers no
   * "add from label" (it offers the judge's own recorded input and output from a trace instead).
   * Returns [] when this item's label does not fit the step (e.g. another kind of criterion).
   */
  fromLabel?: (labelled: LabelledItem) => PromptExample[];
}

export interface MetricDefinition {
  key: string;
  /** The column Ragas writes this metric's scores in (`metric.name`, plus `(mode=…)` where it has a mode); none for goldset's own metrics. */
  ragas_column?: string;
  kind: 'llm' | 'non_llm';
  /** The item fields a metric cannot do without; an item lacking one is skipped with that reason. */
  needs: ('ground_truth' | 'retrieved_contexts' | 'reference_contexts')[];
  /**
   * Fields without which the metric itself gives no score, as Ragas does (NaN or an error), though
   * it is not skipped beforehand (its own rule decides the edge cases): the run plan counts and shows
   * these with `needs`, so that it does not promise scores the run will not give.
   */
  scoresOnlyWith?: ('ground_truth' | 'retrieved_contexts' | 'reference_contexts')[];
  uses_embeddings: boolean;
  steps: StepDefinition[];
  score(item: ScoringItem, ctx: { judge: Judge; prompts: Record<string, PromptInUse> }): Promise<ScoreResult>;
}
