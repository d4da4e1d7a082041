/**
 * The HTTP server side of bench/label.ts, run in a child process so that the server and the load
 * generator (autocannon) do not share one event loop.
 *
 *   node --import tsx bench/label-server.ts goldset DB_FILE   the real app on an existing database, plus
 *                                                             POST /bench/floor: answers "ok" to a logged-in
 *                                                             user after all of the app's middleware
 *   node --import tsx bench/label-server.ts bare              a bare express 5 app: POST / and GET / answer "ok"
 *
 * Listens on 127.0.0.1 on a free port and prints one line `LISTENING <port>` on stdout. Stops on
 * SIGTERM or SIGINT (or when the parent's stdin closes) with process.exit, so that a `--cpu-prof`
 * profile is written.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/db/connection.ts';
import { migrate } from '../server/db/migrate.ts';
import { startCheckpointer } from '../server/db/checkpointer.ts';
import { createLogger } from '../server/log.ts';
import { createAppContext } from '../server/app-context.ts';
import { createApp } from '../server/app.ts';
import { startLabelThread } from '../server/labels/label-thread-client.ts';
import { requireUser } from '../server/http/security.ts';

const [mode, dbFile] = process.argv.slice(2);
let server: Server;
let close = (): void => {};

if (mode === 'goldset') {
  if (!dbFile) throw new Error('usage: label-server.ts goldset DB_FILE');
  // As server/main.ts does it (background checkpoints and the labelling thread included), with the default settings
  // (synchronous = NORMAL) and only errors logged. The load starts once the labelling thread takes saves.
  const config = loadConfig({ GOLDSET_DB: dbFile });
  const db = openDatabase(config.dbFile, { synchronous: config.synchronous });
  migrate(db);
  const log = createLogger('error');
  startCheckpointer(db, log); // ends with the process
  const ctx = createAppContext(db, config, log);
  const labelThread = startLabelThread(ctx);
  await labelThread.ready;
  // The middleware floor: everything a logged-in htmx POST passes through before goldset's routes.
  const floor = express.Router();
  floor.post('/bench/floor', requireUser, (_req, res) => { res.send('ok'); });
  server = createApp(ctx, { firstRoutes: floor, labelThread }).listen(0, '127.0.0.1', listening);
  close = () => { void labelThread.close(); ctx.group.flush(); db.close(); };
} else if (mode === 'bare') {
  const app = express();
  app.get('/', (_req, res) => { res.send('ok'); });
  app.post('/', (_req, res) => { res.send('ok'); });
  server = app.listen(0, '127.0.0.1', listening);
} else {
  throw new Error(`unknown mode ${mode}: goldset or bare`);
}

function listening(): void {
  process.stdout.write(`LISTENING ${(server.address() as AddressInfo).port}\n`);
}

let stopping = false;
function stop(): void {
  if (stopping) return;
  stopping = true;
  server.closeAllConnections();
  server.close(() => {
    close();
    process.exit(0);
  });
  setTimeout(() => process.exit(0), 3000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
