// Form parsing with zod: messages are catalogue keys, translated when the form is rendered again.
import { z } from 'zod';
import type { MessageKey, T } from '../i18n/index.ts';
import { en } from '../i18n/en.ts';
import { checkList, checkNames, isPlainName, LIMITS } from '../limits.ts';

export type FieldErrors = Record<string, string>;

export type Parsed<S extends z.ZodType> = { ok: true; data: z.output<S> } | { ok: false; errors: FieldErrors };

function isMessageKey(value: string): value is MessageKey {
  return Object.hasOwn(en, value);
}

/** Schemas of hidden fields (see `hidden`). */
const HIDDEN = new WeakSet<z.ZodType>();

/**
 * Marks a form field's schema as a hidden input's (a version, the thing the form is about): what the
 * page put there, not what the person typed, and nothing the page could show a message beside. When
 * it is refused (a hand-made request, a page altered), parseForm says so for the whole form (`_form`,
 * which every form shows), instead of under a field nobody sees. Wrap the field's whole schema.
 */
export function hidden<S extends z.ZodType>(schema: S): S {
  HIDDEN.add(schema);
  return schema;
}

const isHidden = (schema: z.ZodType, field: string): boolean =>
  schema instanceof z.ZodObject && HIDDEN.has((schema.shape as Record<string, z.ZodType>)[field]!);

export function parseForm<S extends z.ZodType>(schema: S, input: unknown, t: T): Parsed<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return { ok: true, data: result.data };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? '_form');
    // A hidden field's refusal is the form's: said with the form's other refusals at its top.
    if (isHidden(schema, field)) {
      errors._form ??= t('err.form_data');
      continue;
    }
    if (errors[field]) continue;
    // A field of the wrong type comes from a hand-made request: a form field sent more than once
    // arrives as a list, and a JSON body may hold anything. Said as what it is, not as "required".
    const sent = issue.code === 'invalid_type' && issue.path.length === 1 ? (input as Record<string, unknown> | null)?.[field] : undefined;
    if (sent !== undefined && sent !== null) {
      errors[field] = t(Array.isArray(sent) ? 'err.sent_twice' : 'err.invalid');
      continue;
    }
    // A text over its limit says what the limit is (server/limits.ts).
    if (issue.code === 'too_big' && issue.origin === 'string' && issue.message === 'err.too_long') errors[field] = t('err.too_long_limit', { limit: Number(issue.maximum) });
    else {
      // A custom issue carries its message's values; a value over or under its limit, the limit.
      const params = issue.code === 'custom' ? (issue.params as Record<string, string | number> | undefined)
        : issue.code === 'too_big' ? { limit: Number(issue.maximum) } : issue.code === 'too_small' ? { limit: Number(issue.minimum) } : undefined;
      errors[field] = isMessageKey(issue.message) ? t(issue.message, params) : t('err.invalid');
    }
  }
  return { ok: false, errors };
}

/**
 * The fields of a refused form as its page shows them again: texts only. A browser sends each of a
 * form's text fields once; a field sent more than once (a hand-made request) shows its first value, and
 * a value that is not a text is left out, so that no view is given a list where it shows a text.
 */
export function sentValues(body: unknown): Record<string, string> {
  const values: Record<string, string> = {};
  if (body === null || typeof body !== 'object') return values;
  for (const [name, value] of Object.entries(body)) {
    const first: unknown = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') values[name] = first;
  }
  return values;
}

/** A list's page number in a query string: a whole number from 1 to LIMITS.page; anything else (a list, 1.5, 1e309) is page 1. */
export const pageNumber = z.coerce.number().int().min(1).max(LIMITS.page).catch(1);

/**
 * A text field: trimmed, at most `max` characters (take `max` from server/limits.ts), no NUL
 * character; an optional one (min 0) may also be left out of the form entirely.
 */
export function text(max: number, min = 0) {
  const field = z.string({ error: 'err.required' }).trim()
    .min(min, { error: 'err.required' })
    .max(max, { error: 'err.too_long' })
    .refine((s) => !s.includes('\u0000'), { error: 'err.nul_character' });
  return min > 0 ? field : field.default('');
}

/** A name field (of a dataset, a person, a token): a text field whose characters all show as themselves (limits.ts checkName). */
export function nameText(max: number, min = 0) {
  const field = z.string({ error: 'err.required' }).trim()
    .min(min, { error: 'err.required' })
    .max(max, { error: 'err.too_long' })
    .refine(isPlainName, { error: 'err.name_control' });
  return min > 0 ? field : field.default('');
}

/**
 * A list field (one item per block or per tag): at most `maxItems` items of at most `maxEach` characters;
 * `check` checkNames for a list of names (tags).
 */
export function listOf(split: (value: string) => string[], maxItems: number, maxEach: number, check: typeof checkNames = checkList) {
  return z.string({ error: 'err.invalid' }).default('').transform(split).superRefine((items, c) => {
    const problem = check(items, maxItems, maxEach);
    if (problem?.code === 'too_many') c.addIssue({ code: 'custom', message: 'err.limit_items', params: { limit: maxItems } });
    else if (problem?.code === 'too_long') c.addIssue({ code: 'custom', message: 'err.limit_item_long', params: { limit: maxEach, item: problem.item ?? 0 } });
    else if (problem?.code === 'control_character') c.addIssue({ code: 'custom', message: 'err.name_control' });
    else if (problem) c.addIssue({ code: 'custom', message: 'err.nul_character' });
  });
}

/** Newline-separated list (one context per block separated by a blank line, or one tag per comma). */
export function splitBlocks(value: string): string[] {
  return value.split(/\r?\n\s*\r?\n/).map((s) => s.trim()).filter(Boolean);
}

export function splitTags(value: string): string[] {
  return [...new Set(value.split(/[,，;；\n]/).map((s) => s.trim()).filter(Boolean))];
}
