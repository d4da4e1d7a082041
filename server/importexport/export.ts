// Export of samples in the layouts Ragas reads: JSONL for EvaluationDataset.from_jsonl, CSV for pandas.
import { stringify } from 'csv-stringify/sync';
import type { SampleFilter, SampleQueries, SampleRow } from '../samples/queries.ts';

export type ExportFormat = 'ragas-jsonl' | 'ragas-csv';
export const EXPORT_FORMATS: ExportFormat[] = ['ragas-jsonl', 'ragas-csv'];
const BATCH = 1000;

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  'ragas-jsonl': 'application/x-ndjson; charset=utf-8',
  'ragas-csv': 'text/csv; charset=utf-8',
};
export const EXTENSIONS: Record<ExportFormat, string> = { 'ragas-jsonl': 'jsonl', 'ragas-csv': 'csv' };

/** A sample as a Ragas SingleTurnSample: only fields Ragas knows, so from_jsonl accepts every line. */
export function ragasRecord(s: SampleRow) {
  return {
    user_input: s.question,
    reference: s.ground_truth,
    reference_contexts: JSON.parse(s.reference_contexts) as string[],
  };
}

const CSV_COLUMNS = ['user_input', 'reference', 'reference_contexts'];

/** Writes the export in batches of rows; returns how many samples were written. */
export function writeExport(queries: SampleQueries, filter: SampleFilter, format: ExportFormat, write: (chunk: string) => void): number {
  let after = 0, n = 0;
  if (format === 'ragas-csv') write(stringify([CSV_COLUMNS]));
  for (;;) {
    const rows = queries.batchAfter(filter, after, BATCH);
    if (!rows.length) break;
    if (format === 'ragas-jsonl') {
      write(rows.map((r) => JSON.stringify(ragasRecord(r))).join('\n') + '\n');
    } else {
      write(stringify(rows.map((r) => {
        const rec = ragasRecord(r);
        return [rec.user_input, rec.reference, JSON.stringify(rec.reference_contexts)];
      })));
    }
    n += rows.length;
    after = rows[rows.length - 1]!.id;
  }
  return n;
}
