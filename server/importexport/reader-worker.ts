// The import reader's worker thread (see reader-thread.ts): reads and checks a file, works out each
// row's question key, answer hash and JSON cells, and sends the rows in batches. After the first bad
// row it sends no more rows but keeps reading, so the report names every problem in the file.
import { parentPort, workerData } from 'node:worker_threads';
import { readImportBatches } from '../io/read.ts';
import type { RowError } from '../io/errors.ts';
import type { ImportRow } from '../io/schema.ts';
import { questionKey } from '../samples/key.ts';
import { responseHash } from '../responses/queries.ts';
import { CANCELLED, MAX_ERRORS, MAX_IN_FLIGHT, POSTED, TAKEN } from './reader-thread.ts';
import { warmUp } from './reader-warmup.ts';
import type { ReaderMessage, ReadJob, ReadRow, ReadSummary, ResponseCells } from './reader-thread.ts';

/** How long one wait for the importing thread lasts before the cancel flag is looked at again. */
const WAIT_SLICE_MS = 1000;

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/** JSON of a list or object, or null when it is empty: most rows have neither, and the writer skips nulls cheaply. */
const jsonOrNull = (v: readonly unknown[] | Record<string, unknown>): string | null =>
  (Array.isArray(v) ? v.length > 0 : hasKeys(v)) ? JSON.stringify(v) : null;

function responseCells(response: NonNullable<ImportRow['response']>): ResponseCells {
  const system = response.system ?? '';
  const meta: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(response.metadata)) if (v !== null) meta[k] = v;
  return [system, response.answer, JSON.stringify(response.retrieved_contexts), JSON.stringify(meta),
    responseHash(system, response.answer, response.retrieved_contexts)];
}

function toReadRow(line: number, row: ImportRow): ReadRow {
  const { sample, response, labels, scores } = row;
  const key = questionKey(sample.question);
  if (response === null && sample.reference_contexts.length === 0 && sample.tags.length === 0 && sample.source === null &&
    sample.notes === null && !hasKeys(labels) && !hasKeys(scores)) return [line, key, sample.question, sample.ground_truth];
  return [line, key, sample.question, sample.ground_truth, jsonOrNull(sample.reference_contexts), sample.tags.length ? sample.tags : null,
    sample.source, sample.notes, response && responseCells(response), jsonOrNull(labels), jsonOrNull(scores)];
}

async function read(job: ReadJob): Promise<void> {
  const state = new Int32Array(job.state);
  const post = (message: ReaderMessage) => {
    job.port.postMessage(message);
    Atomics.add(state, POSTED, 1);
    Atomics.notify(state, POSTED);
  };
  const cancelled = () => Atomics.load(state, CANCELLED) === 1;
  /** Waits while the importing thread has MAX_IN_FLIGHT batches to take; false once it has cancelled. */
  const roomToSend = (): boolean => {
    for (;;) {
      if (cancelled()) return false;
      const taken = Atomics.load(state, TAKEN);
      if (Atomics.load(state, POSTED) - taken < MAX_IN_FLIGHT) return true;
      Atomics.wait(state, TAKEN, taken, WAIT_SLICE_MS);
    }
  };

  const summary: ReadSummary = { rows: 0, withResponse: 0, labelsWithoutAnswer: 0, errors: [], totalErrors: 0, ignored: [], scoreColumns: [], labelValues: [], listLabels: [] };
  const ignored = new Set<string>();
  const scoreColumns = new Set<string>();
  const labelValues = new Map<string, Set<string>>();
  const listLabels = new Set<string>();
  try {
    for await (const items of readImportBatches(job.file, { format: job.format, filename: job.filename, metrics: job.scoreColumns ?? [], sheet: job.sheet })) {
      const rows: ReadRow[] = [];
      for (const item of items) {
        if ('error' in item) {
          summary.totalErrors += item.errors.length;
          for (const e of item.errors) if (summary.errors.length < MAX_ERRORS) summary.errors.push(e);
          continue;
        }
        summary.rows++;
        const { row } = item;
        for (const c of row.ignored) ignored.add(c);
        for (const c in row.scores) scoreColumns.add(c);
        let labelled = false;
        for (const name in row.labels) {
          labelled = true;
          let values = labelValues.get(name);
          if (!values) labelValues.set(name, (values = new Set()));
          const value = row.labels[name]!;
          if (typeof value === 'string') { if (values.size < 1000) values.add(value); continue; }
          listLabels.add(name);
          for (const v of value) if (v !== null && values.size < 1000) values.add(v);
        }
        if (row.response) summary.withResponse++;
        else if (labelled) summary.labelsWithoutAnswer++;
        if (summary.totalErrors === 0) rows.push(toReadRow(item.line, row));
      }
      if (rows.length && summary.totalErrors === 0) {
        if (!roomToSend()) return;
        post({ type: 'rows', rows });
      } else if (cancelled()) return;
    }
    summary.ignored = [...ignored];
    summary.scoreColumns = [...scoreColumns];
    summary.labelValues = [...labelValues].map(([name, values]) => [name, [...values]]);
    summary.listLabels = [...listLabels];
    if (roomToSend()) post({ type: 'done', summary });
  } catch (err) {
    post({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  } finally {
    job.port.close();
  }
}

// Jobs arrive one at a time (the importing thread waits for each), but a cancelled one may still be
// winding down when the next arrives; each has its own port and counters.
parentPort!.on('message', (job: ReadJob) => { void read(job); });
// Started by the server (import-service.ts warm), ready once the reading code has run (reader-warmup.ts):
// the first import is then read at full speed. The warm-up only saves time; should it fail, the thread
// reads files all the same.
if ((workerData as { warmUp?: boolean }).warmUp) await warmUp(toReadRow).catch(() => 0);
parentPort!.postMessage('ready');
