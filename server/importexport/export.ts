// Export in the layouts Ragas reads (JSONL for EvaluationDataset.from_jsonl, CSV for pandas), for
// spreadsheets (spreadsheet-safe CSV, and XLSX: the same columns with typed cells), and goldset's own full JSONL. Samples alone,
// or one record per response with the experts' gold labels. The record sources (the dataset now, or
// a release, see server/releases/) are separate from the writers of each format.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { DB } from '../db/connection.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { SampleFilter, SampleQueries, SampleRow } from '../samples/queries.ts';
import { responseExportRows, type ScoreColumn } from './export-responses.ts';
import { writeGoldsetJsonl } from './goldset-jsonl.ts';
import { spreadsheetSafe } from '../io/spreadsheet-safe.ts';
import { XlsxWriter, type ColumnSpec } from '../xlsx/write.ts';
import { MAX_CELL_CHARS, MAX_RECORDS } from '../xlsx/text.ts';
import type { T } from '../i18n/index.ts';
import { clip } from '../limits.ts';

/**
 * `spreadsheet-csv` is `ragas-csv` for people: the same columns, every cell that a spreadsheet would
 * run as a formula neutralised (io/spreadsheet-safe.ts), and a UTF-8 BOM so Excel reads Chinese
 * text right. `ragas-csv` keeps the exact text, for pandas.
 */
export type ExportFormat = 'ragas-jsonl' | 'ragas-csv' | 'spreadsheet-csv' | 'goldset-jsonl' | 'xlsx';
export const EXPORT_FORMATS: ExportFormat[] = ['ragas-jsonl', 'ragas-csv', 'spreadsheet-csv', 'goldset-jsonl', 'xlsx'];
/** The formats written from a record source as text. */
export type RecordFormat = 'ragas-jsonl' | 'ragas-csv' | 'spreadsheet-csv';
const BATCH = 1000;

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  'ragas-jsonl': 'application/x-ndjson; charset=utf-8',
  'ragas-csv': 'text/csv; charset=utf-8',
  'spreadsheet-csv': 'text/csv; charset=utf-8',
  'goldset-jsonl': 'application/x-ndjson; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};
export const EXTENSIONS: Record<ExportFormat, string> = { 'ragas-jsonl': 'jsonl', 'ragas-csv': 'csv', 'spreadsheet-csv': 'spreadsheet.csv', 'goldset-jsonl': 'goldset.jsonl', xlsx: 'xlsx' };

export interface ExportSource { db: DB; samples: SampleQueries; criteria: Criterion[] }
export interface ExportOptions {
  datasetId: number; status: 'approved' | 'all'; responses: boolean;
  /** With responses: these runs' scores as columns named as Ragas names each metric. */
  scoreColumns?: readonly ScoreColumn[];
  /** ragas-jsonl: write non-ASCII characters as they are instead of \uXXXX escapes. */
  utf8?: boolean;
}

/**
 * JSON with every non-ASCII character escaped (\uXXXX, astral ones as surrogate pairs): Ragas's
 * EvaluationDataset.from_jsonl opens files in the platform's encoding, so raw UTF-8 Chinese fails
 * where that is GBK (Chinese Windows) or ASCII; the escaped file reads the same everywhere.
 */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Records in Ragas's columns, a batch at a time: the same for every format but goldset-jsonl. */
export interface RecordSource { columns: string[]; batches: Iterable<Record<string, unknown>[]> }

export const SAMPLE_COLUMNS = ['user_input', 'reference', 'reference_contexts'];
export const responseColumns = (criteria: readonly string[]) =>
  ['user_input', 'retrieved_contexts', 'response', 'reference', 'reference_contexts', 'system', ...criteria.map((c) => `human.${c}`)];

/** A sample as a Ragas SingleTurnSample: only fields Ragas knows, so from_jsonl accepts every line. */
export function ragasRecord(s: SampleRow) {
  return { user_input: s.question, reference: s.ground_truth, reference_contexts: JSON.parse(s.reference_contexts) as string[] };
}

/** The dataset as it is now: its (approved) samples, or its responses with gold labels. */
export function datasetRecords(src: ExportSource, opts: ExportOptions): RecordSource {
  const status = opts.status === 'approved' ? 'approved' : undefined;
  if (opts.responses) {
    const scoreColumns = opts.scoreColumns ?? [];
    return {
      columns: [...responseColumns(src.criteria.map((c) => c.name)), ...scoreColumns.map((c) => c.column)],
      batches: responseExportRows(src.db, opts.datasetId, src.criteria, status, scoreColumns) as Iterable<Record<string, unknown>[]>,
    };
  }
  const filter: SampleFilter = { datasetId: opts.datasetId, status };
  function* batches() {
    let after = 0;
    for (;;) {
      const rows = src.samples.batchAfter(filter, after, BATCH);
      if (!rows.length) return;
      yield rows.map(ragasRecord);
      after = rows[rows.length - 1]!.id;
    }
  }
  return { columns: SAMPLE_COLUMNS, batches: batches() };
}

/** CSV cells hold lists as JSON arrays: pandas reads them as text that json.loads turns back into lists. */
function listAsJson(v: unknown): unknown {
  return Array.isArray(v) ? JSON.stringify(v) : v;
}

export interface ChunkOptions {
  /** ragas-jsonl with non-ASCII characters as they are (else \uXXXX, see asciiJson). */
  utf8?: boolean | undefined;
  /** Told how many records each chunk had. */
  counted?: (n: number) => void;
}

/** Ragas JSONL or CSV (exact, or spreadsheet-safe with a BOM) of a record source, a chunk per batch. */
export function* recordChunks(source: RecordSource, format: RecordFormat, opts: ChunkOptions = {}): Generator<string> {
  const json = opts.utf8 ? (v: unknown) => JSON.stringify(v) : asciiJson;
  const cell = format === 'spreadsheet-csv' ? (v: unknown) => spreadsheetSafe(listAsJson(v)) : listAsJson;
  const csvRows = (rows: unknown[][]) => stringify(rows.map((r) => r.map(cell)));
  if (format === 'spreadsheet-csv') yield '\uFEFF';
  if (format !== 'ragas-jsonl') yield csvRows([source.columns]);
  for (const rows of source.batches) {
    if (format === 'ragas-jsonl') yield rows.map((r) => json(r)).join('\n') + '\n';
    else yield csvRows(rows.map((r) => source.columns.map((c) => r[c])));
    opts.counted?.(rows.length);
  }
}

/** Ragas JSONL or CSV of a record source; returns how many records were written. */
export function writeRecords(source: RecordSource, format: RecordFormat, write: (chunk: string) => void, utf8?: boolean): number {
  let n = 0;
  for (const chunk of recordChunks(source, format, { utf8, counted: (k) => { n += k; } })) write(chunk);
  return n;
}

/** Writes chunks to a stream, waiting whenever it is behind (a large download never sits whole in memory). */
export async function pipeChunks(chunks: Iterable<string>, out: Writable): Promise<void> {
  for (const chunk of chunks) if (!out.write(chunk)) await once(out, 'drain');
}

const LONG_TEXT = new Set(['user_input', 'reference', 'response']);
const LISTS = new Set(['reference_contexts', 'retrieved_contexts']);

/**
 * The same records as a spreadsheet: one sheet, typed cells (gold labels and scores as numbers,
 * texts as strings, lists as JSON text as in CSV), frozen header, wrapped long text. Resolves with
 * the number of records once the output has every byte; a cell over Excel's limit rejects
 * (XlsxLimitError) and leaves the output incomplete.
 */
export async function writeRecordsXlsx(source: RecordSource, out: Writable, opts: { mtime: Date; sheet: string }): Promise<number> {
  const columns: ColumnSpec[] = source.columns.map((header) => LONG_TEXT.has(header) ? { header, style: 'wrap', width: 50 }
    : LISTS.has(header) ? { header, style: 'wrap', width: 60 } : header.startsWith('human.') ? { header, style: 'number' } : { header, style: 'text' });
  const xlsx = new XlsxWriter(out, { mtime: opts.mtime });
  let n = 0;
  try {
    await xlsx.startSheet({ name: opts.sheet, columns, freezeHeader: true });
    for (const rows of source.batches) {
      for (const r of rows) {
        // A gold label of a categorical criterion is text: the cell follows the value, not the column.
        await xlsx.row(source.columns.map((c) => {
          const v = r[c];
          return Array.isArray(v) ? JSON.stringify(v) : (v as string | number | null | undefined);
        }), source.columns.map((c) => (typeof r[c] === 'string' && c.startsWith('human.') ? 'text' : undefined)));
      }
      n += rows.length;
    }
    await xlsx.finish();
    return n;
  } catch (err) {
    xlsx.abort();
    throw err;
  }
}

/** Writes a text export in batches; returns how many records (samples or responses) were written. */
export function writeExport(src: ExportSource, opts: ExportOptions, format: Exclude<ExportFormat, 'xlsx'>, write: (chunk: string) => void): number {
  if (format === 'goldset-jsonl') return writeGoldsetJsonl(src.db, opts.datasetId, write);
  return writeRecords(datasetRecords(src, opts), format, write, opts.utf8);
}

/**
 * Why a dataset export does not fit in a spreadsheet, in the user's language, or null: more records
 * than a sheet has rows, or a text longer than a cell holds. Checked before an XLSX export starts (the
 * Export page's download, the command line's file), so the refusal can still be an error page.
 */
export function spreadsheetRefusal(db: DB, opts: ExportOptions, t: T): string | null {
  const status = opts.status === 'approved' ? 'approved' : null;
  // Counted up to one past what fits: enough to know, without counting a huge dataset whole.
  const n = db.prepare<{ ds: number; status: string | null; over: number }, number>(opts.responses
    ? 'SELECT count(*) FROM (SELECT 1 FROM response r JOIN sample s ON s.id = r.sample_id WHERE r.dataset_id = @ds AND (@status IS NULL OR s.status = @status) LIMIT @over)'
    : 'SELECT count(*) FROM (SELECT 1 FROM sample WHERE dataset_id = @ds AND (@status IS NULL OR status = @status) LIMIT @over)').pluck().get({ ds: opts.datasetId, status, over: MAX_RECORDS + 1 })!;
  if (n > MAX_RECORDS) return t('export.too_many_rows', { limit: MAX_RECORDS.toLocaleString('en') });
  const long = overlongCell(db, opts);
  return long && t('export.cell_too_long', { column: long.column, chars: long.chars, question: clip(long.question, 80).text, limit: MAX_CELL_CHARS.toLocaleString('en') });
}

/** The first text of a dataset export longer than a spreadsheet cell holds, or null. */
function overlongCell(db: DB, opts: ExportOptions): { question: string; column: string; chars: number } | null {
  const status = opts.status === 'approved' ? 'approved' : null;
  const row = db.prepare<{ ds: number; status: string | null; limit: number }, { question: string; column: string; chars: number }>(opts.responses ? `
      SELECT s.question, CASE WHEN length(r.answer) > @limit THEN 'response' WHEN length(r.retrieved_contexts) > @limit THEN 'retrieved_contexts'
        WHEN length(s.question) > @limit THEN 'user_input' WHEN length(s.ground_truth) > @limit THEN 'reference' ELSE 'reference_contexts' END AS "column",
        max(length(r.answer), length(r.retrieved_contexts), length(s.question), length(s.ground_truth), length(s.reference_contexts)) AS chars
      FROM response r JOIN sample s ON s.id = r.sample_id
      WHERE r.dataset_id = @ds AND (@status IS NULL OR s.status = @status)
        AND max(length(r.answer), length(r.retrieved_contexts), length(s.question), length(s.ground_truth), length(s.reference_contexts)) > @limit LIMIT 1`
    : `SELECT question, CASE WHEN length(question) > @limit THEN 'user_input' WHEN length(ground_truth) > @limit THEN 'reference' ELSE 'reference_contexts' END AS "column",
        max(length(question), length(ground_truth), length(reference_contexts)) AS chars
      FROM sample WHERE dataset_id = @ds AND (@status IS NULL OR status = @status)
        AND max(length(question), length(ground_truth), length(reference_contexts)) > @limit LIMIT 1`).get({ ds: opts.datasetId, status, limit: MAX_CELL_CHARS });
  return row ?? null;
}
