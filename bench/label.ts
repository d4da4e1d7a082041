/**
 * Labelling benchmark: "save a label and get the next item" (POST /responses/:rid/label as htmx
 * sends it, answered with the next item's workspace fragment), loaded with autocannon on loopback
 * against a dataset of 100,000 responses, compared in the same run with a bare express 5 handler
 * returning a constant. Target: goldset ≥ 40% of the bare handler's throughput and p99 < 20 ms.
 * A third load, the "middleware floor", posts the same requests to a route of the goldset server
 * that answers "ok" after all of its middleware: how much of the bare handler is left before
 * goldset's own work starts.
 *
 *   npx tsx bench/label.ts [--responses 100000] [--connections 20] [--duration 10] [--warmup 2]
 *                          [--repeat 3] [--mode follow|slices] [--probe 200] [--profile]
 *
 * Both servers run in child processes (bench/label-server.ts), so the load generator has its own
 * event loop (and, on a machine with 2+ cores, its own core). Each autocannon connection is one
 * expert with its own session. --mode follow (default): each expert labels exactly the item the
 * previous answer handed it (data-response="…"), as a browser does; --mode slices: expert k labels
 * its own contiguous slice of response ids in order, items the queue never handed it (each item is
 * labelled once either way, as overlap 1 wants).
 * Before the load, a probe expert labels --probe items one at a time through an in-process copy of
 * the app, to count SQL statements per request and give the unloaded latency. --profile writes a
 * V8 CPU profile of the goldset server child, prints where its time went and keeps the profile in
 * the system temp folder. BENCH_SERVER_FLAGS (environment, space-separated) adds Node or V8 flags
 * to the goldset server child only, e.g. "--perf-basic-prof-only-functions" so that `perf record -p
 * <pid>` (the pid is printed) names JavaScript frames, or "--log-deopt --logfile=…" (bench/README.md).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
// @ts-expect-error autocannon 8 ships no type declarations (the few fields used are typed below)
import autocannonUntyped from 'autocannon';
import { openDatabase, type DB } from '../server/db/connection.ts';
import { createApp } from '../server/app.ts';
import { questionKey } from '../server/samples/queries.ts';
import { responseHash } from '../server/responses/queries.ts';
import { CLAIM_MINUTES, labelQueries } from '../server/labels/queries.ts';
import {
  BENCH_DIR, benchContext, cpuMsOf, mainThreadCpuMsOf, writeCallsOf, failOnChecks, flag, intArg, isMain, median, ms, openBenchApp, PASSWORD, printChecks, prng, ROOT, runInfo,
  sentence, startChild, strArg, table, tempDir, writeResult, type ChildHandle,
} from './common.ts';

/** Issue #16: goldset's requests per second at least half the middleware floor's, in the same run. */
const TARGET_FLOOR_RATIO = 0.5;
/** The earlier target against the bare express handler, still reported. */
const TARGET_RATIO = 0.4;
const TARGET_P99_MS = 20;
const SERVER_SCRIPT = path.join(BENCH_DIR, 'label-server.ts');

// ---------------------------------------------------------------------------------------------
// autocannon: the part of its programmatic API this bench uses

interface AcRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  setupRequest?: (req: AcRequest, context: Record<string, unknown>) => AcRequest | null;
  onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string | string[]>) => void;
}
interface AcClient { setRequests(requests: AcRequest[]): void }
interface AcOptions extends AcRequest {
  url: string;
  connections: number;
  duration: number;
  pipelining?: number;
  timeout?: number;
  /** Requests per second over all connections (an open loop); unset: each connection sends as soon as it has its answer. */
  overallRate?: number;
  requests?: AcRequest[];
  setupClient?: (client: AcClient) => void;
}
interface Histo { average: number; mean: number; stddev: number; min: number; max: number; p50: number; p90: number; p99: number; total: number; sent?: number }
interface AcResult {
  duration: number; errors: number; timeouts: number; non2xx: number; mismatches: number; resets: number;
  '2xx': number; statusCodeStats: Record<string, { count: number }>;
  latency: Histo & { p97_5: number; p99_9: number; totalCount: number };
  requests: Histo;
  throughput: Histo;
}
const autocannon = autocannonUntyped as (opts: AcOptions) => Promise<AcResult>;

// ---------------------------------------------------------------------------------------------
// Arguments (0 is accepted everywhere; connections, duration and repeat are raised to at least 1)

const RESPONSES = intArg('responses', 100_000, 0);
const CONNECTIONS = Math.max(1, intArg('connections', 20, 0));
const DURATION = Math.max(1, intArg('duration', 10, 0));
const WARMUP = intArg('warmup', 2, 0);
const REPEAT = Math.max(1, intArg('repeat', 3, 0));
const PROBE = intArg('probe', 200, 0);
const MODE = strArg('mode', ['follow', 'slices'] as const, 'follow');
const PROFILE = flag('profile');
/**
 * The paced load's rate, as a share of goldset's median closed-loop throughput in this run (0: no
 * paced load). A closed loop measures throughput: its latency is the connections' queue, N ÷
 * throughput. The paced load sends at a fixed overall rate over the same connections, so its
 * latency is what one request costs while experts work beside each other without saturating the server.
 */
const PACED_SHARE = intArg('paced', 50, 0) / 100;
/**
 * Another checkout of goldset (its root folder) whose server is loaded too, on a copy of the same
 * database, interleaved with this one's in every repetition: what a change gains, measured in the
 * same windows of the machine (on a shared machine the same code moves by ±20% between runs).
 */
/**
 * Slices per side and repetition: each side's measured time is cut into this many slices, taken in
 * turn with the other sides' (goldset, floor, goldset, floor, …), so that every side sees the same
 * phases of a machine whose speed moves within seconds. 1: each side's time in one piece.
 */
const SLICES = Math.max(1, intArg('slices', 5, 0));
const COMPARE = (() => {
  const i = process.argv.indexOf('--compare');
  return i < 0 ? null : path.resolve(process.argv[i + 1] ?? '.');
})();
/** Node or V8 flags for the goldset server child only (see the header). */
const SERVER_FLAGS = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);

// ---------------------------------------------------------------------------------------------
// Deterministic data (bench/common.ts: prng, sentence ending in 。 or .)

const TAGS = ['billing', 'hr', 'it', 'legal', 'product', 'security'];
const SYSTEMS = ['rag-v1', 'rag-v2'];

// ---------------------------------------------------------------------------------------------
// Helpers

/** Nearest-rank percentile (bench/judge.ts's `pct` rounds differently; each keeps its own). */
const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
// ---------------------------------------------------------------------------------------------
// Setup: a fresh database with 100,000 samples and responses, one criterion, an admin and experts

export interface Setup { db: DB; datasetId: number; criterionId: number; expertIds: number[]; probeId: number; responseIds: number[] }

export async function setup(file: string): Promise<Setup> {
  const { db, ctx } = openBenchApp(file);
  const admin = await ctx.users.createFirstAdmin({ email: 'admin@bench.test', name: 'Admin', password: PASSWORD });
  const users = await Promise.all(Array.from({ length: CONNECTIONS + 1 }, (_, i) =>
    ctx.users.createUser(admin.id, { email: `expert${i}@bench.test`, name: `Expert ${i}`, role: 'expert', password: PASSWORD })));
  const dataset = ctx.datasets.create(admin.id, { name: 'label bench', description: 'bench/label.ts', language: 'zh', domain: 'support' });
  const criterion = ctx.criteria.create(admin.id, dataset.id, {
    name: 'correct', kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null,
    guidelines: 'Is the answer correct and supported by the retrieved contexts?',
  });

  const rand = prng(20240612);
  const insertSample = db.prepare(`INSERT INTO sample (dataset_id, question_key, question, ground_truth, reference_contexts, tags)
    VALUES (?, ?, ?, ?, ?, ?)`);
  const insertTag = db.prepare('INSERT INTO sample_tag (sample_id, tag) VALUES (?, ?)');
  const insertResponse = db.prepare(`INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, metadata, content_hash)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const responseIds: number[] = [];
  db.transaction(() => {
    for (let i = 0; i < RESPONSES; i++) {
      const question = `${sentence(rand, 30, 140)} #${i + 1}`;
      const tag = TAGS[Math.floor(rand() * TAGS.length)]!;
      const sampleId = Number(insertSample.run(dataset.id, questionKey(question), question, sentence(rand, 40, 200),
        JSON.stringify([sentence(rand, 150, 400)]), JSON.stringify([tag])).lastInsertRowid);
      insertTag.run(sampleId, tag);
      const system = SYSTEMS[i % SYSTEMS.length]!;
      const answer = sentence(rand, 80, 400);
      const contexts = [sentence(rand, 200, 600), sentence(rand, 200, 600), sentence(rand, 200, 600)];
      const metadata = JSON.stringify({ latency_ms: Math.round(300 + rand() * 2000), model: 'qwen2.5-72b' });
      responseIds.push(Number(insertResponse.run(sampleId, dataset.id, system, answer, JSON.stringify(contexts), metadata,
        responseHash(system, answer, contexts)).lastInsertRowid));
    }
  })();
  // No ANALYZE: the app never runs it, so the query planner works without statistics, as in production.
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { db, datasetId: dataset.id, criterionId: criterion.id, expertIds: users.slice(0, CONNECTIONS).map((u) => u.id), probeId: users[CONNECTIONS]!.id, responseIds };
}

// ---------------------------------------------------------------------------------------------
// An expert as a browser: session cookie, CSRF token, the label form as htmx posts it

class Expert {
  cookie = '';
  csrf = '';
  current = 0;
  constructor(readonly base: string, readonly email: string) {}

  async request(method: string, url: string, body?: URLSearchParams, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
    const res = await fetch(this.base + url, {
      method, redirect: 'manual', ...(body ? { body } : {}),
      headers: { 'Accept-Language': 'en', ...(this.cookie ? { Cookie: this.cookie } : {}), ...headers },
    });
    // The session, and before signing in the anonymous CSRF nonce its login form is signed with.
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(';')[0]!;
      if (pair.startsWith('goldset.sid=')) this.cookie = pair;
      else if (pair.startsWith('goldset.csrf=') && !this.cookie.includes('goldset.sid=')) this.cookie = pair;
    }
    const text = await res.text();
    const token = /name="csrf-token" content="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    return { status: res.status, text };
  }

  /**
   * Logs in through the login form, opens the dataset's labelling page (its CSRF token) and presses
   * "Start labelling", which reserves the first item (GETs never do) and redirects to it.
   */
  async login(datasetId: number): Promise<void> {
    await this.request('GET', '/login');
    const res = await this.request('POST', '/login', new URLSearchParams({ _csrf: this.csrf, email: this.email, password: PASSWORD }),
      { 'Content-Type': 'application/x-www-form-urlencoded' });
    if (res.status !== 303) throw new Error(`login of ${this.email} failed: ${res.status} ${res.text.slice(0, 200)}`);
    const page = await this.request('GET', `/datasets/${datasetId}/label`);
    if (page.status !== 200 || !this.csrf) throw new Error(`labelling page for ${this.email}: ${page.status} ${page.text.slice(0, 200)}`);
    const start = await fetch(`${this.base}/datasets/${datasetId}/label/next`, {
      method: 'POST', redirect: 'manual', body: new URLSearchParams({ _csrf: this.csrf }),
      headers: { 'Accept-Language': 'en', Cookie: this.cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    const first = /^\/responses\/(\d+)\/label$/.exec(start.headers.get('location') ?? '')?.[1];
    if (start.status !== 303 || !first) throw new Error(`start labelling for ${this.email}: ${start.status} ${start.headers.get('location')}`);
    this.current = Number(first);
  }

  headers(): Record<string, string> {
    return {
      'Content-Type': 'application/x-www-form-urlencoded', 'Accept-Language': 'en', Cookie: this.cookie,
      'HX-Request': 'true', 'HX-Current-URL': `${this.base}/responses/${this.current}/label`, 'HX-Target': 'workspace', 'X-CSRF-Token': this.csrf,
    };
  }
}

/** The label form of the workspace as the browser sends it: token, version (empty: new annotation), the verdict, rationale. */
function labelBody(csrf: string, criterionId: number, responseId: number): string {
  return new URLSearchParams({
    _csrf: csrf, version: '', [`c${criterionId}`]: responseId % 4 === 0 ? '0' : '1',
    rationale: responseId % 3 === 0 ? 'The answer cites the second context but misses the approval step.' : '', corrected_answer: '',
  }).toString();
}
const NEXT_ITEM = /data-response="(\d+)"/;

// ---------------------------------------------------------------------------------------------
// Probe: SQL statements per request, counted on an in-process copy of the app (before the load)

interface Probe {
  requests: number; statementsPerRequest: number; preparesPerRequest: number; transactionsPerRequest: number; top: [string, number][]; p50Ms: number; p99Ms: number;
  /** The answer's body (the next item's workspace fragment), median bytes of UTF-8. */
  answerBytes: number;
}

async function probe(db: DB, s: Setup, ids: number[]): Promise<Probe> {
  const ctx = benchContext(db, { level: 'error' });
  const server: Server = await new Promise((resolve) => { const srv = createApp(ctx).listen(0, '127.0.0.1', () => resolve(srv)); });
  const expert = new Expert(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, `expert${CONNECTIONS}@bench.test`);
  // Every statement execution (run/get/all/iterate and exec: BEGIN, COMMIT and savepoints included) and every prepare, by SQL text.
  const counts = new Map<string, number>();
  let prepares = 0;
  const stmtProto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  const dbProto = Object.getPrototypeOf(db) as Record<string, (...a: unknown[]) => unknown>;
  const saved: [Record<string, (...a: unknown[]) => unknown>, string, (...a: unknown[]) => unknown][] = [];
  for (const m of ['run', 'get', 'all', 'iterate']) {
    const orig = stmtProto[m]!;
    saved.push([stmtProto, m, orig]);
    stmtProto[m] = function (this: { source: string }, ...a: unknown[]) {
      counts.set(this.source, (counts.get(this.source) ?? 0) + 1);
      return orig.apply(this, a);
    };
  }
  // The group commit's BEGIN IMMEDIATE and COMMIT (server/db/group-commit.ts) go through db.exec.
  const origExec = dbProto.exec!;
  saved.push([dbProto, 'exec', origExec]);
  dbProto.exec = function (this: unknown, sql: unknown) { counts.set(String(sql), (counts.get(String(sql)) ?? 0) + 1); return origExec.call(this, sql); };
  const origPrepare = dbProto.prepare!;
  saved.push([dbProto, 'prepare', origPrepare]);
  dbProto.prepare = function (this: unknown, ...a: unknown[]) { prepares++; return origPrepare.apply(this, a); };
  try {
    await expert.login(s.datasetId);
    counts.clear();
    prepares = 0;
    const times: number[] = [], sizes: number[] = [];
    for (const id of ids) {
      expert.current = id;
      const start = process.hrtime.bigint();
      const res = await expert.request('POST', `/responses/${id}/label`, new URLSearchParams(labelBody(expert.csrf, s.criterionId, id)), expert.headers());
      times.push(ms(start));
      if (res.status !== 200 || !NEXT_ITEM.test(res.text)) throw new Error(`probe: label of ${id} answered ${res.status}: ${res.text.slice(0, 300)}`);
      sizes.push(Buffer.byteLength(res.text));
      if (process.env.BENCH_DUMP_ANSWER && id === ids[0]) fs.writeFileSync(process.env.BENCH_DUMP_ANSWER, res.text);
    }
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const transactions = [...counts.entries()].filter(([sql]) => sql.startsWith('BEGIN')).reduce((a, [, n]) => a + n, 0);
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([sql, n]): [string, number] => [sql.replace(/\s+/g, ' ').trim().slice(0, 110), n / ids.length]);
    return { requests: ids.length, statementsPerRequest: total / ids.length, preparesPerRequest: prepares / ids.length, transactionsPerRequest: transactions / ids.length, top,
      p50Ms: median(times), p99Ms: percentile(times, 99), answerBytes: median(sizes) };
  } finally {
    for (const [obj, m, fn] of saved) obj[m] = fn;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

// ---------------------------------------------------------------------------------------------
// Server children

interface Child extends ChildHandle { url: string }

/**
 * stdin is a pipe: the server also stops when this process ends and the pipe closes. `root`: the
 * checkout whose server runs (its own tsconfig and code; --compare), this one by default.
 */
async function startServer(mode: 'goldset' | 'bare', dbFile?: string, nodeFlags: string[] = [], root = ROOT): Promise<Child> {
  const script = path.join(root, path.relative(ROOT, SERVER_SCRIPT));
  const { proc, match, stop } = await startChild([...nodeFlags, '--import', 'tsx', script, mode, ...(dbFile ? [dbFile] : [])],
    { name: `${mode} server${root === ROOT ? '' : ` of ${root}`}`, ready: /LISTENING (\d+)/, stdin: 'pipe', cwd: root });
  return { proc, url: `http://127.0.0.1:${Number(match[1])}`, stop };
}

// ---------------------------------------------------------------------------------------------
// Load

interface Run {
  reqPerSec: number; total: number; p50: number; p90: number; p99: number; max: number; mean: number; errors: number; timeouts: number; non2xx: number;
  serverCpuMsPerReq: number | null;
  /** The part of serverCpuMsPerReq spent in the server's main thread (the rest: GC helpers, the checkpointer, libuv's pool). */
  mainCpuMsPerReq: number | null;
  /** The server's write system calls (log, database and temporary files, sockets) and their bytes, per request. */
  writesPerReq: { calls: number; bytes: number } | null;
}

/**
 * Slices of one side as one run: requests per second over their whole time, CPU and writes per
 * request over all their requests, counts summed; latency percentiles are the request-weighted mean
 * of the slices' (autocannon gives no histogram to merge), the maximum their maximum.
 */
function joinSlices(slices: Run[], seconds: number): Run {
  if (slices.length === 1) return slices[0]!;
  const total = slices.reduce((a, r) => a + r.total, 0);
  const weighted = (f: (r: Run) => number) => (total === 0 ? 0 : slices.reduce((a, r) => a + f(r) * r.total, 0) / total);
  const latency = (f: (r: Run) => number) => Math.round(weighted(f) * 10) / 10; // to 0.1 ms
  const perReq = (f: (r: Run) => number | null) => (slices.every((r) => f(r) !== null) ? weighted((r) => f(r)!) : null);
  const cpu = perReq((r) => r.serverCpuMsPerReq);
  const mainCpu = perReq((r) => r.mainCpuMsPerReq);
  const calls = perReq((r) => r.writesPerReq?.calls ?? null), bytes = perReq((r) => r.writesPerReq?.bytes ?? null);
  return {
    reqPerSec: total / seconds, total, p50: latency((r) => r.p50), p90: latency((r) => r.p90), p99: latency((r) => r.p99),
    max: Math.max(...slices.map((r) => r.max)), mean: latency((r) => r.mean),
    errors: slices.reduce((a, r) => a + r.errors, 0), timeouts: slices.reduce((a, r) => a + r.timeouts, 0), non2xx: slices.reduce((a, r) => a + r.non2xx, 0),
    serverCpuMsPerReq: cpu, mainCpuMsPerReq: mainCpu, writesPerReq: calls === null || bytes === null ? null : { calls, bytes },
  };
}

function summarize(r: AcResult, serverCpuMs: number | null, mainCpuMs: number | null, writes: { calls: number; bytes: number } | null): Run {
  const perReq = (x: number | null) => (x === null || r.requests.total === 0 ? null : x / r.requests.total);
  return {
    reqPerSec: r.requests.average, total: r.requests.total, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max,
    mean: r.latency.mean, errors: r.errors, timeouts: r.timeouts, non2xx: r.non2xx,
    serverCpuMsPerReq: perReq(serverCpuMs), mainCpuMsPerReq: perReq(mainCpuMs),
    writesPerReq: writes === null || r.requests.total === 0 ? null : { calls: writes.calls / r.requests.total, bytes: writes.bytes / r.requests.total },
  };
}

type LoadOptions = Omit<AcOptions, 'url' | 'connections' | 'duration'>;

async function measure(child: Child, opts: LoadOptions, seconds: number): Promise<Run> {
  const cpu0 = cpuMsOf(child.proc.pid!), main0 = mainThreadCpuMsOf(child.proc.pid!);
  const w0 = writeCallsOf(child.proc.pid!);
  const result = await autocannon({ url: child.url, connections: CONNECTIONS, duration: seconds, pipelining: 1, timeout: 10, ...opts });
  const cpu1 = cpuMsOf(child.proc.pid!), main1 = mainThreadCpuMsOf(child.proc.pid!);
  const w1 = writeCallsOf(child.proc.pid!);
  return summarize(result, cpu0 === null || cpu1 === null ? null : cpu1 - cpu0, main0 === null || main1 === null ? null : main1 - main0, w0 && w1 && { calls: w1.calls - w0.calls, bytes: w1.bytes - w0.bytes });
}

const BARE_BODY = 'x'.repeat(120);
const bareOpts = { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: BARE_BODY };

/** Per-expert bookkeeping across all goldset runs: what was sent and what came back as a saved label. */
interface Lane {
  expert: Expert; items: number[]; pos: number; sent: number; saved: number; resent: number; failures: Map<string, number>; badSamples: string[];
  /** Follow mode: the last answer refused a re-sent cut-off save, so the expert skips on to the queue (S) next. */
  skip?: boolean;
}

/** Load in which each connection is one expert (a lane) sending the request `requestOf` makes for it. */
function perExpert(lanes: Lane[], requestOf: (lane: Lane) => AcRequest): LoadOptions {
  let nextLane = 0;
  return {
    method: 'GET', path: '/healthz', // replaced in setupClient before anything is sent
    setupClient(client) {
      client.setRequests([requestOf(lanes[nextLane++ % lanes.length]!)]);
    },
  };
}

function goldsetOpts(lanes: Lane[], datasetId: number, criterionId: number): LoadOptions {
  return perExpert(lanes, (lane) => {
    const itemOf = () => (MODE === 'slices' ? lane.items[lane.pos % lane.items.length]! : lane.expert.current);
    return {
      method: 'POST',
      setupRequest(req) {
        if (lane.skip) {
          // As an expert shown the stale-form message would: S, the next item of the queue.
          const after = new URLSearchParams({ _csrf: lane.expert.csrf, after: String(lane.expert.current) }).toString();
          return { ...req, path: `/datasets/${datasetId}/label/next`, headers: lane.expert.headers(), body: after };
        }
        const id = itemOf();
        lane.expert.current = id;
        lane.sent++;
        return { ...req, path: `/responses/${id}/label`, headers: lane.expert.headers(), body: labelBody(lane.expert.csrf, criterionId, id) };
      },
      onResponse(status, body) {
        const next = NEXT_ITEM.exec(body)?.[1];
        if (lane.skip && status === 200 && next) {
          lane.skip = false;
          lane.expert.current = Number(next);
          return;
        }
        if (status === 200 && next) {
          lane.saved++;
          lane.pos++;
          lane.expert.current = Number(next);
          return;
        }
        // A request cut off at the end of the previous run saved its item unanswered; sent again, it is
        // refused as stale (409, the expert's own submitted label shown). Move on past it, counted apart:
        // in slices mode to the slice's next item, in follow mode by skipping (S) to the queue's next.
        if (status === 409 && next === String(lane.expert.current)) {
          lane.resent++;
          lane.pos++;
          if (MODE === 'follow') lane.skip = true;
          return;
        }
        const key = `${status}${next ? '' : ' (no next item in body)'}`;
        lane.failures.set(key, (lane.failures.get(key) ?? 0) + 1);
        if (lane.badSamples.length < 2) lane.badSamples.push(`${key}: ${body.slice(0, 200).replace(/\s+/g, ' ')}`);
      },
    };
  });
}

/**
 * The middleware floor: the same experts, cookies, CSRF token, htmx headers and form body, posted to
 * a route that answers "ok" after all of goldset's middleware (bench/label-server.ts). Not a
 * baseline: it shows how much of the bare handler's throughput is left before goldset's own work.
 */
function floorOpts(lanes: Lane[], criterionId: number): LoadOptions {
  return perExpert(lanes, (lane) => ({
    method: 'POST',
    setupRequest: (req) => ({ ...req, path: '/bench/floor', headers: lane.expert.headers(), body: labelBody(lane.expert.csrf, criterionId, lane.expert.current) }),
  }));
}

// ---------------------------------------------------------------------------------------------
// CPU profile summary (--profile)

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] }

function summarizeProfile(file: string): { self: [string, number][]; byArea: [string, number][] } {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const total = prof.samples.length;
  const where = (url: string): string => {
    const p = url.replace(/^file:\/\//, '');
    if (!p) return '(native/V8)';
    if (p.startsWith('node:')) return p;
    const rel = path.relative(ROOT, p);
    const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(rel);
    return nm ? `npm:${nm[1]}` : rel;
  };
  const self = new Map<string, number>();
  const area = new Map<string, number>();
  for (const n of prof.nodes) {
    const hits = n.hitCount ?? 0;
    if (!hits) continue;
    const w = where(n.callFrame.url);
    const key = `${n.callFrame.functionName || '(anonymous)'}  ${w}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + hits);
    area.set(w, (area.get(w) ?? 0) + hits);
  }
  const pct = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]): [string, number] => [k, (100 * v) / total]);
  return { self: pct(self).slice(0, 25), byArea: pct(area).slice(0, 20) };
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const dir = tempDir('goldset-bench-label-');
  const dbFile = path.join(dir, 'label.db');
  const children: Child[] = [];
  try {
    console.log(`label bench: ${RESPONSES} responses, ${CONNECTIONS} connections (one expert each), ${WARMUP} s warm-up + ${DURATION} s, ` +
      `${REPEAT} repetition(s), mode ${MODE}, node ${process.version}, ${os.cpus().length} CPU(s)` +
      (SERVER_FLAGS.length ? `, goldset server flags: ${SERVER_FLAGS.join(' ')}` : ''));
    let t = process.hrtime.bigint();
    const s = await setup(dbFile);
    console.log(`  setup: ${RESPONSES} samples + responses, ${CONNECTIONS + 1} experts in ${(ms(t) / 1000).toFixed(1)} s ` +
      `(${(fs.statSync(dbFile).size / 1024 / 1024).toFixed(0)} MB)`);

    // The probe labels the first PROBE items; the load experts get disjoint slices of the rest.
    const probeIds = s.responseIds.slice(0, PROBE);
    const rest = s.responseIds.slice(PROBE);
    const sliceLen = Math.floor(rest.length / CONNECTIONS);
    let probeResult: Probe | null = null;
    if (PROBE > 0) {
      probeResult = await probe(s.db, s, probeIds);
      console.log(`  probe: ${probeResult.statementsPerRequest.toFixed(1)} SQL statements, ${probeResult.transactionsPerRequest.toFixed(1)} transaction(s), ` +
        `${probeResult.preparesPerRequest.toFixed(1)} prepare(s) per request; unloaded latency p50 ${probeResult.p50Ms.toFixed(2)} ms, p99 ${probeResult.p99Ms.toFixed(2)} ms; answer ${(probeResult.answerBytes / 1024).toFixed(1)} KB`);
    }
    s.db.close();
    const compareDb = path.join(dir, 'compare.db');
    if (COMPARE) fs.copyFileSync(dbFile, compareDb); // after the probe's saves: both servers start from the same state

    const goldset = await startServer('goldset', dbFile, [...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []), ...SERVER_FLAGS]);
    children.push(goldset);
    const bare = await startServer('bare');
    children.push(bare);
    const lanes: Lane[] = await Promise.all(Array.from({ length: CONNECTIONS }, async (_, k) => {
      const expert = new Expert(goldset.url, `expert${k}@bench.test`);
      await expert.login(s.datasetId);
      return { expert, items: rest.slice(k * sliceLen, (k + 1) * sliceLen), pos: 0, sent: 0, saved: 0, resent: 0, failures: new Map<string, number>(), badSamples: [] };
    }));
    console.log(`  servers up (goldset pid ${goldset.proc.pid}, bare pid ${bare.proc.pid}); ${CONNECTIONS} experts logged in over HTTP`);
    let other: { child: Child; lanes: Lane[] } | null = null;
    if (COMPARE) {
      const child = await startServer('goldset', compareDb, SERVER_FLAGS, COMPARE);
      children.push(child);
      const otherLanes: Lane[] = await Promise.all(Array.from({ length: CONNECTIONS }, async (_, k) => {
        const expert = new Expert(child.url, `expert${k}@bench.test`);
        await expert.login(s.datasetId);
        return { expert, items: rest.slice(k * sliceLen, (k + 1) * sliceLen), pos: 0, sent: 0, saved: 0, resent: 0, failures: new Map<string, number>(), badSamples: [] };
      }));
      other = { child, lanes: otherLanes };
      console.log(`  compared with ${COMPARE} (pid ${child.proc.pid}), on a copy of the database, interleaved in every repetition`);
    }

    const bareRuns: Run[] = [];
    const goldRuns: Run[] = [];
    const floorRuns: Run[] = [];
    const opts = goldsetOpts(lanes, s.datasetId, s.criterionId);
    const otherRuns: Run[] = [];
    type Side = 'bare' | 'goldset' | 'floor' | 'other';
    const sides: Record<Side, { child: Child; opts: LoadOptions; runs: Run[] }> = {
      bare: { child: bare, opts: bareOpts, runs: bareRuns },
      goldset: { child: goldset, opts, runs: goldRuns },
      floor: { child: goldset, opts: floorOpts(lanes, s.criterionId), runs: floorRuns },
      other: other ? { child: other.child, opts: goldsetOpts(other.lanes, s.datasetId, s.criterionId), runs: otherRuns } : { child: goldset, opts, runs: [] },
    };
    // Rotate the order, so a slow phase of the machine hits every side alike; the compared checkout
    // runs right beside goldset, before it in every other repetition.
    const orders: Side[][] = [['bare', 'goldset', 'floor'], ['goldset', 'floor', 'bare'], ['floor', 'bare', 'goldset']];
    const orderOf = (i: number): Side[] => orders[i % orders.length]!.flatMap((side): Side[] =>
      side === 'goldset' && other ? (i % 2 === 0 ? ['goldset', 'other'] : ['other', 'goldset']) : [side]);
    const sliceSeconds = Math.max(1, Math.round(DURATION / SLICES));
    for (let i = 0; i < REPEAT; i++) {
      const order = orderOf(i);
      const slices = new Map<Side, Run[]>(order.map((side) => [side, []]));
      if (SLICES > 1 && WARMUP > 0) for (const side of order) await measure(sides[side].child, sides[side].opts, WARMUP);
      for (let k = 0; k < SLICES; k++) {
        for (const side of order) {
          const { child, opts: o } = sides[side];
          if (SLICES === 1 && WARMUP > 0) await measure(child, o, WARMUP);
          slices.get(side)!.push(await measure(child, o, SLICES === 1 ? DURATION : sliceSeconds));
        }
      }
      for (const side of order) sides[side].runs.push(joinSlices(slices.get(side)!, SLICES === 1 ? DURATION : sliceSeconds * SLICES));
      const b = bareRuns[i]!, g = goldRuns[i]!, f = floorRuns[i]!;
      console.log(`  run ${i + 1}/${REPEAT}: bare ${Math.round(b.reqPerSec)} req/s (p99 ${b.p99} ms), goldset ${Math.round(g.reqPerSec)} req/s ` +
        `(p50 ${g.p50} ms, p99 ${g.p99} ms, non-2xx ${g.non2xx}, errors ${g.errors}), ratio ${(g.reqPerSec / b.reqPerSec).toFixed(3)}; ` +
        `middleware floor ${Math.round(f.reqPerSec)} req/s (${(f.reqPerSec / b.reqPerSec).toFixed(3)} of bare, non-2xx ${f.non2xx})` +
        (other ? `; compared ${Math.round(otherRuns[i]!.reqPerSec)} req/s (${(otherRuns[i]!.reqPerSec / f.reqPerSec).toFixed(3)} of the floor, ` +
          `non-2xx ${otherRuns[i]!.non2xx}), goldset/compared ${(g.reqPerSec / otherRuns[i]!.reqPerSec).toFixed(3)}` : ''));
    }

    // ---- Paced: the same experts at a fixed overall rate below saturation, goldset and its floor alike;
    // and bare express at that rate, over as many connections: the tail of the machine and the load
    // generator themselves, which no server here can be below.
    const pacedRate = Math.round(PACED_SHARE * median(goldRuns.map((r) => r.reqPerSec)));
    let paced: { rate: number; goldset: Run; floor: Run; bare: Run } | null = null;
    if (pacedRate > 0) {
      const at = (o: LoadOptions) => ({ ...o, overallRate: pacedRate });
      if (WARMUP > 0) await measure(goldset, at(opts), WARMUP);
      const pacedGold = await measure(goldset, at(opts), DURATION);
      const pacedFloor = await measure(goldset, at(sides.floor.opts), DURATION);
      const pacedBare = await measure(bare, at(sides.bare.opts), DURATION);
      paced = { rate: pacedRate, goldset: pacedGold, floor: pacedFloor, bare: pacedBare };
      console.log(`  paced at ${pacedRate} req/s (${Math.round(PACED_SHARE * 100)}% of goldset's throughput): goldset ${Math.round(pacedGold.reqPerSec)} req/s, ` +
        `p50 ${pacedGold.p50} ms, p99 ${pacedGold.p99} ms; middleware floor p50 ${pacedFloor.p50} ms, p99 ${pacedFloor.p99} ms; ` +
        `bare express p50 ${pacedBare.p50} ms, p99 ${pacedBare.p99} ms`);
    }

    await goldset.stop();
    await bare.stop();

    // ---- Verification: every 200 was a real save, and nothing else was saved
    const db = openDatabase(dbFile);
    const expertList = s.expertIds.join(',');
    const submitted = db.prepare(`SELECT count(*) FROM annotation WHERE annotator_id IN (${expertList}) AND state = 'submitted'`).pluck().get() as number;
    const labelRows = db.prepare(`SELECT count(*) FROM label l JOIN annotation a ON a.id = l.annotation_id WHERE a.annotator_id IN (${expertList})`).pluck().get() as number;
    const audits = db.prepare(`SELECT count(*) FROM audit_event WHERE entity_type = 'label' AND actor_id IN (${expertList})`).pluck().get() as number;
    const auditSubmits = db.prepare(`SELECT count(*) FROM audit_event WHERE entity_type = 'label' AND action = 'submit' AND actor_id IN (${expertList})`).pluck().get() as number;
    const overLabelled = db.prepare('SELECT count(*) FROM response WHERE dataset_id = ? AND n_submitted > 1').pluck().get(s.datasetId) as number;
    const slotsFilled = db.prepare('SELECT slots_filled FROM dataset WHERE id = ?').pluck().get(s.datasetId) as number;
    const labelled = db.prepare('SELECT count(*) FROM response WHERE dataset_id = ? AND n_submitted > 0').pluck().get(s.datasetId) as number;
    // The queue query on the final state, as the server runs it for each expert.
    const queueIndex = (db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'response_queue'").pluck().get() as string | undefined) ?? '(no response_queue index)';
    const lq = labelQueries(db); // the app's own statements
    const nextStmt = lq.next;
    const nextParams = { ds: s.datasetId, me: s.expertIds[0]!, overlap: 1, cutoff: new Date(Date.now() - CLAIM_MINUTES * 60_000).toISOString(), after: 0, after_rank: Number.MIN_SAFE_INTEGER };
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${nextStmt.source}`).all(nextParams) as { detail: string }[]).map((r) => r.detail);
    t = process.hrtime.bigint();
    for (let i = 0; i < 1000; i++) nextStmt.get(nextParams);
    const nextQueryUs = (ms(t) * 1000) / 1000;
    // The progress bar's query (the dataset's counts and the expert's own), which the workspace runs for every item it renders.
    const progressParams = { ds: s.datasetId, me: s.expertIds[0]! };
    const progressPlan = (db.prepare(`EXPLAIN QUERY PLAN ${lq.progressOf.source}`).all(progressParams) as { detail: string }[]).map((r) => r.detail);
    t = process.hrtime.bigint();
    for (let i = 0; i < 100; i++) lq.progressOf.get(progressParams);
    const progressQueryUs = (ms(t) * 1000) / 100;
    db.close();

    const saved = lanes.reduce((a, l) => a + l.saved, 0);
    const sent = lanes.reduce((a, l) => a + l.sent, 0);
    const failures = new Map<string, number>();
    for (const l of [...lanes, ...(other?.lanes ?? [])]) for (const [k, v] of l.failures) failures.set(k, (failures.get(k) ?? 0) + v);
    // Requests cut off by the end of a run may have been saved without their answer being read.
    const inFlightMax = CONNECTIONS * (REPEAT * (SLICES + (WARMUP > 0 ? 1 : 0)) + (paced ? (WARMUP > 0 ? 2 : 1) : 0));
    const resent = lanes.reduce((a, l) => a + l.resent, 0);
    const checks: [string, boolean][] = [
      ['every load request answered 200 with the next item (but re-sends of cut-off saves: 409)', failures.size === 0],
      ['re-sent cut-off saves at most one per expert and run boundary', resent <= inFlightMax &&
        (other?.lanes ?? []).reduce((a, l) => a + l.resent, 0) <= CONNECTIONS * REPEAT * (SLICES + (WARMUP > 0 ? 1 : 0))],
      ['submitted annotations ≥ 200 answers (each 200 was a save)', submitted >= saved],
      ['submitted annotations ≤ requests sent (nothing else saved)', submitted <= sent && submitted - saved <= inFlightMax],
      // A request cut off at the end of a run is sent again by the next run: an 'update' of a saved label.
      ['one audit event per save (submit per annotation, update per re-sent one)', auditSubmits === submitted && audits <= sent && audits - submitted <= inFlightMax],
      ['one label row per save (one criterion)', labelRows === submitted],
      ['every middleware-floor request passed session and CSRF (200)', [...floorRuns, ...(paced ? [paced.floor] : [])].every((r) => r.non2xx === 0 && r.errors === 0)],
    ];
    checks.push(['each response labelled once (overlap 1)', overLabelled === 0 && slotsFilled === labelled]);
    const ok = checks.every(([, v]) => v);

    // ---- Report
    // To 2 decimals: with an even number of runs the median is a mean, which would print as 44.849999999999994.
    const medianOf = (runs: Run[], f: (r: Run) => number) => Number(median(runs.map(f)).toFixed(2));
    const bareRps = medianOf(bareRuns, (r) => r.reqPerSec);
    const goldRps = medianOf(goldRuns, (r) => r.reqPerSec);
    const ratios = goldRuns.map((g, i) => g.reqPerSec / bareRuns[i]!.reqPerSec);
    const ratio = median(ratios);
    const p50 = medianOf(goldRuns, (r) => r.p50);
    const p99 = medianOf(goldRuns, (r) => r.p99);
    const goldCpu = goldRuns.every((r) => r.serverCpuMsPerReq !== null) ? medianOf(goldRuns, (r) => r.serverCpuMsPerReq!) : null;
    const bareCpu = bareRuns.every((r) => r.serverCpuMsPerReq !== null) ? medianOf(bareRuns, (r) => r.serverCpuMsPerReq!) : null;
    const sum = (runs: Run[], f: (r: Run) => number) => runs.reduce((a, r) => a + f(r), 0);
    const floorRps = medianOf(floorRuns, (r) => r.reqPerSec);
    const floorRatio = median(floorRuns.map((f, i) => f.reqPerSec / bareRuns[i]!.reqPerSec));
    const floorCpu = floorRuns.every((r) => r.serverCpuMsPerReq !== null) ? medianOf(floorRuns, (r) => r.serverCpuMsPerReq!) : null;
    const mainCpuOf = (runs: Run[]) => (runs.every((r) => r.mainCpuMsPerReq !== null) ? Math.round(median(runs.map((r) => r.mainCpuMsPerReq!)) * 1000) : null);
    const mainCpu = { goldset: mainCpuOf(goldRuns), floor: mainCpuOf(floorRuns) };
    const writesOf = (runs: Run[]) => runs.every((r) => r.writesPerReq !== null)
      ? { calls: medianOf(runs, (r) => r.writesPerReq!.calls), bytes: medianOf(runs, (r) => r.writesPerReq!.bytes) } : null;
    const goldWrites = writesOf(goldRuns), floorWrites = writesOf(floorRuns);
    const compared = otherRuns.length === 0 ? null : {
      reqPerSec: medianOf(otherRuns, (r) => r.reqPerSec),
      floorRatios: otherRuns.map((o, i) => o.reqPerSec / floorRuns[i]!.reqPerSec),
      goldsetToCompared: goldRuns.map((g, i) => g.reqPerSec / otherRuns[i]!.reqPerSec),
      cpuUsPerReq: otherRuns.every((r) => r.serverCpuMsPerReq !== null) ? medianOf(otherRuns, (r) => r.serverCpuMsPerReq!) * 1000 : null,
      cpuRatios: otherRuns.every((r) => r.serverCpuMsPerReq !== null) && goldRuns.every((r) => r.serverCpuMsPerReq !== null)
        ? goldRuns.map((g, i) => g.serverCpuMsPerReq! / otherRuns[i]!.serverCpuMsPerReq!) : null,
      p99: medianOf(otherRuns, (r) => r.p99),
    };
    const compareLine = () => !compared ? '' : `${Math.round(compared.reqPerSec)} req/s = ${median(compared.floorRatios).toFixed(3)} of the floor ` +
      `(runs ${compared.floorRatios.map((x) => x.toFixed(2)).join(', ')}), p99 ${compared.p99} ms` +
      (compared.cpuUsPerReq === null ? '' : `, ${compared.cpuUsPerReq.toFixed(0)} µs CPU per request`) +
      `; goldset/compared ${median(compared.goldsetToCompared).toFixed(3)} (runs ${compared.goldsetToCompared.map((x) => x.toFixed(2)).join(', ')})` +
      (compared.cpuRatios ? `, CPU per request goldset/compared ${median(compared.cpuRatios).toFixed(3)} (runs ${compared.cpuRatios.map((x) => x.toFixed(2)).join(', ')})` : '');
    console.log('\n' + table([
      ['responses in the dataset', String(RESPONSES)],
      ['connections (= experts, one session each)', `${CONNECTIONS}, ${DURATION} s per run after ${WARMUP} s warm-up${SLICES > 1 ? `, in ${SLICES} slices taken in turn with the other sides` : ''}, ${REPEAT} run(s), median shown`],
      ['bare express: POST / → "ok"', `${Math.round(bareRps)} req/s  (p50 ${medianOf(bareRuns, (r) => r.p50)} ms, p99 ${medianOf(bareRuns, (r) => r.p99)} ms)`],
      ['goldset: save label + next item (htmx)', `${Math.round(goldRps)} req/s`],
      ['goldset / bare', `${ratio.toFixed(3)}  (runs: ${ratios.map((x) => x.toFixed(3)).join(', ')}; target ≥ ${TARGET_RATIO})`],
      ['goldset latency p50 / p90 / p99 / max', `${p50} / ${medianOf(goldRuns, (r) => r.p90)} / ${p99} / ${medianOf(goldRuns, (r) => r.max)} ms  (target p99 < ${TARGET_P99_MS} ms)`],
      ['paced: the same load at a fixed overall rate', paced === null ? 'not run (--paced 0)' : `${paced.rate} req/s (${Math.round(PACED_SHARE * 100)}% of goldset's throughput): ` +
        `goldset p50 / p90 / p99 ${paced.goldset.p50} / ${paced.goldset.p90} / ${paced.goldset.p99} ms; floor p99 ${paced.floor.p99} ms; bare express p99 ${paced.bare.p99} ms`],
      ...(other ? [['compared: ' + COMPARE, compareLine()] as [string, string]] : []),
      ['middleware floor: logged-in htmx POST → "ok"', `${Math.round(floorRps)} req/s = ${floorRatio.toFixed(3)} of bare (p50 ${medianOf(floorRuns, (r) => r.p50)} ms, ` +
        `p99 ${medianOf(floorRuns, (r) => r.p99)} ms${floorCpu === null ? '' : `, ${(floorCpu * 1000).toFixed(0)} µs CPU per request`}); goldset = ${(goldRps / floorRps).toFixed(3)} of it`],
      ['goldset non-2xx / errors / timeouts (all runs)', `${sum(goldRuns, (r) => r.non2xx)} / ${sum(goldRuns, (r) => r.errors)} / ${sum(goldRuns, (r) => r.timeouts)}`],
      ['server CPU per request, bare / goldset', goldCpu === null || bareCpu === null ? 'n/a (no /proc)' :
        `${(bareCpu * 1000).toFixed(0)} µs / ${(goldCpu * 1000).toFixed(0)} µs  (= ${(bareCpu / goldCpu).toFixed(3)}, cross-check of the ratio)`],
      ['of which the main thread, floor / goldset', mainCpu.goldset === null || mainCpu.floor === null ? 'n/a (no /proc)' :
        `${mainCpu.floor} µs / ${mainCpu.goldset} µs  (the rest: other threads — V8's GC helpers, the checkpointer, libuv's pool)`],
      ['server write calls per request, floor / goldset', goldWrites === null || floorWrites === null ? 'n/a (no /proc)' :
        `${floorWrites.calls.toFixed(1)} / ${goldWrites.calls.toFixed(1)}  (${(floorWrites.bytes / 1024).toFixed(1)} / ${(goldWrites.bytes / 1024).toFixed(1)} KB: answer, log, temporary files)`],
      ['SQL per request (probe, unloaded)', probeResult ? `${probeResult.statementsPerRequest.toFixed(1)} statements in ${probeResult.transactionsPerRequest.toFixed(1)} transaction(s), ` +
        `${probeResult.preparesPerRequest.toFixed(1)} prepare(s)` : 'not probed'],
      ['unloaded latency (probe, sequential)', probeResult ? `p50 ${probeResult.p50Ms.toFixed(2)} ms, p99 ${probeResult.p99Ms.toFixed(2)} ms over ${probeResult.requests} requests` : 'not probed'],
      ['queue query `next` on the final state', `${nextQueryUs.toFixed(1)} µs; plan: ${plan.join(' | ')}`],
      ['progress query `labels.progress` (every item)', `${progressQueryUs.toFixed(1)} µs; plan: ${progressPlan.join(' | ')}`],
      ['saves: 200 answers / sent / in DB', `${saved} / ${sent} / ${submitted}  (${labelled} responses labelled, ${overLabelled} more than once)`],
    ]));
    printChecks(checks);
    if (failures.size) {
      console.log(`  failures: ${[...failures.entries()].map(([k, v]) => `${k} ×${v}`).join(', ')}`);
      for (const l of lanes) for (const b of l.badSamples) console.log(`    ${l.expert.email}: ${b}`);
    }
    if (probeResult) {
      console.log('\nSQL statements per request (probe):');
      console.log(table(probeResult.top.map(([sql, n]) => [n.toFixed(2).padStart(5), sql])));
    }

    let profile: ReturnType<typeof summarizeProfile> | null = null;
    if (PROFILE) {
      const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
      if (file) {
        // Kept outside the repository (it is several MB): open it in Chrome DevTools or speedscope.
        const keep = path.join(os.tmpdir(), 'goldset-bench-label.cpuprofile');
        fs.copyFileSync(path.join(dir, file), keep);
        profile = summarizeProfile(keep);
        console.log(`\nCPU profile of the goldset server (whole life: logins, warm-ups, runs; saved to ${keep}):`);
        console.log('  by file / package (self time):');
        console.log(table(profile.byArea.map(([k, v]) => [`${v.toFixed(1)}%`.padStart(6), k])));
        console.log('  top functions (self time):');
        console.log(table(profile.self.map(([k, v]) => [`${v.toFixed(1)}%`.padStart(6), k])));
      } else console.log('\n--profile: no .cpuprofile was written');
    }

    const floorRatios = goldRuns.map((g, i) => g.reqPerSec / floorRuns[i]!.reqPerSec);
    const toFloor = median(floorRatios);
    const missed = [...(toFloor >= TARGET_FLOOR_RATIO ? [] : ['the floor ratio']), ...(p99 < TARGET_P99_MS ? [] : ['p99'])];
    const verdict = missed.length === 0 ? 'within target' : `MISSES TARGET (${missed.join(', ')})`;
    const summary = `label: goldset/middleware floor = ${toFloor.toFixed(2)} (target ≥ ${TARGET_FLOOR_RATIO.toFixed(2)}; runs ${floorRatios.map((x) => x.toFixed(2)).join(', ')}), ` +
      `p99 = ${p99} ms (target < ${TARGET_P99_MS} ms); goldset/bare = ${ratio.toFixed(2)}`;
    console.log(`\n${summary} ${verdict}`);

    const result = {
      bench: 'label',
      summary,
      withinTarget: missed.length === 0,
      checksPassed: ok,
      responses: RESPONSES, connections: CONNECTIONS, durationS: DURATION, warmupS: WARMUP, repeat: REPEAT, slices: SLICES, mode: MODE, serverFlags: SERVER_FLAGS,
      bareReqPerSec: Math.round(bareRps),
      goldsetReqPerSec: Math.round(goldRps),
      ratio: Number(ratio.toFixed(3)), targetRatio: TARGET_RATIO,
      floorRatio: Number(toFloor.toFixed(3)), floorRatios: floorRatios.map((x) => Number(x.toFixed(3))), targetFloorRatio: TARGET_FLOOR_RATIO, resentCutOff: resent,
      goldsetP50Ms: p50, goldsetP99Ms: p99, targetP99Ms: TARGET_P99_MS,
      middlewareFloor: { reqPerSec: Math.round(floorRps), ratioToBare: Number(floorRatio.toFixed(3)), goldsetRatioToFloor: Number((goldRps / floorRps).toFixed(3)),
        cpuUsPerReq: floorCpu === null ? null : Math.round(floorCpu * 1000) },
      serverCpuUsPerReq: { bare: bareCpu === null ? null : Math.round(bareCpu * 1000), goldset: goldCpu === null ? null : Math.round(goldCpu * 1000) },
      mainThreadCpuUsPerReq: mainCpu,
      serverWritesPerReq: { floor: floorWrites && { calls: +floorWrites.calls.toFixed(1), kb: +(floorWrites.bytes / 1024).toFixed(1) },
        goldset: goldWrites && { calls: +goldWrites.calls.toFixed(1), kb: +(goldWrites.bytes / 1024).toFixed(1) } },
      sql: probeResult && { statementsPerRequest: Number(probeResult.statementsPerRequest.toFixed(2)), transactionsPerRequest: probeResult.transactionsPerRequest,
        preparesPerRequest: probeResult.preparesPerRequest, answerBytes: probeResult.answerBytes, unloadedP50Ms: Number(probeResult.p50Ms.toFixed(2)), unloadedP99Ms: Number(probeResult.p99Ms.toFixed(2)),
        statements: Object.fromEntries(probeResult.top.map(([sql, n]) => [sql, Number(n.toFixed(2))])) },
      nextQuery: { us: Number(nextQueryUs.toFixed(1)), plan, index: queueIndex },
      progressQuery: { us: Number(progressQueryUs.toFixed(1)), plan: progressPlan },
      saves: { ok200: saved, sent, submittedInDb: submitted, labelRows, auditEvents: audits, auditSubmits, responsesLabelled: labelled, labelledMoreThanOnce: overLabelled },
      checks: Object.fromEntries(checks),
      compared: compared && { root: COMPARE, reqPerSec: Math.round(compared.reqPerSec), floorRatio: Number(median(compared.floorRatios).toFixed(3)),
        floorRatios: compared.floorRatios.map((x) => Number(x.toFixed(3))), goldsetToCompared: Number(median(compared.goldsetToCompared).toFixed(3)),
        goldsetToComparedRuns: compared.goldsetToCompared.map((x) => Number(x.toFixed(3))), p99Ms: compared.p99,
        cpuUsPerReq: compared.cpuUsPerReq === null ? null : Math.round(compared.cpuUsPerReq),
        cpuRatio: compared.cpuRatios && Number(median(compared.cpuRatios).toFixed(3)) },
      paced: paced && { share: PACED_SHARE, reqPerSec: paced.rate, goldset: { p50Ms: paced.goldset.p50, p90Ms: paced.goldset.p90, p99Ms: paced.goldset.p99, achievedReqPerSec: Math.round(paced.goldset.reqPerSec) },
        floor: { p50Ms: paced.floor.p50, p99Ms: paced.floor.p99 }, bare: { p50Ms: paced.bare.p50, p99Ms: paced.bare.p99 } },
      runs: { bare: bareRuns, goldset: goldRuns, floor: floorRuns, ...(paced ? { pacedGoldset: paced.goldset, pacedFloor: paced.floor, pacedBare: paced.bare } : {}) },
      profile,
      ...runInfo(),
    };
    writeResult('label.json', result);
    failOnChecks('label', ok);
  } finally {
    for (const c of children) await c.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Runs when executed, not when imported (e.g. to reuse setup() for a what-if measurement).
if (isMain(import.meta.url)) await main();
