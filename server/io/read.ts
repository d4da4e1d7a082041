/**
 * Streaming readers for CSV, JSONL and JSON imports: each yields one item per record (a typed
 * row or its errors) without loading the file, so a 200k-row results file costs one row of memory.
 *
 * Line numbers are what the user sees: for CSV the spreadsheet row (header = row 1, so quoted
 * multi-line cells do not shift later rows); for JSONL the line; for JSON the line where the
 * record starts (for pandas `orient='columns'/'index'` objects: the DataFrame row, 1-based).
 * Blank CSV rows and blank JSONL lines are skipped but still counted.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { ACCEPTED_HEADERS, hasQuestionColumn, planColumns } from './columns.ts';
import type { ColumnOptions, ColumnPlan } from './columns.ts';
import { jsonKind, rowError } from './errors.ts';
import type { LineUnit, RowError, RowErrorDetail } from './errors.ts';
import { parseJsonLenient, scanJsonValues } from './jsonscan.ts';
import { createRecordNormalizer, normalizeRow } from './normalize.ts';
import type { NormalizeResult, RowContext } from './normalize.ts';
import type { ImportRow } from './schema.ts';
import { jsonTooDeep, LIMITS } from '../limits.ts';
import { Workbook, XlsxReadError, type XlsxValue } from '../xlsx/read.ts';

export type ImportFormat = 'csv' | 'jsonl' | 'json' | 'xlsx';

/** `error` is the first of `errors` (a row reports all its problems at once). */
export type ImportItem = { line: number; row: ImportRow } | { line: number; error: RowError; errors: RowError[] };

export type ImportSource = Readable | AsyncIterable<string | Uint8Array>;

export interface ReadImportOptions extends ColumnOptions {
  /** Overrides detection from the file name. */
  format?: ImportFormat;
  /** Original file name for format detection: uploads are stored under names without extension. */
  filename?: string;
  /** Largest single JSON value (one record, or a whole pandas-orient object), in characters. */
  maxJsonValueChars?: number;
  /** The sheet of an XLSX workbook to read (default: the first). */
  sheet?: string | undefined;
}

export const DEFAULT_MAX_JSON_VALUE_CHARS = 64 * 1024 * 1024;
/** Bytes per read from disk: fewer, larger chunks mean fewer steps through the readers. */
const READ_CHUNK_BYTES = 256 * 1024;
/** An unclosed quote makes csv-parse read the rest of the file as one cell; stop it early. */
const MAX_CSV_RECORD_CHARS = 64 * 1024 * 1024;

export function detectFormat(filename: string): ImportFormat | null {
  const ext = /\.([a-z0-9]+)$/i.exec(filename.trim())?.[1]?.toLowerCase();
  if (ext === 'csv') return 'csv';
  if (ext === 'jsonl' || ext === 'ndjson') return 'jsonl';
  if (ext === 'json') return 'json';
  if (ext === 'xlsx') return 'xlsx';
  return null;
}

/** Items of a file one by one (see readImportBatches for the faster form). */
export async function* readImportFile(path: string, options: ReadImportOptions = {}): AsyncGenerator<ImportItem> {
  for await (const batch of readImportBatches(path, options)) yield* batch;
}

/**
 * Items of a file in batches (one per chunk read): each step of an async generator costs a few
 * promises, so a 100k-row import steps once per batch, not once per row.
 */
export async function* readImportBatches(path: string, options: ReadImportOptions = {}): AsyncGenerator<ImportItem[]> {
  const name = options.filename ?? path;
  const format = options.format ?? detectFormat(name);
  if (format === null) {
    yield [failed([rowError({ code: 'unknown_format', params: { filename: basename(name) } }, { line: 0, unit: 'line' })])];
    return;
  }
  // A workbook is read by its zip directory, which is at the end of the file: it needs the file, not a stream.
  if (format === 'xlsx') {
    yield* readXlsx(path, options);
    return;
  }
  // File-system errors (missing file, permissions) are thrown: they are server faults, not the user's.
  if (format === 'jsonl') {
    yield* readJsonl(fileChunks(path), options);
    return;
  }
  const stream = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
  try {
    yield* readImportInBatches(stream, { ...options, format });
  } finally {
    stream.destroy();
  }
}

/** Items of a stream one by one. */
export async function* readImport(source: ImportSource, options: ReadImportOptions & { format: ImportFormat }): AsyncGenerator<ImportItem> {
  for await (const batch of readImportInBatches(source, options)) yield* batch;
}

function readImportInBatches(source: ImportSource, options: ReadImportOptions & { format: ImportFormat }): AsyncGenerator<ImportItem[]> {
  switch (options.format) {
    case 'csv':
      return batched(readCsv(source, options));
    case 'jsonl':
      return readJsonl(source, options);
    case 'json':
      return batched(readJson(source, options));
    case 'xlsx':
      throw new Error('an XLSX workbook is read from a file (readImportBatches), not from a stream');
  }
}

/** Groups the items of a per-record reader (CSV, JSON) into batches. */
async function* batched(items: AsyncGenerator<ImportItem>, size = 1000): AsyncGenerator<ImportItem[]> {
  let batch: ImportItem[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) { yield batch; batch = []; }
  }
  if (batch.length) yield batch;
}

function failed(errors: RowError[]): ImportItem {
  const first = errors[0] as RowError;
  return { line: first.line, error: first, errors };
}

function fromResult(result: NormalizeResult, line: number): ImportItem {
  return result.ok ? { line, row: result.row } : failed(result.errors);
}

async function* readCsv(source: ImportSource, options: ColumnOptions): AsyncGenerator<ImportItem> {
  const parser = parse({
    bom: true,
    relax_column_count: true, // short/long rows are reported per row below instead of aborting
    relax_quotes: true, // tolerate `5" screen` in unquoted hand-written cells
    skip_empty_lines: false, // blank rows must still count towards row numbers
    max_record_size: MAX_CSV_RECORD_CHARS,
  });
  const input = source instanceof Readable ? source : Readable.from(source);
  input.on('error', (e) => parser.destroy(e)); // pipe() does not forward source errors
  input.pipe(parser);

  let row = 0;
  let plan: ColumnPlan | null = null;
  let width = 0;
  const at = (line: number): { line: number; unit: LineUnit } => ({ line, unit: 'row' });
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      row++;
      if (plan === null) {
        plan = planColumns(record, options);
        width = record.length;
        if (!hasQuestionColumn(plan)) {
          const params = { accepted: [...ACCEPTED_HEADERS.question] };
          yield failed([rowError({ code: 'missing_column', params }, { ...at(1), field: 'question' })]);
          return;
        }
        continue;
      }
      if (record.every((cell) => cell.trim() === '')) continue;
      // Trailing empty cells (`a,b,,`) are common from spreadsheet tools and harmless.
      if (record.length > width && record.slice(width).some((cell) => cell.trim() !== '')) {
        const params = { expected: width, actual: record.length };
        yield failed([rowError({ code: 'column_count', params }, at(row))]);
        continue;
      }
      // Invalid bytes decode to U+FFFD: almost always a GBK/ANSI file from a Chinese Excel.
      if (record.some((cell) => cell.includes('\uFFFD'))) {
        yield failed([rowError({ code: 'not_utf8', params: {} }, at(row))]);
        continue;
      }
      yield fromResult(normalizeRow(plan, record, at(row)), row);
    }
  } catch (e) {
    if (!(e instanceof CsvError)) throw e;
    // csv-parse aborts the stream on a syntax error; its own record count locates the row.
    const records = typeof e['records'] === 'number' ? e['records'] : row;
    const fileLine = typeof e['lines'] === 'number' ? e['lines'] : null;
    // csv-parse ends its messages with "at line N"; the message adds the line itself.
    const text = e.message.replace(/,? at line \d+\s*$/, '');
    const detail: RowErrorDetail = { code: 'csv_syntax', params: { csvCode: e.code, detail: text, fileLine } };
    yield failed([rowError(detail, at(records + 1))]);
  } finally {
    input.unpipe(parser);
    parser.destroy();
    input.destroy();
  }
}

const blankCell = (c: XlsxValue) => c === null || (typeof c === 'string' && !NOT_BLANK_TEXT.test(c));
const NOT_BLANK_TEXT = /\S/;

/**
 * Rows of one sheet of a workbook, the first row that has a value being the header: the same column
 * plan and row normaliser as CSV, so a sheet accepts what a CSV file does. Cells keep their types
 * (numbers stay numbers for score columns); `line` is the row number the spreadsheet shows.
 */
async function* readXlsx(file: string, options: ReadImportOptions): AsyncGenerator<ImportItem[]> {
  const fileError = (e: XlsxReadError): ImportItem => e.code === 'no_sheet'
    ? failed([rowError({ code: 'no_sheet', params: { sheet: options.sheet ?? '', sheets: e.sheets } }, { line: 0, unit: 'row' })])
    : failed([rowError({ code: 'not_xlsx', params: { detail: e.message } }, { line: 0, unit: 'row' })]);
  let book: Workbook;
  try {
    book = await Workbook.open(file);
  } catch (e) {
    if (e instanceof XlsxReadError) { yield [fileError(e)]; return; }
    throw e;
  }
  try {
    const sheet = book.sheet(options.sheet);
    let plan: ColumnPlan | null = null;
    let width = 0;
    for await (const rows of book.rows(sheet)) {
      const items: ImportItem[] = [];
      for (const { row, cells } of rows) {
        const at: RowContext = { line: row, unit: 'row' };
        if (plan === null) {
          plan = planColumns(cells.map((c) => (c === null ? '' : String(c))), options);
          width = cells.length;
          if (!hasQuestionColumn(plan)) {
            items.push(failed([rowError({ code: 'missing_column', params: { accepted: [...ACCEPTED_HEADERS.question] } }, { ...at, field: 'question' })]));
            yield items;
            return;
          }
          continue;
        }
        if (cells.every(blankCell)) continue;
        if (cells.length > width && cells.slice(width).some((c) => !blankCell(c))) {
          items.push(failed([rowError({ code: 'column_count', params: { expected: width, actual: cells.length } }, at)]));
          continue;
        }
        items.push(fromResult(normalizeRow(plan, cells, at), row));
      }
      if (items.length) yield items;
    }
  } catch (e) {
    if (e instanceof XlsxReadError) { yield [fileError(e)]; return; }
    throw e;
  } finally {
    book.close();
  }
}

async function* decodeUtf8(source: ImportSource): AsyncGenerator<string> {
  // Non-fatal: invalid bytes become U+FFFD, reported per record as `not_utf8`.
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of source as AsyncIterable<string | Uint8Array>) {
    yield typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  }
  const tail = decoder.decode();
  if (tail !== '') yield tail;
}

/**
 * A file's bytes in chunks, all read into the same buffer: a chunk is only valid until the next one
 * is asked for (splitUtf8Lines copies what it keeps). A read stream allocates every chunk afresh,
 * which cost the JSONL reader more than its own work on the bytes.
 */
async function* fileChunks(path: string): AsyncGenerator<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, READ_CHUNK_BYTES, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await file.close();
  }
}

const LF = 0x0a, CR = 0x0d;

/**
 * The lines of each chunk of bytes (without line ends), as one array per chunk, each line decoded
 * on its own: a line feed byte never occurs inside a UTF-8 sequence, so lines can be cut from the
 * bytes, and decoding short lines costs about half of decoding each 256 KB chunk into one large
 * string and slicing that. As with TextDecoder, invalid bytes become U+FFFD (reported per record as
 * `not_utf8`) and a byte order mark at the start of the bytes is dropped.
 */
async function* splitUtf8Lines(source: ImportSource): AsyncGenerator<string[]> {
  /** The start of a line that goes on in a later chunk. */
  let carry: Buffer[] = [];
  let firstLine = true;
  let dropBom = false;
  const decode = (bytes: Buffer, start: number, end: number): string => {
    if (end > start && bytes[end - 1] === CR) end--;
    const text = bytes.toString('utf8', start, end);
    if (!firstLine) return text;
    firstLine = false;
    return dropBom && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  };
  let firstChunk = true;
  for await (const chunk of source as AsyncIterable<string | Uint8Array>) {
    // Text chunks (a caller's own stream) were never bytes to decode: their byte order mark stays.
    if (firstChunk) dropBom = typeof chunk !== 'string';
    firstChunk = false;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const lines: string[] = [];
    let start = 0;
    let nl = bytes.indexOf(LF);
    if (nl !== -1 && carry.length) {
      carry.push(bytes.subarray(0, nl));
      const line = Buffer.concat(carry);
      carry = [];
      lines.push(decode(line, 0, line.length));
      start = nl + 1;
      nl = bytes.indexOf(LF, start);
    }
    for (; nl !== -1; nl = bytes.indexOf(LF, start)) {
      lines.push(decode(bytes, start, nl));
      start = nl + 1;
    }
    // A copy: the chunk's buffer may be read into again (fileChunks).
    if (start < bytes.length) carry.push(Buffer.from(bytes.subarray(start)));
    if (lines.length) yield lines;
  }
  if (carry.length) {
    const line = Buffer.concat(carry);
    if (line.length) yield [decode(line, 0, line.length)];
  }
}

type Normalizer = (record: Record<string, unknown>, ctx: RowContext) => NormalizeResult;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fromValue(value: unknown, ctx: RowContext, normalize: Normalizer): ImportItem {
  if (!isRecord(value)) return failed([rowError({ code: 'not_an_object', params: { got: jsonKind(value) } }, ctx)]);
  return fromResult(normalize(value, ctx), ctx.line);
}

/** Parses one record's JSON text; `undefined` value means `item` holds the error. */
function parseRecordText(text: string, ctx: RowContext): { value: unknown } | { item: ImportItem } {
  if (text.includes('\uFFFD')) return { item: failed([rowError({ code: 'not_utf8', params: {} }, ctx)]) };
  if (jsonTooDeep(text, LIMITS.jsonDepth)) return { item: failed([rowError({ code: 'too_deep', params: { limit: LIMITS.jsonDepth } }, ctx)]) };
  try {
    return { value: parseJsonLenient(text) };
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return { item: failed([rowError({ code: 'invalid_json', params: { detail } }, ctx)]) };
  }
}

async function* readJsonl(source: ImportSource, options: ColumnOptions): AsyncGenerator<ImportItem[]> {
  const normalize = createRecordNormalizer(options);
  let line = 0;
  for await (const lines of splitUtf8Lines(source)) {
    const items: ImportItem[] = [];
    for (const raw of lines) {
      line++;
      const text = line === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      if (text.trim() === '') continue;
      const ctx: RowContext = { line, unit: 'line' };
      const parsed = parseRecordText(text, ctx);
      items.push('item' in parsed ? parsed.item : fromValue(parsed.value, ctx, normalize));
    }
    if (items.length) yield items;
  }
}

async function* readJson(source: ImportSource, options: ReadImportOptions): AsyncGenerator<ImportItem> {
  const normalize = createRecordNormalizer(options);
  const limit = options.maxJsonValueChars ?? DEFAULT_MAX_JSON_VALUE_CHARS;
  // In sequence mode the first value is held back: if it turns out to be the only one, it may be
  // a whole DataFrame written by pandas `to_json()` (default orient='columns').
  let held: { value: unknown; line: number } | null = null;
  let values = 0;
  for await (const ev of scanJsonValues(decodeUtf8(source), limit)) {
    if (ev.kind === 'too_large') {
      const params = { bytes: ev.chars, limit };
      yield failed([rowError({ code: 'file_too_large', params }, { line: ev.line, unit: 'line' })]);
      return;
    }
    const ctx: RowContext = { line: ev.line, unit: 'line' };
    if (ev.kind === 'error') {
      yield failed([rowError({ code: 'invalid_json', params: { detail: ev.detail } }, ctx)]);
      continue;
    }
    const parsed = parseRecordText(ev.text, ctx);
    if ('item' in parsed) {
      yield parsed.item;
      continue;
    }
    if (ev.mode === 'array') {
      yield fromValue(parsed.value, ctx, normalize);
      continue;
    }
    values++;
    if (values === 1) {
      held = { value: parsed.value, line: ev.line };
      continue;
    }
    if (held !== null) {
      yield fromValue(held.value, { line: held.line, unit: 'line' }, normalize);
      held = null;
    }
    yield fromValue(parsed.value, ctx, normalize);
  }
  if (held === null) return;
  if (!isRecord(held.value)) {
    yield failed([rowError({ code: 'not_an_array', params: { got: jsonKind(held.value) } }, { line: 0, unit: 'line' })]);
    return;
  }
  const table = pandasTable(held.value);
  if (table === null) {
    yield fromValue(held.value, { line: held.line, unit: 'line' }, normalize);
    return;
  }
  for (const [i, record] of table.entries()) yield fromValue(record, { line: i + 1, unit: 'row' }, normalize);
}

const INDEX_KEY = /^\d+$/;

/** Rows of a pandas `to_json()` object (orient 'columns' or 'index'), or null if it is not one. */
function pandasTable(value: Record<string, unknown>): Record<string, unknown>[] | null {
  const entries = Object.entries(value);
  if (entries.length === 0 || !entries.every(([, v]) => isRecord(v))) return null;
  const inner = entries as [string, Record<string, unknown>][];
  // orient='index': {"0": {column: value}, "1": {...}}
  if (inner.every(([k]) => INDEX_KEY.test(k))) return inner.map(([, record]) => record);
  // orient='columns': {column: {"0": value, "1": value}}
  const index = [...new Set(inner.flatMap(([, column]) => Object.keys(column)))];
  if (index.length === 0 || !index.every((k) => INDEX_KEY.test(k))) return null;
  return index.map((k) => Object.fromEntries(inner.map(([name, column]) => [name, column[k] ?? null])));
}
