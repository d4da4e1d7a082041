/**
 * Import errors: a stable code plus typed params per code, and a default English message.
 *
 * The app translates errors itself (English and 简体中文) from `code` + `params`, so params carry
 * everything a translated message needs; `message` is only the English fallback used in logs,
 * the CLI and tests. `detail` params are English text from a parser (JSON.parse, csv-parse) that
 * cannot be translated reliably; translations should show them verbatim, if at all.
 */
import { englishCount } from '../i18n/english-count.ts';

/** How `line` counts: CSV data rows with the header as row 1, or physical lines of a JSON(L) file. */
export type LineUnit = 'row' | 'line';

/** JSON type names used when a value has the wrong type. */
export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

/** Why a list cell did not parse (see pylist.ts). */
export type ListSyntaxReason =
  | 'not_a_list'
  | 'unterminated_list'
  | 'unterminated_string'
  | 'expected_string'
  | 'expected_separator'
  | 'mismatched_bracket'
  | 'trailing_text'
  | 'bad_escape'
  | 'unsupported_escape'
  | 'bytes_literal';

export type RowErrorDetail =
  // File level (line 0): the file cannot be read as an import at all.
  | { code: 'unknown_format'; params: { filename: string } }
  | { code: 'file_too_large'; params: { bytes: number; limit: number } }
  | { code: 'not_an_array'; params: { got: JsonKind } }
  | { code: 'not_xlsx'; params: { detail: string } }
  | { code: 'no_sheet'; params: { sheet: string; sheets: string[] } }
  // Structure of one row / line.
  | { code: 'missing_column'; params: { accepted: string[] } }
  | { code: 'csv_syntax'; params: { csvCode: string; detail: string; fileLine: number | null } }
  | { code: 'column_count'; params: { expected: number; actual: number } }
  | { code: 'not_utf8'; params: Record<string, never> }
  | { code: 'invalid_json'; params: { detail: string } }
  | { code: 'not_an_object'; params: { got: JsonKind } }
  // Values of one column in one row.
  | { code: 'missing_value'; params: { accepted: string[]; present: boolean } }
  | { code: 'not_a_list'; params: { reason: ListSyntaxReason | 'item_not_string'; position: number | null; detail: string } }
  | { code: 'not_a_string'; params: { got: JsonKind } }
  | { code: 'not_a_number'; params: { value: string } }
  | { code: 'out_of_range'; params: { value: string; allowed: string } }
  | { code: 'invalid_value'; params: { detail: string } }
  // Over one of goldset's input limits (server/limits.ts); `item` is the 1-based item of a list cell.
  | { code: 'too_long'; params: { limit: number; length: number; item: number | null } }
  | { code: 'too_many'; params: { limit: number; count: number; what: 'items' | 'columns' | 'label_columns' } }
  | { code: 'nul_character'; params: { item: number | null } }
  | { code: 'control_character'; params: { item: number | null } }
  | { code: 'too_deep'; params: { limit: number } };

export type RowErrorCode = RowErrorDetail['code'];

/**
 * `line` is 0 for file-level errors. `field` is the column / key as written in the file (so the
 * user can find it), or a goldset field name when the column does not exist at all.
 */
export type RowError = RowErrorDetail & {
  line: number;
  unit: LineUnit;
  field: string | null;
  message: string;
};

export function jsonKind(value: unknown): JsonKind {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  const t = typeof value;
  if (t === 'string' || t === 'number' || t === 'boolean') return t;
  return 'object';
}

export function rowError(
  detail: RowErrorDetail,
  at: { line: number; unit: LineUnit; field?: string | null },
): RowError {
  const base = { ...detail, line: at.line, unit: at.unit, field: at.field ?? null };
  return { ...base, message: describeError(base) };
}

const KIND_TEXT: Record<JsonKind, string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  boolean: 'true/false',
  null: 'null',
};

function quoteList(names: readonly string[]): string {
  return names.map((n) => `'${n}'`).join(' or ');
}

function shorten(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`;
}

/** Default English message; the prefix names the row/line so the user can find it. */
export function describeError(e: RowErrorDetail & { line: number; unit: LineUnit; field: string | null }): string {
  const at = e.line > 0 ? `${e.unit} ${e.line}: ` : '';
  // CSV has columns; JSON/JSONL has keys, which users call fields.
  const col = `${e.unit === 'row' ? 'column' : 'field'} '${e.field ?? ''}'`;
  switch (e.code) {
    case 'unknown_format':
      return `cannot tell the format of '${e.params.filename}': use a .csv, .jsonl, .json or .xlsx file (an old .xls workbook: save it as .xlsx)`;
    case 'file_too_large':
      return `${at}a single JSON value of ${megabytes(e.params.bytes)} is larger than the ${megabytes(e.params.limit)} limit; export a JSON array of records or JSONL (one object per line) instead`;
    case 'not_an_array':
      return `expected a JSON array of objects ([{…}, {…}]), found ${KIND_TEXT[e.params.got]}`;
    case 'not_xlsx':
      return `cannot read the workbook: ${e.params.detail}; save it again as an Excel workbook (.xlsx)`;
    case 'no_sheet':
      return `the workbook has no sheet named '${e.params.sheet}'; its sheets: ${e.params.sheets.map((n) => `'${n}'`).join(', ') || 'none'}`;
    case 'missing_column':
      return `${at}no question column: add a column named ${quoteList(e.params.accepted)}`;
    case 'csv_syntax': {
      const where = e.params.fileLine !== null ? ` (near line ${e.params.fileLine} of the file)` : '';
      return `${at}CSV syntax error: ${e.params.detail}${where}; the rest of the file was not read`;
    }
    case 'column_count':
      return `${at}has ${englishCount(e.params.actual, 'cell')} but the header has ${englishCount(e.params.expected, 'column')}; check for commas in cells that are not quoted`;
    case 'not_utf8':
      return `${at}text is not valid UTF-8; save the file as "CSV UTF-8" (Excel) or as UTF-8 text and import it again`;
    case 'invalid_json':
      return `${at}not valid JSON (${e.params.detail})`;
    case 'not_an_object':
      return `${at}expected a JSON object {…}, found ${KIND_TEXT[e.params.got]}`;
    case 'missing_value':
      return e.params.present
        ? `${at}${col} is empty; every row needs a question`
        : `${at}no question: add ${quoteList(e.params.accepted)}`;
    case 'not_a_list': {
      const pos = e.params.position !== null ? ` at position ${e.params.position}` : '';
      return `${at}${col} is not a list: expected ['…'] or ["…"] (${e.params.detail}${pos})`;
    }
    case 'not_a_string':
      return `${at}${col} must be text, found ${KIND_TEXT[e.params.got]}`;
    case 'not_a_number':
      return `${at}${col} is not a number: '${shorten(e.params.value)}'`;
    case 'invalid_value':
      return `${at}${col} is invalid: ${e.params.detail}`;
    case 'too_long': {
      const item = e.params.item !== null ? ` (item ${e.params.item})` : '';
      return `${at}${col}${item} has ${e.params.length} characters; the limit is ${e.params.limit}`;
    }
    case 'too_many':
      return e.params.what === 'columns' ? `${at}the row has ${e.params.count} columns; the limit is ${e.params.limit}`
        : e.params.what === 'label_columns' ? `${at}the row has ${e.params.count} human.<criterion> columns; a dataset can have at most ${e.params.limit} criteria`
        : `${at}${col} has ${e.params.count} items; the limit is ${e.params.limit}`;
    case 'nul_character': {
      const item = e.params.item !== null ? ` (item ${e.params.item})` : '';
      return `${at}${col}${item} contains a NUL character, which goldset does not store`;
    }
    case 'control_character': {
      const item = e.params.item !== null ? ` (item ${e.params.item})` : '';
      return `${at}${col}${item} contains a control character or a text-direction mark, which no name may hold`;
    }
    case 'too_deep':
      return `${at}the record nests more than ${e.params.limit} levels of arrays and objects`;
    case 'out_of_range':
      return `${at}${col} is ${e.params.value}, outside the metric's range (${e.params.allowed})`;
  }
}
