// Test harness: the real app on a real SQLite file in a temp folder, served on loopback, and a
// browser-like client that keeps cookies and sends the page's CSRF token the way forms do.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { loadConfig } from '../server/config.ts';
import { openDatabase, type DB } from '../server/db/connection.ts';
import { migrate } from '../server/db/migrate.ts';
import { createLogger } from '../server/log.ts';
import { createAppContext, type AppContext } from '../server/app-context.ts';
import { startLabelThread, type LabelThread } from '../server/labels/label-thread-client.ts';
import { createApp } from '../server/app.ts';
import { TEST_ENV } from './test-env.ts';
import { loadExampleData } from '../server/datasets/example.ts';
import { auditFieldNamed } from '../views/pages/audit-list.tsx';

export interface TestApp {
  ctx: AppContext;
  url: string;
  dir: string;
  logs: string[];
  /**
   * Whether close() checks that the audit log can name every field of every event the app recorded
   * (true): a new kind of event, or a new field of one, fails the test that makes it until the field
   * has a name in the messages. A test that records made-up shapes on purpose turns it off.
   */
  checkAuditFields: boolean;
  /** The labelling thread, when the app was started with one (as server/main.ts starts it), ready. */
  labelThread?: LabelThread;
  close(): Promise<void>;
}

/** The fields, as "field (entity.action)", of the events in this database that the audit log has no name for. */
export function unnamedAuditFields(db: DB): string[] {
  const unnamed = new Set<string>();
  for (const e of db.prepare('SELECT entity_type, action, before, after FROM audit_event').all() as { entity_type: string; action: string; before: string | null; after: string | null }[]) {
    for (const side of [e.before, e.after]) {
      const value: unknown = side === null ? null : JSON.parse(side);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
      for (const key of Object.keys(value)) if (!auditFieldNamed(key)) unnamed.add(`${key} (${e.entity_type}.${e.action})`);
    }
  }
  return [...unnamed];
}

function checkAuditFields(db: DB): void {
  const unnamed = unnamedAuditFields(db);
  if (unnamed.length) throw new Error(`audit events record fields the audit log has no name for (add audit.field.* messages): ${unnamed.join(', ')}`);
}

/** `labelThread`: start the app with its labelling thread, as server/main.ts does (htmx save-and-next made there). */
export async function startTestApp(env: Record<string, string> = {}, { labelThread: withThread = false } = {}): Promise<TestApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-test-'));
  const config = loadConfig({ ...TEST_ENV, GOLDSET_DB: path.join(dir, 'test.db'), GOLDSET_MAX_UPLOAD_MB: '5', ...env });
  const logs: string[] = [];
  const log = createLogger('debug', (line) => logs.push(line));
  const db = openDatabase(config.dbFile);
  migrate(db);
  const ctx = createAppContext(db, config, log);
  const labelThread = withThread ? startLabelThread(ctx) : undefined;
  await labelThread?.ready;
  const server: Server = await new Promise((resolve) => {
    const s = createApp(ctx, labelThread ? { labelThread } : {}).listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const app: TestApp = {
    ctx, dir, logs, url: `http://127.0.0.1:${port}`, checkAuditFields: true, ...(labelThread ? { labelThread } : {}),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await ctx.imports.close();
      await labelThread?.close();
      try {
        if (app.checkAuditFields && db.open) checkAuditFields(db);
      } finally {
        db.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return app;
}

/** The app's services on a fresh, migrated SQLite file in a temp folder, without HTTP. */
export interface TestContext { dir: string; file: string; db: DB; ctx: AppContext; close(): Promise<void> }

export function openTestContext(prefix = 'goldset-test-'): TestContext {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const file = path.join(dir, 'g.db');
  const db = openDatabase(file);
  migrate(db);
  const ctx = createAppContext(db, loadConfig({ ...TEST_ENV, GOLDSET_DB: file }), createLogger('silent'));
  return {
    dir, file, db, ctx,
    async close() {
      await ctx.imports.close();
      try {
        if (db.open) checkAuditFields(db);
      } finally {
        db.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export interface Res { status: number; text: string; headers: Headers }

/** A user agent: follows nothing automatically, keeps the session cookie, reads CSRF tokens from pages. */
export class Client {
  /** The cookies the app set, by name (the session's, the anonymous CSRF nonce, the language). */
  readonly cookies = new Map<string, string>();
  csrf = '';
  constructor(readonly base: string, readonly lang = 'en') {}

  /** The Cookie header this client sends. */
  get cookie(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** Takes over another client's cookies from its Cookie header (a second tab, another language). */
  set cookie(header: string) {
    this.cookies.clear();
    for (const pair of header.split(';')) {
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }

  /** The session cookie alone (e.g. to tell whether a sign-in started a new session). */
  get session(): string {
    return this.cookies.get('goldset.sid') ?? '';
  }

  async request(method: string, url: string, init: { body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Res> {
    const res = await fetch(this.base + url, {
      method, redirect: 'manual', ...(init.body !== undefined ? { body: init.body } : {}),
      headers: { 'Accept-Language': this.lang, ...(this.cookies.size ? { Cookie: this.cookie } : {}), ...init.headers },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq), value = pair.slice(eq + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(c) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const token = /name="csrf-token" content="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    return { status: res.status, text, headers: res.headers };
  }

  get(url: string, headers: Record<string, string> = {}) { return this.request('GET', url, { headers }); }

  /** Posts a form as a browser would, with the CSRF token of the last page seen (unless given). */
  post(url: string, fields: Record<string, string | number>, opts: { csrf?: string | null; headers?: Record<string, string> } = {}) {
    const body = new URLSearchParams();
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (token !== null) body.set('_csrf', token);
    for (const [k, v] of Object.entries(fields)) body.set(k, String(v));
    return this.request('POST', url, { body, headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...opts.headers } });
  }

  async upload(url: string, filename: string, content: string | Buffer, fields: Record<string, string> = {}) {
    const form = new FormData();
    form.set('_csrf', this.csrf);
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    form.set('file', new Blob([typeof content === 'string' ? content : new Uint8Array(content)]), filename);
    return this.request('POST', url, { body: form });
  }
}

export const ADMIN = { email: 'admin@example.com', name: 'Ada Admin', password: 'correct horse battery' };

/** First-run setup through the real page; returns the admin's logged-in client. */
export async function setupAdmin(app: TestApp, lang = 'en'): Promise<Client> {
  const c = new Client(app.url, lang);
  await c.get('/setup');
  const res = await c.post('/setup', ADMIN);
  if (res.status !== 303) throw new Error(`setup failed: ${res.status} ${res.text.slice(0, 300)}`);
  await c.get('/datasets'); // the session (and its CSRF token) is new after login
  return c;
}

/** A test app set up by its admin, with both example datasets loaded (as the Datasets page's button does); the admin's client. */
export async function startExampleApp(): Promise<{ app: TestApp; admin: Client }> {
  const app = await startTestApp();
  const admin = await setupAdmin(app);
  await loadExampleData(app.ctx, app.ctx.users.queries.byEmail(ADMIN.email)!.id);
  return { app, admin };
}

/** Creates a user directly through the service and returns a logged-in client for them. */
export async function loginAs(app: TestApp, email: string, role: 'admin' | 'expert' | 'viewer', lang = 'en'): Promise<Client> {
  const password = 'a long enough password';
  if (!app.ctx.users.queries.byEmail(email)) await app.ctx.users.createUser(null, { email, name: email.split('@')[0]!, role, password });
  const c = new Client(app.url, lang);
  await c.get('/login');
  const res = await c.post('/login', { email, password });
  if (res.status !== 303) throw new Error(`login failed: ${res.status}`);
  await c.get('/datasets');
  return c;
}

/** A dataset seeded at scale for the query-count test and bench/pages.ts; ids of one of each thing in it. */
export interface ScaleDataset {
  datasetId: number; runId: number; firstRunId: number; responseId: number; sampleId: number; criterionId: number;
  /** The per-context criterion "relevant" and a context_precision run with a verdict per context. */
  contextCriterionId: number; contextRunId: number;
}

/**
 * Imports a dataset of `items` items: each a sample with an answer, two retrieved contexts and a tag,
 * labelled by two experts (the second disagrees on every third item; per context, on every fifth
 * second context), and judged by `runs` imported runs (one from the first expert's file, the rest
 * from score-only files) and by a context_precision run whose trace keeps a verdict and a reason
 * per context (written directly: the fake judge is not needed). Files are written in
 * chunks of 1,000 rows, so 100,000 items never sit in memory as one string. Needs the admin of
 * setupAdmin.
 */
export async function seedScaleDataset(app: TestApp, name: string, items: number, runs = 1): Promise<ScaleDataset> {
  const { ctx } = app;
  const adminId = ctx.users.queries.byEmail(ADMIN.email)!.id;
  const datasetId = ctx.datasets.create(adminId, { name, description: '', language: 'zh', domain: 'hr' }).id;
  const record = (i: number) => ({
    user_input: `第 ${i} 个问题：张伟是哪个部门的？新员工入职第一周需要完成什么？`, reference: `张伟在研发部（${i}）。`, response: `回答 ${i}：张伟在研发部。`,
    retrieved_contexts: [`通讯录 ${i}：张伟 研发部`, `无关段落 ${i}`], system: i % 2 ? 'v1' : 'v2', tags: [i % 3 ? 'hr' : 'it'], faithfulness: (i % 10) / 10,
  });
  const importFile = async (file: string, rowOf: (i: number) => object, options: { annotatorId?: number; runName?: string }) => {
    const fd = fs.openSync(file, 'w');
    for (let start = 0; start < items; start += 1000) {
      let chunk = '';
      for (let i = start; i < Math.min(items, start + 1000); i++) chunk += JSON.stringify(rowOf(i)) + '\n';
      fs.writeSync(fd, chunk);
    }
    fs.closeSync(fd);
    const result = await ctx.imports.importFile(adminId, datasetId, file, { format: 'jsonl', ...options });
    fs.rmSync(file);
    if (!result.ok) throw new Error(`seed import failed: ${JSON.stringify(result).slice(0, 300)}`);
  };
  for (const [k, who] of ['li', 'wang'].entries()) {
    const annotatorId = (await ctx.users.createUser(null, { email: `${who}-${name}@example.com`, name: who, role: 'expert', password: 'a long enough password' })).id;
    await importFile(path.join(app.dir, `${name}-${who}.jsonl`), (i) => ({ ...record(i), 'human.correct': (i % 2 === 0) !== (k === 1 && i % 3 === 0) ? 'yes' : 'no',
      'human.relevant': [1, k === 1 && i % 5 === 0 ? 1 : 0] }),
      { annotatorId, ...(k === 0 && runs > 0 ? { runName: 'judge-v1' } : {}) });
  }
  for (let k = 2; k <= runs; k++) await importFile(path.join(app.dir, `${name}-run-${k}.jsonl`), record, { runName: `judge-v${k}` });
  const one = (sql: string) => ctx.db.prepare(sql).pluck().get(datasetId) as number;
  const runId = one('SELECT max(id) FROM run WHERE dataset_id = ?');
  const firstRunId = one('SELECT min(id) FROM run WHERE dataset_id = ?');
  const contextRunId = Number(ctx.db.prepare(`INSERT INTO run (dataset_id, name, metric_key, source, status, n_total)
    VALUES (?, 'verify-v1', 'context_precision', 'goldset', 'done', ?)`).run(datasetId, items).lastInsertRowid);
  ctx.db.prepare(`INSERT INTO score (run_id, response_id, status, value, trace)
    SELECT @run, r.id, 'ok', 1.0, json_object(
      'steps', json_array(json_object('step', 'verify', 'parsed', json_object('reason', '通讯录写明张伟在研发部。', 'verdict', 1)),
        json_object('step', 'verify', 'parsed', json_object('reason', '与问题无关。', 'verdict', r.id % 4 = 0))),
      'values', json_object('verdicts', json_array(1, r.id % 4 = 0)), 'computation', '')
    FROM response r WHERE r.dataset_id = @ds`).run({ run: contextRunId, ds: datasetId });
  return {
    datasetId, runId, firstRunId, contextRunId,
    contextCriterionId: one("SELECT id FROM criterion WHERE dataset_id = ? AND name = 'relevant'"),
    responseId: one('SELECT min(id) FROM response WHERE dataset_id = ?'),
    sampleId: one('SELECT min(id) FROM sample WHERE dataset_id = ?'),
    criterionId: one('SELECT min(id) FROM criterion WHERE dataset_id = ?'),
  };
}
