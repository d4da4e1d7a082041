// The labelling thread: makes htmx save-and-next requests (save-and-next.ts) on its own connection,
// so that their SQL and rendering run beside the main thread's middleware, on another core. Every
// write is committed in its own group commit (group-commit.ts) before any answer of that group leaves,
// and the main thread's kept figures follow them (derived-cache.ts followWrite) before it sends them.
// Started by label-thread-client.ts; a worker entry (server/worker-boot.mjs).
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config.ts';
import { openDatabase } from '../db/connection.ts';
import type { Logger } from '../log.ts';
import { createAppContext } from '../app-context.ts';
import { recordingCache } from '../db/derived-cache.ts';
import { translator } from '../i18n/index.ts';
import type { PageContext } from '../../views/layout.tsx';
import { fragmentAnswer, saveAndNext, type FragmentAnswer } from './save-and-next.ts';
import type { Batch, SaveRequest } from './label-thread-client.ts';

const port = parentPort!;
const config = workerData.config as Config;
const db = openDatabase(config.dbFile, { synchronous: config.synchronous });
db.pragma(`wal_autocheckpoint = ${Number(workerData.walAutocheckpoint)}`);
// Log lines go to the app's own log, in the main thread.
const at = (level: keyof Logger) => (event: string, fields?: Record<string, unknown>) => port.postMessage({ log: [level, event, fields ?? {}] });
const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
let rolledBack = false;
const derived = recordingCache(db, () => { rolledBack = true; });
const app = createAppContext(db, config, log, { derived });

let answers: { id: number; answer: FragmentAnswer | null }[] = [];
let scheduled = false;

/** Sends the turn's answers once its group has committed (the flush its first join scheduled has run before this; flushing again is a no-op). */
function answerTurn(): void {
  scheduled = false;
  app.group.flush();
  const failed = rolledBack;
  rolledBack = false;
  const batch: Batch = { answers: failed ? answers.map((a) => ({ id: a.id, answer: null })) : answers, writes: failed ? [] : derived.drain() };
  answers = [];
  port.postMessage(batch);
}

port.on('message', (m: SaveRequest & { id: number }) => {
  let answer: FragmentAnswer | null;
  try {
    app.group.join();
    const ctx: PageContext = { t: translator(m.locale), locale: m.locale, user: m.user, csrfToken: m.csrfToken, path: m.path, url: m.url };
    answer = fragmentAnswer(saveAndNext(app, ctx, m.responseId, m.body));
  } catch (err) {
    log.error('label_thread.failed', { message: (err as Error).message, stack: (err as Error).stack });
    answer = null;
  }
  answers.push({ id: m.id, answer });
  if (!scheduled) { scheduled = true; setImmediate(answerTurn); }
});
port.postMessage('ready');
