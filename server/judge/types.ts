// The contract between metric definitions (what to ask the judge, how to turn answers into a number)
// and the run executor (which items, which prompt versions, storing scores and traces).
import type { ZodType } from 'zod';
import type { ChatJsonResult, JudgeMessage } from '../llm/client.ts';

export type Language = 'en' | 'zh';

/** One LLM step's prompt, as stored in a prompt version: the layout Ragas uses for saved prompts. */
export interface PromptTemplate {
  instruction: string;
  /** Appended after the instruction: what JSON to answer with. */
  output_format: string;
  examples: { input: Record<string, unknown>; output: unknown }[];
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
  chatJson<T>(messages: JudgeMessage[], schema: ZodType<T>, schemaName: string): Promise<ChatJsonResult<T>>;
  embed(texts: string[]): Promise<number[][]>;
}

/** One call of a metric's pipeline, kept for audit: the prompt as sent, the raw reply, what was parsed. */
export interface TraceStep {
  step: string;
  prompt_version: number | null;
  messages: JudgeMessage[];
  raw: string | null;
  parsed: unknown;
  cached: boolean;
  error?: string;
}

export interface Trace {
  steps: TraceStep[];
  /** Embedding similarities and other numbers that are not LLM replies. */
  values?: Record<string, unknown>;
  /** How the number was computed, in words and figures, e.g. "F1(TP=1, FP=1, FN=1) = 0.5; 0.75·0.5 + 0.25·0.98 = 0.62". */
  computation: string;
}

/**
 * ok: value is a number. skipped: the item has nothing to score (e.g. no statements; never counted as 0).
 * error: a call failed or its reply could not be parsed after one repair attempt.
 */
export type ScoreResult =
  | { status: 'ok'; value: number; reason: string | null; trace: Trace }
  | { status: 'skipped'; value: null; reason: string; trace: Trace }
  | { status: 'error'; value: null; reason: string; trace: Trace };

export interface StepDefinition {
  step: string;
  /** Built-in default prompts; the dataset's language picks one. */
  defaults: Record<Language, PromptTemplate>;
}

export interface MetricDefinition {
  key: string;
  /** The column Ragas writes this metric's scores in (`metric.name`, plus `(mode=…)` where it has a mode); none for goldset's own metrics. */
  ragas_column?: string;
  kind: 'llm' | 'non_llm';
  /** The item fields a metric cannot do without; an item lacking one is skipped with that reason. */
  needs: ('ground_truth' | 'retrieved_contexts' | 'reference_contexts')[];
  uses_embeddings: boolean;
  steps: StepDefinition[];
  score(item: ScoringItem, ctx: { judge: Judge; prompts: Record<string, PromptInUse> }): Promise<ScoreResult>;
}
