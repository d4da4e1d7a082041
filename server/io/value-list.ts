/**
 * Label lists: a `human.<criterion>` cell of a per-context criterion holds one value per retrieved
 * context, in rank order, as goldset's export writes it (a JSON array, `[1, 0, null]`) or as pandas
 * writes a Python list (`[1, 0, None]`, `['yes', 'no', nan]`, `[1.0, 0.0, None]`). Items may be
 * quoted strings (Python or JSON quoting, see pylist.ts), numbers, booleans or a null (`null`,
 * `None`, `nan`, `NaN`, an empty string): a null is an unlabelled rank. Anything else throws a
 * ParseError that says where.
 */
import type { ListSyntaxReason } from './errors.ts';
import { ParseError, readString } from './pylist.ts';

export type LabelList = (string | null)[];

const NULLS = new Set(['null', 'none', 'nan']);
const WORD = /^[A-Za-z_]+|^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;

function fail(reason: ListSyntaxReason, s: string, index: number, detail: string): never {
  throw new ParseError(reason, [...s.slice(0, index)].length + 1, detail);
}

/** One JSON array item as a label value: strings as they are, numbers and booleans as text, null / '' as unlabelled. */
export function labelItem(v: unknown): string | null | undefined {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v.trim() === '' || NULLS.has(v.trim().toLowerCase()) ? null : v;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return undefined;
}

/** Parses a label list cell; the cell must be a `[...]` list. */
export function parseLabelList(text: string): LabelList {
  const s = text.trim();
  if (!s.startsWith('[')) fail('not_a_list', s, 0, "expected '[' at the start");
  try {
    const v = JSON.parse(s) as unknown;
    if (Array.isArray(v)) {
      const out = v.map(labelItem);
      if (out.every((x) => x !== undefined)) return out as LabelList;
    }
  } catch {
    // Not JSON: read it as a Python list literal below.
  }
  const out: LabelList = [];
  let i = 1;
  const ws = () => { while (i < s.length && /\s/.test(s[i]!)) i++; };
  for (;;) {
    ws();
    if (i >= s.length) fail('unterminated_list', s, i, "missing closing ']'");
    if (s[i] === ']') { i++; break; }
    const c = s[i]!;
    if (c === "'" || c === '"' || (/[uUrR]/.test(c) && (s[i + 1] === "'" || s[i + 1] === '"'))) {
      const [value, next] = readString(s, i);
      out.push(labelItem(value) as string | null);
      i = next;
    } else {
      const word = WORD.exec(s.slice(i))?.[0];
      if (!word) fail('expected_string', s, i, 'expected a value (a quoted string, a number, True/False or None)');
      const low = word.toLowerCase();
      if (NULLS.has(low)) out.push(null);
      else if (low === 'true' || low === 'false') out.push(low);
      else if (/^[+-]?[\d.]/.test(word)) out.push(String(Number(word)));
      else fail('expected_string', s, i, `unexpected word '${word}'`);
      i += word.length;
    }
    ws();
    if (i >= s.length) fail('unterminated_list', s, i, "missing closing ']'");
    if (s[i] === ',') { i++; continue; }
    if (s[i] === ']') { i++; break; }
    fail('expected_separator', s, i, "expected ',' or ']'");
  }
  ws();
  if (i < s.length) fail('trailing_text', s, i, "unexpected text after the closing ']'");
  return out;
}
