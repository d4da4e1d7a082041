/**
 * Parser for list-valued cells in imported files.
 *
 * When a pandas DataFrame with list columns (Ragas `retrieved_contexts`, `reference_contexts`, …)
 * is saved with `to_csv`, each list is written as Python `repr(list)`: `['a', "it's", 'x\\ny']`.
 * Hand-made files often use JSON arrays instead. This module accepts both, and nothing else:
 * silently guessing at a malformed cell would corrupt contexts, so anything that is not a list of
 * strings throws a `ParseError` that says what is wrong and where.
 *
 * Accepted: `[...]` or a tuple `(...)`; items are single- or double-quoted strings with an
 * optional `u`/`r` prefix; Python escapes \\ \' \" \n \t \r \a \b \f \v \ooo \xNN \uNNNN
 * \UNNNNNNNN and backslash-newline; whitespace (including newlines) anywhere between tokens; a
 * trailing comma. As in Python, an unknown escape such as `\d` keeps its backslash.
 * Rejected: `\N{NAME}` (would need the Unicode name table), bytes literals, non-string items
 * (numbers, None), adjacent-literal concatenation, and numpy's comma-less `['a' 'b']` output.
 * Lenient on purpose: a raw line break inside a quoted item is kept (Excel users type them).
 */
import type { ListSyntaxReason } from './errors.ts';

export class ParseError extends Error {
  override readonly name = 'ParseError';
  /**
   * @param reason machine-readable cause, for translated messages
   * @param position 1-based character (code point) position in the cell, as an editor shows it
   */
  constructor(
    readonly reason: ListSyntaxReason,
    readonly position: number,
    readonly detail: string,
  ) {
    super(`${detail} at position ${position}`);
  }
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\f', '\v']);

function skipWs(s: string, i: number): number {
  while (i < s.length && WHITESPACE.has(s[i] as string)) i++;
  return i;
}

function fail(reason: ListSyntaxReason, s: string, index: number, detail: string): never {
  // Count code points so an emoji before the error does not shift the reported position.
  const position = [...s.slice(0, index)].length + 1;
  throw new ParseError(reason, position, detail);
}

/**
 * Parses a list cell strictly. An empty (or whitespace-only) cell is `[]`, because that is how
 * pandas writes a missing list (None/NaN); any other non-list text throws.
 */
export function parseListCell(text: string): string[] {
  const start = skipWs(text, 0);
  if (start === text.length) return [];
  // Fast path and exact JSON semantics (e.g. `\/`) for cells that are valid JSON arrays.
  if (text[start] === '[') {
    try {
      const value: unknown = JSON.parse(text);
      if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    } catch {
      // Not JSON: parse as a Python literal below, which also gives precise error positions.
    }
  }
  return parsePythonList(text, start);
}

/**
 * For columns where a plain text cell means "one item". A cell starting with `[` is always
 * parsed strictly: it is meant as a list, so a malformed one is an error, not a single item.
 * A cell wrapped in `(...)` is a tuple if it parses as one, otherwise plain text.
 */
export function parseListCellLenient(text: string): string[] {
  const t = text.trim();
  if (t === '') return [];
  if (t.startsWith('[')) return parseListCell(text);
  if (t.startsWith('(') && t.endsWith(')')) {
    try {
      return parseListCell(text);
    } catch {
      // "(see section 3)" is text, not a broken tuple.
    }
  }
  return [text];
}

function parsePythonList(s: string, start: number): string[] {
  const open = s[start];
  if (open !== '[' && open !== '(') fail('not_a_list', s, start, "expected '[' at the start");
  const close = open === '[' ? ']' : ')';
  const items: string[] = [];
  let i = start + 1;
  for (;;) {
    i = skipWs(s, i);
    if (i >= s.length) fail('unterminated_list', s, i, `missing closing '${close}'`);
    const c = s[i];
    if (c === close) {
      i++;
      break;
    }
    if (c === ']' || c === ')') fail('mismatched_bracket', s, i, `expected '${close}' but found '${c}'`);
    const [value, next] = readString(s, i);
    items.push(value);
    i = skipWs(s, next);
    if (i >= s.length) fail('unterminated_list', s, i, `missing closing '${close}'`);
    const sep = s[i];
    if (sep === ',') {
      i++;
      continue;
    }
    if (sep === close) {
      i++;
      break;
    }
    if (sep === ']' || sep === ')') fail('mismatched_bracket', s, i, `expected '${close}' but found '${sep}'`);
    if (sep === "'" || sep === '"') {
      // numpy prints arrays as ['a' 'b']; the fix is on the exporting side.
      fail('expected_separator', s, i, "expected ',' between items (numpy arrays print without commas; save lists with .tolist())");
    }
    fail('expected_separator', s, i, `expected ',' or '${close}'`);
  }
  i = skipWs(s, i);
  if (i < s.length) fail('trailing_text', s, i, `unexpected text after the closing '${close}'`);
  return items;
}

/** Reads one quoted string literal at `i`; returns its value and the index after it. */
export function readString(s: string, i: number): [string, number] {
  let j = i;
  while (j < s.length && j - i < 2 && /[a-zA-Z]/.test(s[j] as string)) j++;
  const prefix = s.slice(i, j).toLowerCase();
  const quote = s[j];
  if (quote !== "'" && quote !== '"') fail('expected_string', s, i, 'expected a quoted string');
  if (prefix.includes('b')) fail('bytes_literal', s, i, 'bytes literals (b\'…\') are not supported');
  if (prefix !== '' && prefix !== 'u' && prefix !== 'r') fail('expected_string', s, i, `unsupported string prefix '${prefix}'`);
  const raw = prefix === 'r';

  const parts: string[] = [];
  let k = j + 1;
  let runStart = k;
  while (k < s.length) {
    const ch = s[k];
    if (ch === quote) {
      parts.push(s.slice(runStart, k));
      return [parts.join(''), k + 1];
    }
    if (ch !== '\\') {
      k++;
      continue;
    }
    parts.push(s.slice(runStart, k));
    if (k + 1 >= s.length) break;
    if (raw) {
      // In raw strings a backslash only stops the next char from closing the string; both stay.
      parts.push(s.slice(k, k + 2));
      k += 2;
    } else {
      k = readEscape(s, k, parts);
    }
    runStart = k;
  }
  return fail('unterminated_string', s, i, 'unterminated string (no closing quote)');
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '',
};

/** Decodes the escape starting at the backslash `s[k]`, appends it to `parts`, returns the next index. */
function readEscape(s: string, k: number, parts: string[]): number {
  const e = s[k + 1] as string;
  const simple = SIMPLE_ESCAPES[e];
  if (simple !== undefined) {
    parts.push(simple);
    return k + 2;
  }
  if (e === '\r') return s[k + 2] === '\n' ? k + 3 : k + 2; // backslash + CRLF continuation
  if (e >= '0' && e <= '7') {
    let end = k + 1;
    while (end < s.length && end < k + 4 && /[0-7]/.test(s[end] as string)) end++;
    parts.push(String.fromCodePoint(parseInt(s.slice(k + 1, end), 8)));
    return end;
  }
  const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
  if (width > 0) {
    const hex = s.slice(k + 2, k + 2 + width);
    const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === width ? parseInt(hex, 16) : NaN;
    if (!(code <= 0x10ffff)) fail('bad_escape', s, k, `invalid escape \\${e}${hex}: expected ${width} hex digits`);
    parts.push(String.fromCodePoint(code));
    return k + 2 + width;
  }
  if (e === 'N') fail('unsupported_escape', s, k, 'named escapes \\N{…} are not supported; use \\uXXXX');
  // Python keeps unknown escapes verbatim (with a warning); so do we.
  parts.push(s.slice(k, k + 2));
  return k + 2;
}
