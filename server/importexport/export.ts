// Export in the layouts Ragas reads (JSONL for EvaluationDataset.from_jsonl, CSV for pandas) and
// goldset's own full JSONL. Samples alone, or one record per response with the experts' gold labels.
import { stringify } from 'csv-stringify/sync';
import type { DB } from '../db/connection.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { SampleFilter, SampleQueries, SampleRow } from '../samples/queries.ts';
import { responseExportRows, type ScoreColumn } from './export-responses.ts';
import { writeGoldsetJsonl } from './goldset-jsonl.ts';
import { spreadsheetSafe } from '../io/spreadsheet-safe.ts';

/**
 * `spreadsheet-csv` is `ragas-csv` for people: the same columns, every cell that a spreadsheet would
 * run as a formula neutralised (io/spreadsheet-safe.ts), and a UTF-8 BOM so Excel reads Chinese
 * text right. `ragas-csv` keeps the exact text, for pandas.
 */
export type ExportFormat = 'ragas-jsonl' | 'ragas-csv' | 'spreadsheet-csv' | 'goldset-jsonl';
export const EXPORT_FORMATS: ExportFormat[] = ['ragas-jsonl', 'ragas-csv', 'spreadsheet-csv', 'goldset-jsonl'];
const BATCH = 1000;

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  'ragas-jsonl': 'application/x-ndjson; charset=utf-8',
  'ragas-csv': 'text/csv; charset=utf-8',
  'spreadsheet-csv': 'text/csv; charset=utf-8',
  'goldset-jsonl': 'application/x-ndjson; charset=utf-8',
};
export const EXTENSIONS: Record<ExportFormat, string> = { 'ragas-jsonl': 'jsonl', 'ragas-csv': 'csv', 'spreadsheet-csv': 'spreadsheet.csv', 'goldset-jsonl': 'goldset.jsonl' };

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

/** A sample as a Ragas SingleTurnSample: only fields Ragas knows, so from_jsonl accepts every line. */
export function ragasRecord(s: SampleRow) {
  return { user_input: s.question, reference: s.ground_truth, reference_contexts: JSON.parse(s.reference_contexts) as string[] };
}

/** CSV cells hold lists as JSON arrays: pandas reads them as text that json.loads turns back into lists. */
function csvCell(v: unknown): unknown {
  return Array.isArray(v) ? JSON.stringify(v) : v;
}

/** Writes the export in batches; returns how many records (samples or responses) were written. */
export function writeExport(src: ExportSource, opts: ExportOptions, format: ExportFormat, write: (chunk: string) => void): number {
  if (format === 'goldset-jsonl') return writeGoldsetJsonl(src.db, opts.datasetId, write);
  const status = opts.status === 'approved' ? 'approved' : undefined;
  const csv = format !== 'ragas-jsonl';
  // Rows of cells as CSV: exact for pandas, neutralised (and with a BOM before the header) for spreadsheets.
  const cell = format === 'spreadsheet-csv' ? (v: unknown) => spreadsheetSafe(csvCell(v)) : csvCell;
  const csvRows = (rows: unknown[][]) => stringify(rows.map((r) => r.map(cell)));
  const json = opts.utf8 ? (v: unknown) => JSON.stringify(v) : asciiJson;
  if (format === 'spreadsheet-csv') write('\uFEFF');
  let n = 0;
  if (opts.responses) {
    const scoreColumns = opts.scoreColumns ?? [];
    const columns = ['user_input', 'retrieved_contexts', 'response', 'reference', 'reference_contexts', 'system', ...src.criteria.map((c) => `human.${c.name}`),
      ...scoreColumns.map((c) => c.column)];
    if (csv) write(csvRows([columns]));
    for (const rows of responseExportRows(src.db, opts.datasetId, src.criteria, status, scoreColumns)) {
      if (!csv) write(rows.map((r) => json(r)).join('\n') + '\n');
      else write(csvRows(rows.map((r) => columns.map((c) => r[c]))));
      n += rows.length;
    }
    return n;
  }
  const filter: SampleFilter = { datasetId: opts.datasetId, status };
  if (csv) write(csvRows([['user_input', 'reference', 'reference_contexts']]));
  let after = 0;
  for (;;) {
    const rows = src.samples.batchAfter(filter, after, BATCH);
    if (!rows.length) break;
    if (!csv) write(rows.map((r) => json(ragasRecord(r))).join('\n') + '\n');
    else write(csvRows(rows.map((r) => { const rec = ragasRecord(r); return [rec.user_input, rec.reference, rec.reference_contexts]; })));
    n += rows.length;
    after = rows[rows.length - 1]!.id;
  }
  return n;
}
