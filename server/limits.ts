// The one table of input limits. Every way data gets in — the web forms, the import normaliser that
// CSV, JSONL, JSON (and XLSX) rows pass through, the JSON API, the CLI, goldset JSONL restores —
// checks against these numbers, and the README lists them. They are sizes a real eval set never
// reaches: they exist so that one hostile or broken row cannot make every later page of a dataset
// cost more than a person can read (a 100,000,000-character question, a million contexts).
// Lengths are in characters as JavaScript counts them (UTF-16 code units: one per Chinese character).

import { hasTerminalControl } from './io/terminal-safe.ts';

export const LIMITS = {
  /** A sample's question. */
  question: 8_000,
  groundTruth: 20_000,
  /** What a system under test answered. */
  answer: 50_000,
  /** Each retrieved or reference context. */
  context: 20_000,
  /** Retrieved contexts of one response; reference contexts of one sample. */
  contexts: 100,
  tag: 60,
  /** Tags of one sample. */
  tags: 50,
  source: 200,
  notes: 8_000,
  /** The name of a system under test, and a response's model. */
  system: 200,
  /** Columns of an imported file (keys of one JSON record). */
  columns: 200,
  /** Criteria of one dataset (also the `human.<criterion>` columns of one file). */
  criteria: 50,
  criterionName: 60,
  /** The key of a custom metric. */
  metricKey: 60,
  /** The score columns typed into the import form (names separated by commas or lines). */
  scoreColumnList: 2_000,
  /** Options of a categorical criterion. */
  options: 20,
  /** Each option's value and label. */
  optionText: 200,
  guidelines: 8_000,
  /** One label value as written in a file or a form. */
  labelValue: 200,
  rationale: 8_000,
  correctedAnswer: 20_000,
  /** An adjudicator's reason. */
  reason: 4_000,
  /** A reviewer's note on a judge/expert disagreement. */
  note: 2_000,
  /** A judge prompt's instruction (and a custom rubric), its output format, its few-shot examples as JSON, a version's note. */
  promptInstruction: 50_000,
  promptFormat: 20_000,
  promptExamples: 500_000,
  promptNote: 500,
  /** Names of runs and API tokens; a person's name. */
  runName: 200,
  tokenName: 80,
  userName: 100,
  /** A password: at least passwordMin characters, at most password. */
  passwordMin: 10,
  password: 200,
  /** Values of an ordinal scale, from its lowest to its highest (1–5 is five). */
  scaleSteps: 10,
  /** A judge reply as stored in a score's trace (the score itself is computed from the whole reply). */
  judgeReply: 100_000,
  /** Each prompt message as stored in a score's trace. */
  storedPrompt: 200_000,
  /** Nesting of JSON bodies of the API and of JSON/JSONL import records. */
  jsonDepth: 32,
  /** Rows of one API request. */
  apiRows: 10_000,
  /** A search of a dataset's samples. */
  search: 200,
  datasetName: 120,
  description: 4_000,
  domain: 120,
  /** A release's tag (letters, digits, '.', '_', '-') and its note. */
  releaseTag: 80,
  releaseNote: 2_000,
  /** The last page number a paged list goes to (a query asking for another is page 1). */
  page: 100_000,
} as const;

export type LimitName = keyof typeof LIMITS;

/** What is wrong with one value: too long, too many items, or a NUL character (which SQLite's search index cannot hold). */
export type LimitProblem =
  | { code: 'too_long'; limit: number; length: number; item: number | null }
  | { code: 'too_many'; limit: number; count: number }
  | { code: 'nul_character'; item: number | null };

const NUL = '\u0000';

/** A text against a length limit; item is the 1-based position in a list, when the text is one. */
export function checkText(value: string, limit: number, item: number | null = null): LimitProblem | null {
  if (value.length > limit) return { code: 'too_long', limit, length: value.length, item };
  if (value.includes(NUL)) return { code: 'nul_character', item };
  return null;
}

/**
 * Whether a name's characters all show as themselves: none of the control characters and
 * bidirectional controls a terminal would act on (io/terminal-safe.ts), and no line feed either. A tab
 * is let through: it comes with names pasted from spreadsheets, and shows as space everywhere.
 */
export function isPlainName(value: string): boolean {
  return !value.includes('\n') && !hasTerminalControl(value);
}

/** What is wrong with a name: as with any text, or a control or text-direction character. */
export type NameProblem = LimitProblem | { code: 'control_character'; item: number | null };

/** A name (of a dataset, its domain, a criterion, a run, a system, a tag): one line of characters that show as themselves. */
export function checkName(value: string, limit: number, item: number | null = null): NameProblem | null {
  if (value.length <= limit && !isPlainName(value)) return { code: 'control_character', item };
  return checkText(value, limit, item);
}

/** A list of names (a sample's tags): at most `maxItems`, each a name of at most `maxEach` characters. */
export function checkNames(values: readonly string[], maxItems: number, maxEach: number): NameProblem | null {
  return checkList(values, maxItems, maxEach, checkName);
}

/** The message of a name's problem (err.*), for the field it is about. */
export function nameMessage(p: NameProblem): { key: 'err.limit_too_long' | 'err.nul_character' | 'err.name_control'; params: Record<string, number> } {
  switch (p.code) {
    case 'too_long': return { key: 'err.limit_too_long', params: { limit: p.limit, length: p.length } };
    case 'control_character': return { key: 'err.name_control', params: {} };
    default: return { key: 'err.nul_character', params: {} };
  }
}

/** A list of texts: at most `maxItems`, each at most `maxEach` characters (each checked by `checkOne`: checkText, or checkName). */
export function checkList(values: readonly string[], maxItems: number, maxEach: number,
  checkOne: (value: string, limit: number, item: number) => NameProblem | null = checkText): NameProblem | null {
  if (values.length > maxItems) return { code: 'too_many', limit: maxItems, count: values.length };
  for (let i = 0; i < values.length; i++) {
    const problem = checkOne(values[i]!, maxEach, i + 1);
    if (problem) return problem;
  }
  return null;
}

/** English text of a problem, for logs, the CLI and the API; the app translates from the fields. */
export function describeLimit(field: string, p: NameProblem): string {
  const item = 'item' in p && p.item !== null ? ` (item ${p.item})` : '';
  switch (p.code) {
    case 'too_long': return `${field}${item} has ${p.length} characters; the limit is ${p.limit}`;
    case 'too_many': return `${field} has ${p.count} items; the limit is ${p.limit}`;
    case 'nul_character': return `${field}${item} contains a NUL character, which goldset does not store`;
    case 'control_character': return `${field}${item} contains a control or text-direction character, which no name may hold`;
  }
}

/** The first `limit` characters of a text without cutting a surrogate pair, and whether anything was cut. */
export function clip(text: string, limit: number): { text: string; cut: boolean } {
  if (text.length <= limit) return { text, cut: false };
  const end = limit > 0 && /[\ud800-\udbff]/.test(text[limit - 1]!) ? limit - 1 : limit;
  return { text: text.slice(0, end), cut: true };
}

/**
 * Whether a JSON text nests deeper than `limit` (arrays and objects), found by scanning the text
 * without parsing it, so a hostile body is refused before any parser or serialiser recurses into it.
 * Works on the UTF-8 bytes as well: the bytes of `[{"\\]}` never occur inside a multi-byte character.
 */
export function jsonTooDeep(text: string | Uint8Array, limit: number): boolean {
  if (typeof text === 'string' && fewOpenings(text, limit)) return false;
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i]!;
  let depth = 0, inString = false;
  for (let i = 0, n = text.length; i < n; i++) {
    const c = at(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) { if (++depth > limit) return true; }
    else if (c === 93 || c === 125) depth--;
  }
  return false;
}

/** At most `limit` opening brackets in all: it cannot nest deeper (a quick native search, most texts stop here). */
function fewOpenings(text: string, limit: number): boolean {
  let n = 0;
  for (const c of ['[', '{']) {
    for (let i = text.indexOf(c); i !== -1; i = text.indexOf(c, i + 1)) if (++n > limit) return false;
  }
  return true;
}

/**
 * SQL for showing a stored JSON list of texts within the limits: the list as it is when it fits,
 * else its first `maxItems` items (json_each walks an array in order), each cut to `maxEach` characters. Pages use it so that data
 * stored before the limits existed (a million contexts) costs no more to show than the page shows.
 */
export function sqlClippedList(column: string, maxItems: number, maxEach: number): string {
  // A list whose whole JSON text is within `maxEach` characters has no item over it: the common case
  // costs no walk through the items.
  return `CASE WHEN json_array_length(${column}) <= ${maxItems}
      AND (length(${column}) <= ${maxEach} OR NOT EXISTS (SELECT 1 FROM json_each(${column}) WHERE length(value) > ${maxEach}))
    THEN ${column} ELSE (SELECT json_group_array(substr(value, 1, ${maxEach})) FROM (SELECT value FROM json_each(${column}) LIMIT ${maxItems})) END`;
}

/** SQL that is 1 when a stored JSON list of texts is over its limits. */
export function sqlListOverLimit(column: string, maxItems: number, maxEach: number): string {
  return `(json_array_length(${column}) > ${maxItems} OR EXISTS (SELECT 1 FROM json_each(${column}) WHERE length(value) > ${maxEach}))`;
}
