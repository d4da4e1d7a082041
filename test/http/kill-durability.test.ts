// A kill of the server at any moment loses no save it has answered. The server commits by groups
// (server/db/group-commit.ts): the saves of one turn of the event loop share a COMMIT and no answer
// leaves before it. Here four experts save and take the next item as fast as they can against the
// real server process (server/main.ts), which is killed with SIGKILL in the middle of it; every save
// that got its 200 must be in the database when it is opened again, with its audit event.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, openTestContext } from '../helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PASSWORD = 'a long enough password';
const EXPERTS = 4;
const ITEMS = 400;
/** Answered saves before the kill. */
const KILL_AFTER = 60;

let dir: string;
let file: string;
let datasetId: number;
let criterionId: number;
let child: ChildProcess | null = null;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  const env = openTestContext('goldset-kill-');
  ({ dir, file } = env);
  const { ctx } = env;
  await ctx.users.createFirstAdmin({ email: 'admin@example.com', name: 'Admin', password: PASSWORD });
  for (let i = 0; i < EXPERTS; i++) await ctx.users.createUser(null, { email: `e${i}@example.com`, name: `E${i}`, role: 'expert', password: PASSWORD });
  datasetId = ctx.datasets.create(null, { name: 'kill', description: '', language: 'en', domain: '' }).id;
  criterionId = ctx.criteria.create(null, datasetId, { name: 'correct', kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null, guidelines: '' }).id;
  const items = path.join(dir, 'items.jsonl');
  fs.writeFileSync(items, Array.from({ length: ITEMS }, (_, i) => JSON.stringify({
    user_input: `question ${i}`, reference: `answer ${i}`, response: `reply ${i}`, retrieved_contexts: [`context ${i}`],
  })).join('\n'));
  const imported = await ctx.imports.importFile(null, datasetId, items, { format: 'jsonl' });
  if (!imported.ok) throw new Error(JSON.stringify(imported));
  await ctx.imports.close();
  env.db.close();
}, 60_000);

afterAll(() => {
  child?.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts server/main.ts on the prepared database and waits until it answers. */
async function startServer(): Promise<string> {
  const port = await freePort();
  child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT, stdio: 'ignore',
    env: { ...process.env, GOLDSET_DB: file, PORT: String(port), HOST: '127.0.0.1', GOLDSET_LOG_LEVEL: 'error' },
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try { if ((await fetch(`${url}/healthz`)).ok) return url; } catch { /* not up yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('server did not start');
}

describe('a kill of the server', () => {
  it('loses no save it had answered, while experts save and take the next item as fast as they can', async () => {
    const url = await startServer();
    const acknowledged: { email: string; response: number }[] = [];
    let killed = false;
    const kill = () => { if (!killed) { killed = true; child!.kill('SIGKILL'); } };
    const htmx = { headers: { 'HX-Request': 'true' } };
    // Everyone signed in with a first item before anyone saves, so the kill cannot come mid-sign-in.
    async function signIn(email: string) {
      const c = new Client(url);
      await c.get('/login');
      expect((await c.post('/login', { email, password: PASSWORD })).status).toBe(303);
      await c.get(`/datasets/${datasetId}/label`);
      return { c, email, first: await c.post(`/datasets/${datasetId}/label/next`, {}, htmx) };
    }
    async function expert({ c, email, first }: Awaited<ReturnType<typeof signIn>>) {
      let page = first;
      try {
        while (!killed) {
          const current = Number(/data-response="(\d+)"/.exec(page.text)?.[1]);
          if (!current) break;
          page = await c.post(`/responses/${current}/label`, { [`c${criterionId}`]: '1', rationale: '', corrected_answer: '', version: '' }, htmx);
          expect(page.status).toBe(200);
          acknowledged.push({ email, response: current });
          if (acknowledged.length >= KILL_AFTER) kill();
        }
      } catch (err) {
        if (!killed) throw err; // a request cut off by the kill: not acknowledged, nothing to check
      }
    }
    const signedIn = await Promise.all(Array.from({ length: EXPERTS }, (_, i) => signIn(`e${i}@example.com`)));
    await Promise.all(signedIn.map(expert));
    expect(killed).toBe(true);
    await new Promise<void>((resolve) => (child!.exitCode !== null || child!.signalCode !== null ? resolve() : child!.once('exit', () => resolve())));

    const db = new Database(file);
    const submitted = db.prepare(`SELECT 1 FROM annotation a JOIN user u ON u.id = a.annotator_id
      WHERE a.response_id = ? AND u.email = ? AND a.state = 'submitted'`).pluck();
    const audited = db.prepare(`SELECT count(*) FROM audit_event e JOIN annotation a ON a.id = e.entity_id JOIN user u ON u.id = a.annotator_id
      WHERE e.entity_type = 'label' AND e.action = 'submit' AND a.response_id = ? AND u.email = ?`).pluck();
    const lost = acknowledged.filter(({ email, response }) => submitted.get(response, email) === undefined || audited.get(response, email) !== 1);
    db.close();
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(lost).toEqual([]);
  }, 60_000);
});
