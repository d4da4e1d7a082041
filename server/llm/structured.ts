// Structured (JSON) output plumbing for judge calls: build the response_format for either mode,
// parse a reply leniently (models love ``` fences), validate it with zod, and phrase the single
// repair request that goes back to the model when the reply does not fit. Every sentence the judge
// reads here is in the prompt's language (English or Chinese), so a Chinese prompt stays Chinese.

import { z } from 'zod';
import type { ZodType } from 'zod';
import type { StructuredOutputMode } from './presets.ts';
import { clip } from '../limits.ts';

export interface JudgeMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The language of a prompt, which its scaffolding (schema line, repair turn) follows. */
export type ScaffoldLanguage = 'en' | 'zh';

const SCAFFOLD = {
  en: {
    schema: (name: string) => `Respond with a single JSON object only, no prose, that conforms to this JSON Schema (${name}):`,
    empty: 'The reply was empty.',
    notJson: (detail: string) => `The reply is not valid JSON (${detail}).`,
    notSchema: 'The reply does not match the schema:',
    repair: (problem: string) => `Your previous reply could not be used. ${problem}
Reply again with only the corrected JSON object, matching the required schema exactly, with no other text.`,
  },
  zh: {
    schema: (name: string) => `只输出一个 JSON 对象，不要任何其他文字；它必须符合下面的 JSON 格式定义（${name}）：`,
    empty: '回复是空的。',
    notJson: () => '回复不是有效的 JSON。',
    notSchema: '回复不符合要求的格式：',
    repair: (problem: string) => `你上一次的回复无法使用。${problem}
请重新回复：只输出修正后的 JSON 对象，严格符合要求的格式，不要有任何其他文字。`,
  },
} as const;

/** zod's Chinese messages name JSON types in English; the judge reads them in Chinese. */
const ZH_TYPES: Record<string, string> = { string: '文本', number: '数字', int: '整数', boolean: '布尔值', object: '对象', array: '数组', undefined: '缺失', null: '空值', nan: 'NaN' };

function zhIssues(error: z.ZodError): string {
  return error.issues.map((issue) => {
    const message = issue.message.replace(/\b(string|number|int|boolean|object|array|undefined|null|nan)\b/g, (w) => ZH_TYPES[w] ?? w);
    const where = issue.path.length ? `（位置：${issue.path.map(String).join('.')}）` : '';
    return `✖ ${message}${where}`;
  }).join('\n');
}

export type ResponseFormat =
  | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; strict: boolean } }
  | { type: 'json_object' };

const jsonSchemas = new WeakMap<ZodType, Record<string, unknown>>();

/** Computed once per schema: every call of a step sends the same one. */
export function toJsonSchema(schema: ZodType): Record<string, unknown> {
  let cached = jsonSchemas.get(schema);
  if (!cached) {
    // `$schema` is noise to the endpoint and some strict validators reject unknown top-level keys.
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
    cached = rest;
    jsonSchemas.set(schema, cached);
  }
  return cached;
}

/**
 * OpenAI's strict mode only accepts schemas whose objects are closed (additionalProperties: false)
 * and list every property as required. zod's optional fields break that, so we send strict only
 * when the schema qualifies rather than have the endpoint reject the whole call with a 400.
 */
export function isStrictCompatible(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(isStrictCompatible);
  if (typeof node !== 'object' || node === null) return true;
  const n = node as Record<string, unknown>;
  const props = n['properties'];
  if (n['type'] === 'object' || props !== undefined) {
    if (n['additionalProperties'] !== false) return false;
    const keys = typeof props === 'object' && props !== null ? Object.keys(props) : [];
    const required = Array.isArray(n['required']) ? n['required'] : [];
    if (!keys.every((k) => required.includes(k))) return false;
  }
  return Object.values(n).every(isStrictCompatible);
}

/** OpenAI requires names matching [a-zA-Z0-9_-]{1,64}. */
export function safeSchemaName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return cleaned.length > 0 ? cleaned : 'judge_output';
}

export interface PreparedRequest {
  messages: JudgeMessage[];
  responseFormat: ResponseFormat;
}

export function prepareStructured(messages: JudgeMessage[], schema: ZodType, schemaName: string, mode: StructuredOutputMode,
  language: ScaffoldLanguage = 'en'): PreparedRequest {
  const jsonSchema = toJsonSchema(schema);
  if (mode === 'json_schema') {
    return {
      messages,
      responseFormat: { type: 'json_schema', json_schema: { name: safeSchemaName(schemaName), schema: jsonSchema, strict: isStrictCompatible(jsonSchema) } },
    };
  }
  // json_object mode only guarantees "some JSON object" (and OpenAI insists the word JSON appears
  // in the prompt), so the schema travels in the system prompt instead.
  const instruction = `${SCAFFOLD[language].schema(safeSchemaName(schemaName))}\n` + '```json\n' + JSON.stringify(jsonSchema, null, 2) + '\n```';
  const out = messages.map((m) => ({ ...m }));
  const firstSystem = out.find((m) => m.role === 'system');
  if (firstSystem) firstSystem.content = `${firstSystem.content}\n\n${instruction}`;
  else out.unshift({ role: 'system', content: instruction });
  return { messages: out, responseFormat: { type: 'json_object' } };
}

export type ParseOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; kind: 'unparseable' | 'schema'; message: string };

/** Accept the JSON with surrounding whitespace or one ```json fence; anything else is unparseable. */
export function extractJson(raw: string, language: ScaffoldLanguage = 'en'): { ok: true; value: unknown } | { ok: false; message: string } {
  let text = raw.trim();
  const fence = /^```(?:json|JSON)?\s*\n?([\s\S]*?)\n?```$/.exec(text);
  if (fence?.[1] !== undefined) text = fence[1].trim();
  if (text.length === 0) return { ok: false, message: SCAFFOLD[language].empty };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    // The parser's own words are English: a Chinese judge gets the plain statement only.
    return { ok: false, message: SCAFFOLD[language].notJson(err instanceof Error ? err.message : String(err)) };
  }
}

export function parseAndValidate<T>(raw: string, schema: ZodType<T>, language: ScaffoldLanguage = 'en'): ParseOutcome<T> {
  const parsed = extractJson(raw, language);
  if (!parsed.ok) return { ok: false, kind: 'unparseable', message: parsed.message };
  const result = language === 'zh' ? schema.safeParse(parsed.value, { error: z.locales.zhCN().localeError }) : schema.safeParse(parsed.value);
  if (!result.success) {
    const issues = language === 'zh' ? zhIssues(result.error) : z.prettifyError(result.error);
    return { ok: false, kind: 'schema', message: `${SCAFFOLD[language].notSchema}\n${clip(issues, 2000).text}` };
  }
  return { ok: true, value: result.data };
}

/** The one repair turn: show the model its own output and what was wrong with it. */
export function repairMessages(messages: JudgeMessage[], badOutput: string, problem: string, language: ScaffoldLanguage = 'en'): JudgeMessage[] {
  return [
    ...messages,
    { role: 'assistant', content: badOutput },
    { role: 'user', content: SCAFFOLD[language].repair(problem) },
  ];
}
