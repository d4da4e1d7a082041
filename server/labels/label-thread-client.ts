// The main thread's side of the labelling thread (label-thread.ts): hands it htmx save-and-next
// requests and gets their answers back, in the order of its group commits; the main thread's kept
// figures follow each group's writes before its answers are sent. Until the thread is ready, and if
// it stops, saves are made in the main thread as before (save-and-next.ts); a save the thread was
// making when it stopped gets the error page (it may or may not have been committed: the expert's
// next save of the item says which, as a stale form would).
import { Worker } from 'node:worker_threads';
import type { AppContext } from '../app-context.ts';
import type { CurrentUser } from '../http/context.ts';
import type { Locale } from '../i18n/index.ts';
import type { RecordedWrite } from '../db/derived-cache.ts';
import type { FragmentAnswer } from './save-and-next.ts';

/** What the main thread sends: the request as save-and-next reads it. */
export interface SaveRequest { responseId: number; body: Record<string, unknown>; user: CurrentUser; locale: Locale; csrfToken: string; path: string; url: string }
/** One group commit's answers (null: not saved) and the writes it committed. */
export interface Batch { answers: { id: number; answer: FragmentAnswer | null }[]; writes: RecordedWrite[] }

export interface LabelThread {
  /** Settles when the thread has its connection and takes saves (until then they are made in the main thread). */
  ready: Promise<void>;
  /** The answer, or null when there is no thread to make it (make it in this thread); rejects when the save failed. */
  save(request: SaveRequest): Promise<FragmentAnswer> | null;
  close(): Promise<void>;
}

export function startLabelThread(app: AppContext): LabelThread {
  const worker = new Worker(new URL('../worker-boot.mjs', import.meta.url), {
    // The automatic checkpoint as the app's connection has it: off while the checkpointer's thread runs (db/checkpointer.ts).
    workerData: { entry: new URL('./label-thread.ts', import.meta.url).href, config: app.config, walAutocheckpoint: app.db.pragma('wal_autocheckpoint', { simple: true }) },
  });
  worker.unref();
  let ready = false;
  let stopped = false;
  let isReady = () => {};
  const readyPromise = new Promise<void>((resolve) => { isReady = resolve; });
  let next = 1;
  const waiting = new Map<number, { resolve: (a: FragmentAnswer) => void; reject: (e: Error) => void }>();
  const follow = writeFollower(app);
  const stop = (why: string) => {
    if (stopped) return;
    stopped = true;
    if (waiting.size) app.log.error('label_thread.stopped', { reason: why, unanswered: waiting.size });
    for (const w of waiting.values()) w.reject(new Error(`the labelling thread stopped: ${why}`));
    waiting.clear();
  };
  worker.on('message', (m: 'ready' | { log: [keyof AppContext['log'], string, Record<string, unknown>] } | Batch) => {
    if (m === 'ready') { ready = true; isReady(); return; }
    if ('log' in m) { app.log[m.log[0]](m.log[1], m.log[2]); return; }
    follow(m.writes);
    for (const { id, answer } of m.answers) {
      const w = waiting.get(id);
      waiting.delete(id);
      if (answer) w?.resolve(answer); else w?.reject(new Error('the labelling thread could not save'));
    }
  });
  worker.on('error', (err) => { app.log.error('label_thread.error', { message: err.message, stack: err.stack }); stop(err.message); });
  worker.on('exit', (code) => stop(`exit ${code}`));
  return {
    ready: readyPromise,
    save(request) {
      if (!ready || stopped) return null;
      const id = next++;
      return new Promise<FragmentAnswer>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ ...request, id });
      });
    },
    async close() { stopped = true; await worker.terminate(); },
  };
}

/** Writes of the thread to one dataset that follow each other (each one's version after is the next one's before), not yet followed. */
interface Run { from: number; to: number; touched: Map<number, RecordedWrite['touched'][number][1]> }

/**
 * The main thread's kept figures follow the thread's writes. Consecutive writes to a dataset are
 * followed as one run: the values kept at its first version before are brought to its last version
 * after, once the dataset is at that version here. When it is already further on (the thread has
 * committed its next group, whose answers are on their way), the run waits for that group's writes,
 * which continue it. A gap (another connection wrote between two of the thread's writes) ends the run
 * unfollowed: the values are then computed again when next asked.
 */
export function writeFollower(app: AppContext): (writes: readonly RecordedWrite[]) => void {
  const runs = new Map<number, Run>();
  return (writes) => {
    for (const w of writes) {
      const run = runs.get(w.datasetId);
      if (run && run.to === w.from) run.to = w.to;
      else runs.set(w.datasetId, { from: w.from, to: w.to, touched: new Map() });
      const current = runs.get(w.datasetId)!;
      for (const [id, known] of w.touched) current.touched.set(id, known);
    }
    for (const [datasetId, run] of runs) {
      if (app.derived.followWrite(datasetId, run.from, run.to, [...run.touched])) runs.delete(datasetId);
    }
  };
}
