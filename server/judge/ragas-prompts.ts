// A metric's prompts as the files Ragas's PromptMixin metrics save and load: one JSON file per
// prompt, named `{metric.name}_{prompt key}_{language}.json` (save_prompts), holding ragas_version,
// original_hash, language, instruction and examples [{input, output}] whose fields validate against
// that prompt's pydantic models (facts measured with Ragas 0.4.3, test/fixtures/ragas-0.4.3/prompts.json).
// `metric.load_prompts(dir, language)` then `metric.set_prompts(**loaded)` takes them.
//
// goldset's steps map onto Ragas's prompts; only field names differ (the statements step's `text` is
// Ragas's `answer`, context recall's `reference` its `answer`, answer relevancy's `answer` its
// `response`; goldset's `variant` has no Ragas field). Ragas builds the JSON-format part of the prompt
// from its output model, so goldset's output-format text is appended to the instruction.
// Custom rubric metrics are written in the same layout under their own name with the prompt key
// `rubric_prompt` (no Ragas class reads them as they are; a PydanticPrompt subclass with these
// fields does).
import type { MetricDefinition, PromptExample, PromptInUse, StepDefinition } from './types.ts';

export const RAGAS_VERSION = '0.4.3';

type Fields = Record<string, unknown>;

interface RagasStep { key: string; input: (i: Fields) => Fields }

interface RagasMetric { names: string[]; steps: Record<string, RagasStep> }

const statements: RagasStep = { key: 'statement_generator_prompt', input: (i) => ({ question: i.question, answer: i.text }) };
const verify: RagasStep = { key: 'context_precision_prompt', input: (i) => ({ question: i.question, context: i.context, answer: i.answer }) };

/** goldset metric → the Ragas metric names whose load_prompts reads these files, and each step's Ragas prompt. */
const RAGAS_METRICS: Record<string, RagasMetric> = {
  answer_correctness: { names: ['answer_correctness'], steps: {
    statements,
    classify: { key: 'correctness_classifier', input: (i) => ({ question: i.question, answer: i.answer, ground_truth: i.ground_truth }) },
  } },
  faithfulness: { names: ['faithfulness'], steps: {
    statements,
    nli: { key: 'n_l_i_statement_prompt', input: (i) => ({ context: i.context, statements: i.statements }) },
  } },
  // Ragas's ContextPrecision and LLMContextPrecisionWithReference load the same prompt, each under its own name.
  context_precision: { names: ['context_precision', 'llm_context_precision_with_reference'], steps: { verify } },
  context_precision_without_reference: { names: ['llm_context_precision_without_reference', 'context_utilization'], steps: { verify } },
  context_recall: { names: ['context_recall'], steps: {
    attribute: { key: 'context_recall_classification_prompt', input: (i) => ({ question: i.question, context: i.context, answer: i.reference }) },
  } },
  answer_relevancy: { names: ['answer_relevancy'], steps: {
    questions: { key: 'response_relevance_prompt', input: (i) => ({ response: i.answer }) },
  } },
};

/** A custom rubric's input under the names of Ragas's sample fields. */
const rubric: RagasStep = {
  key: 'rubric_prompt',
  input: (i) => ({
    user_input: i.question, response: i.answer,
    ...(i.ground_truth !== undefined ? { reference: i.ground_truth } : {}),
    ...(i.contexts !== undefined ? { retrieved_contexts: i.contexts } : {}),
  }),
};

export type RagasLanguage = 'english' | 'chinese';

export interface PromptFile { name: string; content: string }

export interface ExportedStep {
  step: string;
  ragas_prompt: string;
  language: RagasLanguage;
  files: string[];
  examples: number;
  /** Stored examples that do not fit the step's schema (an older version's): left out of the file. */
  skipped_examples: number[];
}

/** The Ragas names a goldset metric's prompt files are written under; a custom metric keeps its key. */
export function ragasMetricNames(metric: MetricDefinition): string[] {
  return RAGAS_METRICS[metric.key]?.names ?? [metric.key];
}

function ragasStep(metric: MetricDefinition, step: string): RagasStep | null {
  const known = RAGAS_METRICS[metric.key];
  if (known) return known.steps[step] ?? null;
  return step === 'rubric' ? rubric : null;
}

/** An example as Ragas's models dump it: fields in model order (the step's schema gives Ragas's order), verdicts as integers. */
function ragasExample(step: StepDefinition, mapping: RagasStep, example: PromptExample): { input: Fields; output: unknown } | null {
  const input = step.input.safeParse(example.input);
  const output = step.output.safeParse(example.output);
  if (!input.success || !output.success) return null;
  return { input: mapping.input(input.data), output: output.data };
}

/** The prompt files of a metric's prompts in use (one per step and Ragas name), or null when it has no prompt Ragas can load. */
export function ragasPromptFiles(metric: MetricDefinition, prompts: Record<string, PromptInUse>): { files: PromptFile[]; steps: ExportedStep[] } | null {
  if (metric.steps.length === 0) return null;
  const files: PromptFile[] = [];
  const steps: ExportedStep[] = [];
  for (const step of metric.steps) {
    const mapping = ragasStep(metric, step.step);
    const prompt = prompts[step.step];
    if (!mapping || !prompt) return null;
    const language: RagasLanguage = prompt.language === 'zh' ? 'chinese' : 'english';
    const skipped: number[] = [];
    const examples = prompt.examples.flatMap((e, i) => {
      const mapped = ragasExample(step, mapping, e);
      if (!mapped) skipped.push(i + 1);
      return mapped ? [mapped] : [];
    });
    const instruction = [prompt.instruction, prompt.output_format].filter((t) => t.trim() !== '').join('\n\n');
    // Key order as save_prompts writes it; original_hash null: Ragas then skips its edit check.
    const content = `${JSON.stringify({ ragas_version: RAGAS_VERSION, original_hash: null, language, instruction, examples }, null, 2)}\n`;
    const names = ragasMetricNames(metric).map((name) => `${name}_${mapping.key}_${language}.json`);
    for (const name of names) files.push({ name, content });
    steps.push({ step: step.step, ragas_prompt: mapping.key, language, files: names, examples: examples.length, skipped_examples: skipped });
  }
  return { files, steps };
}
