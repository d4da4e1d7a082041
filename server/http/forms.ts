// Form parsing with zod: messages are catalogue keys, translated when the form is rendered again.
import { z } from 'zod';
import type { MessageKey, T } from '../i18n/index.ts';
import { en } from '../i18n/en.ts';

export type FieldErrors = Record<string, string>;

export type Parsed<S extends z.ZodType> = { ok: true; data: z.output<S> } | { ok: false; errors: FieldErrors };

function isMessageKey(value: string): value is MessageKey {
  return Object.hasOwn(en, value);
}

export function parseForm<S extends z.ZodType>(schema: S, input: unknown, t: T): Parsed<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return { ok: true, data: result.data };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? '_form');
    if (errors[field]) continue;
    errors[field] = isMessageKey(issue.message) ? t(issue.message) : t('err.invalid');
  }
  return { ok: false, errors };
}

/** A text field: trimmed; an optional one (min 0) may also be left out of the form entirely. */
export function text(max: number, min = 0) {
  const field = z.string({ error: 'err.required' }).trim()
    .min(min, { error: 'err.required' })
    .max(max, { error: 'err.too_long' });
  return min > 0 ? field : field.default('');
}

/** Newline-separated list (one context per block separated by a blank line, or one tag per comma). */
export function splitBlocks(value: string): string[] {
  return value.split(/\r?\n\s*\r?\n/).map((s) => s.trim()).filter(Boolean);
}

export function splitTags(value: string): string[] {
  return [...new Set(value.split(/[,，;；\n]/).map((s) => s.trim()).filter(Boolean))];
}
