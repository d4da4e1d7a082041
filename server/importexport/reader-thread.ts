// Reading and checking an import file runs in a worker thread while the importing thread writes
// the rows it has already been sent, so a large import costs about the longer of the two instead
// of their sum. The importing side takes the worker's batches synchronously (it holds the
// database's write transaction for the whole import and must not let other requests run inside it);
// the worker stops reading while too many batches wait, so memory stays bounded.
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { ImportFormat } from '../io/read.ts';
import type { RowError } from '../io/errors.ts';

/** A row that is only a question and (perhaps) its ground truth: the usual eval-set file. */
export type QuestionRow = [line: number, key: string, question: string, groundTruth: string | null];

/** The answer side of a row, ready to insert: JSON texts are made in the reading thread. */
export type ResponseCells = [system: string, answer: string, retrieved: string, meta: string, hash: string];

/** Any other row; list and object cells are JSON, or null when empty. */
export type FullRow = [
  line: number, key: string, question: string, groundTruth: string | null, refs: string | null, tags: string[] | null,
  source: string | null, notes: string | null, response: ResponseCells | null, labels: string | null, scores: string | null,
];

export type ReadRow = QuestionRow | FullRow;

/** What the whole file held, sent after its last rows. */
export interface ReadSummary {
  rows: number;
  /** Rows with an answer. */
  withResponse: number;
  labelsWithoutAnswer: number;
  /** The first problems (at most MAX_ERRORS) and how many there were in all. */
  errors: RowError[];
  totalErrors: number;
  ignored: string[];
  scoreColumns: string[];
  /** Criterion → the distinct values written for it (at most 1,000 each). */
  labelValues: [string, string[]][];
  /** Criteria whose column held a list (one value per context) in some row. */
  listLabels: string[];
}

export type ReaderMessage =
  | { type: 'rows'; rows: ReadRow[] }
  | { type: 'done'; summary: ReadSummary }
  | { type: 'failed'; message: string };

export type ReadResult = Exclude<ReaderMessage, { type: 'failed' }>;

export interface ReadJob {
  file: string;
  format?: ImportFormat | undefined;
  filename?: string | undefined;
  /** Columns to read as metric scores besides the known metric columns. */
  scoreColumns?: string[] | undefined;
  /** The sheet of a workbook (default: the first). */
  sheet?: string | undefined;
  /** Message counters shared with the worker: see POSTED, TAKEN, CANCELLED. */
  state: SharedArrayBuffer;
  port: MessagePort;
}

/** Indexes into a job's shared counters. */
export const POSTED = 0, TAKEN = 1, CANCELLED = 2;
/** Batches the worker may send ahead of the importing thread (a batch is one 256 KB read). */
export const MAX_IN_FLIGHT = 16;
/** The first problems kept for the report; the rest are only counted. */
export const MAX_ERRORS = 50;
/** A worker that sends nothing for this long is taken to have died. */
const STALL_MS = 60_000;

export interface ReaderThread {
  /**
   * Resolves when the worker has loaded (imports wait for it without blocking). `warmUp`: a thread this
   * call starts first reads made-up rows (reader-warmup.ts), as the server's at start; a thread an
   * import starts does not, so that it reads the import at once.
   */
  ready(options?: { warmUp?: boolean }): Promise<void>;
  /** Batches of one file, then its summary, each taken synchronously; stopping early cancels the reading. A failure is thrown. */
  read(file: string, options: { format?: ImportFormat | undefined; filename?: string | undefined; scoreColumns?: string[] | undefined; sheet?: string | undefined }): Generator<ReadResult>;
  close(): Promise<void>;
}

export function readerThread(): ReaderThread {
  let worker: Worker | null = null;
  let loaded: Promise<void> | null = null;

  const start = (warmUp: boolean): Promise<void> => {
    const w = new Worker(new URL('../worker-boot.mjs', import.meta.url), { workerData: { entry: new URL('./reader-worker.ts', import.meta.url).href, warmUp } });
    w.unref();
    worker = w;
    loaded = new Promise<void>((resolve, reject) => {
      w.once('message', (m: unknown) => (m === 'ready' ? resolve() : reject(new Error(`import reader: unexpected message ${String(m)}`))));
      w.once('error', reject);
    });
    w.on('exit', () => {
      if (worker === w) { worker = null; loaded = null; }
    });
    return loaded;
  };

  return {
    ready: ({ warmUp = false } = {}) => loaded ?? start(warmUp),

    *read(file, options) {
      if (!worker) throw new Error('import reader: not started (await ready() first)');
      const state = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
      const { port1, port2 } = new MessageChannel();
      const job: ReadJob = { file, format: options.format, filename: options.filename, scoreColumns: options.scoreColumns, sheet: options.sheet, state: state.buffer as SharedArrayBuffer, port: port2 };
      worker.postMessage(job, [port2]);
      let finished = false;
      try {
        for (;;) {
          const posted = Atomics.load(state, POSTED);
          const received = receiveMessageOnPort(port1);
          if (!received) {
            if (Atomics.wait(state, POSTED, posted, STALL_MS) === 'timed-out') throw new Error('import reader: no progress for 60 s');
            continue;
          }
          const message = received.message as ReaderMessage;
          if (message.type === 'failed') throw new Error(`import reader: ${message.message}`);
          yield message;
          Atomics.add(state, TAKEN, 1);
          Atomics.notify(state, TAKEN);
          if (message.type === 'done') { finished = true; return; }
        }
      } finally {
        if (!finished) {
          Atomics.store(state, CANCELLED, 1);
          Atomics.notify(state, TAKEN);
        }
        port1.close();
      }
    },

    async close() {
      const w = worker;
      worker = null;
      loaded = null;
      if (w) await w.terminate();
    },
  };
}
