// Starts goldset's HTTP server: the only module that reads process.env.
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/connection.ts';
import { migrate, MigrationError } from './db/migrate.ts';
import { startCheckpointer } from './db/checkpointer.ts';
import { createLogger } from './log.ts';
import { createAppContext } from './app-context.ts';
import { createApp } from './app.ts';
import { startLabelThread } from './labels/label-thread-client.ts';

function start(): void {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) { console.error(`goldset: ${err.message}`); process.exit(2); }
    throw err;
  }
  const log = createLogger(config.logLevel);
  const db = openDatabase(config.dbFile, { synchronous: config.synchronous });
  try {
    const applied = migrate(db);
    if (applied.length) log.info('db.migrated', { file: config.dbFile, versions: applied });
  } catch (err) {
    if (err instanceof MigrationError) {
      console.error(`goldset: cannot start: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const checkpointer = startCheckpointer(db, log);
  const ctx = createAppContext(db, config, log);
  // Rows an earlier process committed without indexing them for search (an import cut short by a stop).
  ctx.searchIndex.schedule();
  // The import reader's thread loads once at start rather than inside the first import.
  ctx.imports.warm().catch((err: Error) => log.error('imports.reader_failed', { error: err.message }));
  const resumed = ctx.runner.resumeUnfinished();
  if (resumed.length) log.info('runs.resumed', { runs: resumed });
  // Save-and-next's SQL and rendering on another core (labels/label-thread.ts).
  const labelThread = startLabelThread(ctx);
  const server = createApp(ctx, { labelThread }).listen(config.port, config.host, () => {
    log.info('server.listening', { url: `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`, db: config.dbFile });
  });
  const prune = setInterval(() => ctx.sessionStore.prune(), 60 * 60 * 1000).unref();
  const stop = () => {
    clearInterval(prune);
    server.close(() => { void Promise.all([checkpointer.stop(), ctx.imports.close(), labelThread.close()]).finally(() => { ctx.group.flush(); db.close(); process.exit(0); }); });
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

start();
