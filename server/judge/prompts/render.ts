// Turns a prompt template and one step's input into the chat messages sent to the judge.
//
// Layout: system = instruction, output format and the few-shot examples ("Input: {json}" /
// "Output: {json}" blocks); user = the step's input as JSON. Rendering is a pure function of
// (template, input), with no clock, randomness or key sorting surprises, so identical judge calls
// are byte-identical and the LLM cache can answer them.
//
// Placeholders: `{{name}}` in the instruction is replaced by the input's `name` field (strings as
// they are, lists of strings as a numbered list, anything else as JSON) in one pass, so text that
// itself contains `{{…}}` is never expanded again. Custom rubrics use {{question}}, {{answer}},
// {{ground_truth}} and {{contexts}}.

import type { JudgeMessage } from '../../llm/client.ts';
import type { Language, PromptTemplate } from '../types.ts';

export interface RenderOptions {
  /**
   * Which input fields the user message carries when the instruction uses placeholders.
   * - 'rest' (default): the fields the instruction did not use, as JSON; built-in steps never lose
   *   an input field even if an edited instruction quotes some of them.
   * - 'exclusive': none; a rubric whose instruction places {{question}} and {{answer}} shows the
   *   judge exactly those. An instruction without placeholders still gets every field as JSON.
   */
  placeholders?: 'rest' | 'exclusive';
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

// Every word around the prompt's own text is in the prompt's language.
const WORDS: Record<Language, { examples: string; input: string; output: string; none: string; evaluate: string }> = {
  en: { examples: 'Examples:', input: 'Input: ', output: 'Output: ', none: '(none)',
    evaluate: 'Evaluate the item given in the instructions above (the examples only illustrate the task). Reply with the JSON object only.' },
  zh: { examples: '示例：', input: '输入：', output: '输出：', none: '（无）', evaluate: '请评估上面说明中给出的内容（示例仅作参考），只输出 JSON 对象。' },
};

/** "1. first\n2. second"; an empty list reads "(none)" so the judge is not left guessing. */
export function numberedList(items: readonly string[], language: Language = 'en'): string {
  if (items.length === 0) return WORDS[language].none;
  return items.map((s, i) => `${i + 1}. ${s}`).join('\n');
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** A field's text inside an instruction. */
export function placeholderText(value: unknown, language: Language): string {
  if (typeof value === 'string') return value;
  if (isStringList(value)) return numberedList(value, language);
  return toJson(value);
}

function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** Replace `{{field}}` for fields present in `input`; unknown placeholders stay as written. */
export function fillPlaceholders(
  text: string,
  input: Record<string, unknown>,
  language: Language,
): { text: string; used: Set<string> } {
  const used = new Set<string>();
  const filled = text.replace(PLACEHOLDER, (whole, name: string) => {
    if (!Object.hasOwn(input, name)) return whole;
    used.add(name);
    return placeholderText(input[name], language);
  });
  return { text: filled, used };
}

function renderExamples(template: PromptTemplate): string {
  if (template.examples.length === 0) return '';
  const w = WORDS[template.language];
  const blocks = template.examples.map((ex) => `${w.input}${toJson(ex.input)}\n${w.output}${toJson(ex.output)}`);
  return `${WORDS[template.language].examples}\n\n${blocks.join('\n\n')}`;
}

/** The system prompt alone (instruction with placeholders filled, output format, examples). */
export function renderSystem(template: PromptTemplate, input: Record<string, unknown>): { content: string; used: Set<string> } {
  const { text, used } = fillPlaceholders(template.instruction, input, template.language);
  const parts = [text, template.output_format, renderExamples(template)].filter((p) => p.trim() !== '');
  return { content: parts.join('\n\n'), used };
}

export function renderPrompt(template: PromptTemplate, input: Record<string, unknown>, options: RenderOptions = {}): JudgeMessage[] {
  const { content: system, used } = renderSystem(template, input);
  const exclusive = (options.placeholders ?? 'rest') === 'exclusive' && used.size > 0;
  const rest = exclusive ? [] : Object.keys(input).filter((k) => !used.has(k));
  const user = rest.length === 0
    ? WORDS[template.language].evaluate
    : `${WORDS[template.language].input}${toJson(Object.fromEntries(rest.map((k) => [k, input[k]])))}`;
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}
