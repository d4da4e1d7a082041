/**
 * Judge benchmark: a goldset scoring run of answer_correctness over N responses (default 500)
 * against the fake OpenAI-compatible server answering every call after a fixed latency (100 ms).
 *
 *   npx tsx bench/judge.ts [--responses 500] [--concurrency 16] [--sweep 16,32,64] [--latency-ms 100] [--repeat 3]
 *                          [--warmup 100] [--no-baseline] [--fake-keep-alive-ms N]
 *
 * Headline: achieved call throughput (chat + embeddings requests that reached the fake, per second
 * of `ctx.runner.start`) as a fraction of the ideal, concurrency ÷ latency. Target ≥ 0.9.
 * Also: LLM calls per item next to Ragas's count for the same metric, and the calls a re-run makes
 * after one step's prompt changed (the other step and the embeddings should come from the cache).
 *
 * The fake server runs in a child process (test/fake-openai/server.ts standalone), so its event loop
 * and CPU do not compete with the runner's; counts come from its /__fake/counts endpoint. Each run
 * (every concurrency, every repetition) gets a fresh database, so the LLM cache starts empty.
 * goldset's requests are observed from the client side by wrapping globalThis.fetch (the openai
 * package picks it up when the run's client is created): in-flight requests over time and the
 * latency of each request, which split a shortfall into "slots left idle" and "calls slower than
 * the fake's latency". New TCP connections are counted too (undici's diagnostics channel).
 * After each goldset run, a bare client (the openai package alone, no goldset) sends as many requests
 * of the same sizes at the same concurrency to the same fake: the ceiling this harness and machine
 * allow. goldset's fraction ÷ the bare client's is the part of a shortfall that is goldset's own.
 *
 * --fake-keep-alive-ms N is a what-if: the fake is started from bench/judge-fake.ts with its HTTP
 * keep-alive timeout forced to N ms (the fake's own 1 s makes Node's fetch drop every connection
 * after one response); the result goes to results/judge.fake-keep-alive-N.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import dc from 'node:diagnostics_channel';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { DB } from '../server/db/connection.ts';
import type { AppContext } from '../server/app-context.ts';
import type { RunRow } from '../server/judge/run-queries.ts';
import type { PromptTemplate } from '../server/judge/types.ts';
import {
  BENCH_DIR, benchContext, cpuMsOf, failOnChecks, flag, intArg, isMain, listArg, machineBusy, machineTicks, median, openMigrated, printChecks, prng,
  ROOT, runInfo, sentence, startChild, tempDir, writeResult,
} from './common.ts';

const TARGET = 0.9;
const METRIC = 'answer_correctness';
/** Ragas's answer_correctness: 2 statement generations + 1 classification; embeddings for answer and reference. */
const RAGAS = { chat: 3, embeddings: '1–2' };
/** Round trips one answer_correctness item needs one after the other: statements (×2 in parallel), then classify ∥ embeddings. */
const CRITICAL_PATH_CALLS = 2;
/** The step whose prompt the re-run changes. */
const CHANGED_STEP = 'classify';
const API_KEY = 'sk-bench-judge-0000';
const CHAT_MODEL = 'fake-chat';
const EMBEDDING_MODEL = 'fake-embed';
const FAKE_SCRIPT = path.join(ROOT, 'test', 'fake-openai', 'server.ts');
const WHAT_IF_FAKE_SCRIPT = path.join(BENCH_DIR, 'judge-fake.ts');

// ---------------------------------------------------------------------------------------------
// Arguments

const RESPONSES = intArg('responses', 500);
const CONCURRENCY = intArg('concurrency', 16);
const LATENCY_MS = intArg('latency-ms', 100);
const REPEAT = intArg('repeat', 3);
const WARMUP = intArg('warmup', 100, 0);
const BASELINE = !flag('no-baseline');
const FAKE_KEEP_ALIVE_MS = flag('fake-keep-alive-ms') ? intArg('fake-keep-alive-ms', 5000, 0) : null;
/** Every concurrency measured; the headline one is always included. */
const SWEEP = [...new Set([...listArg('sweep', [16, 32, 64]), CONCURRENCY])].sort((a, b) => a - b);

// ---------------------------------------------------------------------------------------------
// Deterministic data (bench/common.ts: prng, sentence ending in 。 or .; the seed of bench/label.ts)

/**
 * N rows as goldset imports them (user_input / reference / response / retrieved_contexts / system).
 * Question, answer and ground truth carry the row number, so no two items share a text and no call
 * of one item can be answered from another item's cache entry.
 */
function writeJsonl(file: string, n: number): void {
  const rand = prng(20240612);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const tag = ` #${i + 1}`;
    lines.push(JSON.stringify({
      user_input: sentence(rand, 30, 140) + tag,
      reference: sentence(rand, 40, 200) + tag,
      response: sentence(rand, 80, 400) + tag,
      retrieved_contexts: [sentence(rand, 200, 600)],
      system: 'rag-v1',
    }));
  }
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** Percentile by index floor(p% × n) (bench/label.ts's `percentile` rounds differently; each keeps its own). */
const pct = (xs: number[], p: number): number => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const r2 = (x: number): number => Number(x.toFixed(2));
const r3 = (x: number): number => Number(x.toFixed(3));

/** Columns: the first left-aligned, the others right-aligned (bench/common.ts's `table` is key/value). */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => '  ' + r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')).join('\n');
}

// ---------------------------------------------------------------------------------------------
// The fake OpenAI server, in a child process

interface FakeCounts { chat: number; embeddings: number; models: number; total: number; inFlight: number; maxInFlight: number }
interface Fake { proc: ChildProcess; baseURL: string; origin: string; counts(): Promise<FakeCounts>; reset(): Promise<void>; stop(): Promise<void> }

/** The real fetch, for the bench's own control requests (the wrapped one below only watches goldset's). */
const realFetch = globalThis.fetch;

async function startFake(latencyMs: number, keepAliveMs: number | null): Promise<Fake> {
  const args = ['--port', '0', '--latency-ms', String(latencyMs), '--api-key', API_KEY];
  const script = keepAliveMs === null ? [FAKE_SCRIPT] : [WHAT_IF_FAKE_SCRIPT, '--keep-alive-ms', String(keepAliveMs)];
  // It prints "fake OpenAI listening on http://127.0.0.1:PORT/v1 (latency N ms; counts at /__fake/counts)".
  const { proc, match, stop } = await startChild(['--import', 'tsx', ...script, ...args],
    { name: 'fake OpenAI server', ready: /listening on (http:\/\/\S+\/v1)/, stdin: 'ignore' });
  const baseURL = match[1]!;
  const origin = new URL(baseURL).origin;
  return {
    proc, baseURL, origin, stop,
    async counts() {
      const res = await realFetch(`${origin}/__fake/counts`);
      return (await res.json()) as FakeCounts;
    },
    async reset() {
      const res = await realFetch(`${origin}/__fake/reset`, { method: 'POST' });
      if (!res.ok) throw new Error(`fake reset answered ${res.status}`);
      await res.arrayBuffer();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Client-side probe: goldset's requests to the fake, seen at fetch()

const probe = {
  active: false, inFlight: 0, lastT: 0, area: 0, maxInFlight: 0, connections: 0,
  /** request body bytes by endpoint, to size the bare client's requests like goldset's */
  bodies: { chat: { n: 0, bytes: 0 }, embeddings: { n: 0, bytes: 0 } },
  /** SQLite statements executed on the event loop during the run: by SQL text, count / total ms / longest ms */
  sql: new Map<string, { n: number; ms: number; max: number }>(),
  /** ms from fetch() to the response headers, per request */
  latencies: [] as number[],
  advance(now: number): void {
    this.area += this.inFlight * (now - this.lastT);
    this.lastT = now;
  },
  start(): void {
    this.active = true;
    this.inFlight = 0;
    this.area = 0;
    this.maxInFlight = 0;
    this.connections = 0;
    this.sql = new Map();
    this.bodies = { chat: { n: 0, bytes: 0 }, embeddings: { n: 0, bytes: 0 } };
    this.latencies = [];
    this.lastT = performance.now();
  },
  /** Request-milliseconds in flight since start() (divide by the wall time for the mean in flight). */
  stop() {
    this.advance(performance.now());
    this.active = false;
    const avg = (b: { n: number; bytes: number }) => (b.n ? b.bytes / b.n : 0);
    return { inFlightMs: this.area, maxInFlight: this.maxInFlight, latencies: this.latencies, connections: this.connections,
      chatBodyBytes: avg(this.bodies.chat), embeddingsBodyBytes: avg(this.bodies.embeddings), sql: this.sql };
  },
};

// Node's fetch (undici) reports each new connection here; with keep-alive working there are about
// as many as the concurrency, without it one per request.
dc.subscribe('undici:client:connected', () => { if (probe.active) probe.connections++; });

globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
  if (!probe.active) return realFetch(input, init);
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const kind = url.endsWith('/chat/completions') ? 'chat' : url.endsWith('/embeddings') ? 'embeddings' : null;
  if (kind && typeof init?.body === 'string') {
    probe.bodies[kind].n++;
    probe.bodies[kind].bytes += Buffer.byteLength(init.body);
  }
  const start = performance.now();
  probe.advance(start);
  probe.inFlight++;
  probe.maxInFlight = Math.max(probe.maxInFlight, probe.inFlight);
  try {
    return await realFetch(input, init);
  } finally {
    const end = performance.now();
    probe.advance(end);
    probe.inFlight--;
    probe.latencies.push(end - start);
  }
}) as typeof fetch;

/**
 * Times every better-sqlite3 statement execution (run/get/all) while the probe is active. They run
 * synchronously on the event loop, so their time is time no response is handled. Installed once on
 * the shared Statement prototype.
 */
let sqlTimed = false;
function timeSqlite(db: DB): void {
  if (sqlTimed) return;
  sqlTimed = true;
  const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  for (const m of ['run', 'get', 'all']) {
    const orig = proto[m]!;
    proto[m] = function (this: { source: string }, ...a: unknown[]) {
      if (!probe.active) return orig.apply(this, a);
      const t = performance.now();
      try {
        return orig.apply(this, a);
      } finally {
        const d = performance.now() - t;
        const key = this.source.replace(/\s+/g, ' ').trim().slice(0, 90);
        const e = probe.sql.get(key) ?? { n: 0, ms: 0, max: 0 };
        e.n++;
        e.ms += d;
        e.max = Math.max(e.max, d);
        probe.sql.set(key, e);
      }
    };
  }
}

// ---------------------------------------------------------------------------------------------
// goldset on a fresh database

interface Setup { dir: string; db: DB; ctx: AppContext; datasetId: number }

async function setup(dir: string, jsonl: string, fake: Fake): Promise<Setup> {
  const db = openMigrated(path.join(dir, 'judge.db'));
  timeSqlite(db); // before the app context is built, as the app may keep references to statement methods
  const ctx = benchContext(db, {
    level: 'warn',
    env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: API_KEY, GOLDSET_JUDGE_MODEL: CHAT_MODEL, GOLDSET_EMBEDDING_MODEL: EMBEDDING_MODEL },
  });
  const dataset = ctx.datasets.create(null, { name: 'bench', description: '', language: 'en', domain: '' });
  const result = await ctx.imports.importFile(null, dataset.id, jsonl, { format: 'jsonl', filename: 'responses.jsonl' });
  if (!result.ok) throw new Error(`import failed: ${JSON.stringify(result).slice(0, 500)}`);
  if (result.responsesCreated !== RESPONSES) throw new Error(`import created ${result.responsesCreated} responses, expected ${RESPONSES}`);
  return { dir, db, ctx, datasetId: dataset.id };
}

interface Measured {
  concurrency: number;
  wallMs: number;
  chat: number;
  embeddings: number;
  fakeMaxInFlight: number;
  run: RunRow;
  scored: number; errored: number; skipped: number;
  meanInFlight: number;
  clientMaxInFlight: number;
  connections: number;
  chatBodyBytes: number; embeddingsBodyBytes: number;
  sqlMs: number; sqlStatements: number; sqlMaxMs: number; sqlTop: [string, { n: number; ms: number; max: number }][];
  latencyMeanMs: number; latencyP50Ms: number; latencyP99Ms: number; latencyMaxMs: number;
  loopDelayP50Ms: number; loopDelayP99Ms: number; loopDelayMaxMs: number;
  runnerCpuMs: number; fakeCpuMs: number | null;
  /** Share of all the machine's CPUs busy during the run (every process, kernel included). */
  machineBusy: number | null;
}

/** Creates a run and times `ctx.runner.start` alone, with the fake's counters reset just before. */
async function measureRun(s: Setup, fake: Fake, name: string, concurrency: number): Promise<Measured> {
  const run = s.ctx.runner.create(null, s.datasetId, { name, metricKey: METRIC, concurrency });
  await fake.reset();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const fakeCpu0 = fake.proc.pid ? cpuMsOf(fake.proc.pid) : null;
  const cpu0 = process.cpuUsage();
  const machine0 = machineTicks();
  loop.enable();
  probe.start();
  const t0 = performance.now();
  await s.ctx.runner.start(run.id);
  const wallMs = performance.now() - t0;
  const p = probe.stop();
  loop.disable();
  const machine1 = machineTicks();
  const cpu = process.cpuUsage(cpu0);
  const fakeCpu1 = fake.proc.pid ? cpuMsOf(fake.proc.pid) : null;
  const counts = await fake.counts();
  const row = s.ctx.runner.queries.byId(run.id)!;
  const summary = s.ctx.runner.queries.summary(run.id);
  if (row.status !== 'done') throw new Error(`run ${name} ended ${row.status}: ${row.error ?? ''}`);
  return {
    concurrency, wallMs,
    chat: counts.chat, embeddings: counts.embeddings, fakeMaxInFlight: counts.maxInFlight,
    run: row, scored: summary.scored, errored: summary.errored, skipped: summary.skipped,
    meanInFlight: p.inFlightMs / wallMs, clientMaxInFlight: p.maxInFlight, connections: p.connections,
    chatBodyBytes: p.chatBodyBytes, embeddingsBodyBytes: p.embeddingsBodyBytes,
    sqlMs: [...p.sql.values()].reduce((a, e) => a + e.ms, 0), sqlStatements: [...p.sql.values()].reduce((a, e) => a + e.n, 0),
    sqlMaxMs: Math.max(0, ...[...p.sql.values()].map((e) => e.max)), sqlTop: [...p.sql.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 6),
    latencyMeanMs: mean(p.latencies), latencyP50Ms: pct(p.latencies, 50), latencyP99Ms: pct(p.latencies, 99), latencyMaxMs: Math.max(0, ...p.latencies),
    loopDelayP50Ms: loop.percentile(50) / 1e6, loopDelayP99Ms: loop.percentile(99) / 1e6, loopDelayMaxMs: loop.max / 1e6,
    runnerCpuMs: (cpu.user + cpu.system) / 1000,
    fakeCpuMs: fakeCpu0 === null || fakeCpu1 === null ? null : fakeCpu1 - fakeCpu0,
    machineBusy: machineBusy(machine0, machine1),
  };
}

// ---------------------------------------------------------------------------------------------
// Baseline: a bare client (the openai package alone, no goldset) against the same fake

interface Bare { concurrency: number; wallMs: number; calls: number; fraction: number; latencyMeanMs: number; connections: number; cpuPerCallMs: number; machineBusy: number | null }

/**
 * C workers sending `calls` requests back to back through one `openai` client built like goldset's
 * (own retries off), 3 chat : 1 embeddings as answer_correctness, with request bodies of the mean
 * size goldset sent. No prompt rendering, cache, validation or SQLite: what the fake, Node's fetch
 * and the SDK on this machine allow at this concurrency. goldset's fraction ÷ this one is the part
 * of the shortfall that is goldset's own.
 */
async function bareBaseline(fake: Fake, concurrency: number, calls: number, chatBodyBytes: number, embeddingsBodyBytes: number): Promise<Bare> {
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({ baseURL: fake.baseURL, apiKey: API_KEY, organization: null, project: null, maxRetries: 0, timeout: 60_000, logLevel: 'off' });
  // Bodies padded to goldset's mean size (the JSON around the padding is roughly 300 bytes).
  const chatPad = 'x'.repeat(Math.max(0, chatBodyBytes - 300));
  const embPad = 'y'.repeat(Math.max(0, Math.floor((embeddingsBodyBytes - 100) / 2)));
  const schema = { type: 'object', properties: { statements: { type: 'array', items: { type: 'string' } } }, required: ['statements'], additionalProperties: false };
  await fake.reset();
  let next = 0;
  const cpu0 = process.cpuUsage();
  const machine0 = machineTicks();
  probe.start();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < calls; i = next++) {
      if (i % 4 === 3) {
        await client.embeddings.create({ model: EMBEDDING_MODEL, input: [`a${i} ${embPad}`, `b${i} ${embPad}`], encoding_format: 'float' });
      } else {
        const r = await client.chat.completions.create({
          model: CHAT_MODEL, temperature: 0, messages: [{ role: 'user', content: `${i} ${chatPad}` }],
          response_format: { type: 'json_schema', json_schema: { name: 'statements', schema, strict: true } },
        });
        JSON.parse(r.choices[0]?.message.content ?? '{}');
      }
    }
  }));
  const wallMs = performance.now() - t0;
  const p = probe.stop();
  const machine1 = machineTicks();
  const cpu = process.cpuUsage(cpu0);
  const counts = await fake.counts();
  const reached = counts.chat + counts.embeddings;
  if (reached !== calls) throw new Error(`bare baseline: ${reached} requests reached the fake, expected ${calls}`);
  return {
    concurrency, wallMs, calls, fraction: (calls / (wallMs / 1000)) / (concurrency / (LATENCY_MS / 1000)),
    latencyMeanMs: mean(p.latencies), connections: p.connections, cpuPerCallMs: (cpu.user + cpu.system) / 1000 / calls,
    machineBusy: machineBusy(machine0, machine1),
  };
}

interface Derived {
  calls: number;
  achievedCallsPerS: number;
  idealCallsPerS: number;
  fraction: number;
  itemsPerS: number;
  /** C / (critical-path calls × latency): every worker always waiting on its item's next round trip. */
  idealItemsPerSCriticalPath: number;
  /** C / (calls per item × latency): C calls always in flight, which the shared semaphore allows at most. */
  idealItemsPerSSlots: number;
  slotUtilization: number;
}

function derive(m: Measured): Derived {
  const calls = m.chat + m.embeddings;
  const seconds = m.wallMs / 1000;
  const idealCallsPerS = m.concurrency / (LATENCY_MS / 1000);
  const achieved = calls / seconds;
  const callsPerItem = calls / RESPONSES;
  return {
    calls,
    achievedCallsPerS: achieved,
    idealCallsPerS,
    fraction: achieved / idealCallsPerS,
    itemsPerS: RESPONSES / seconds,
    idealItemsPerSCriticalPath: m.concurrency / (CRITICAL_PATH_CALLS * LATENCY_MS / 1000),
    idealItemsPerSSlots: m.concurrency / (callsPerItem * LATENCY_MS / 1000),
    slotUtilization: m.meanInFlight / m.concurrency,
  };
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const top = tempDir('goldset-bench-judge-');
  let fake: Fake | null = null;
  const open: Setup[] = [];
  const checks: [string, boolean][] = [];
  try {
    console.log(`judge bench: ${METRIC} over ${RESPONSES} responses, fake latency ${LATENCY_MS} ms, concurrency ${SWEEP.join(' / ')} ` +
      `(headline ${CONCURRENCY}), ${REPEAT} repetition(s), node ${process.version}, ${os.cpus().length} CPU(s)` +
      (FAKE_KEEP_ALIVE_MS !== null ? `, WHAT-IF: fake keep-alive ${FAKE_KEEP_ALIVE_MS} ms` : ''));
    const jsonl = path.join(top, 'responses.jsonl');
    writeJsonl(jsonl, RESPONSES);
    fake = await startFake(LATENCY_MS, FAKE_KEEP_ALIVE_MS);
    console.log(`  fake OpenAI server: pid ${fake.proc.pid}, ${fake.baseURL}`);

    // ---- warm-up (not reported): JIT, module loading and the fake's first connections
    if (WARMUP > 0) {
      const s = await setup(fs.mkdtempSync(path.join(top, 'warmup-')), jsonl, fake);
      const ids = s.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id LIMIT ?').pluck().all(s.datasetId, WARMUP) as number[];
      const run = s.ctx.runner.create(null, s.datasetId, { name: 'warm-up', metricKey: METRIC, concurrency: CONCURRENCY, selection: { response_ids: ids } });
      const t0 = performance.now();
      await s.ctx.runner.start(run.id);
      console.log(`  warm-up: ${ids.length} items at concurrency ${CONCURRENCY} in ${((performance.now() - t0) / 1000).toFixed(2)} s (not reported)`);
      s.db.close();
    }

    // ---- throughput sweep: a fresh database (empty LLM cache) per run; repetitions interleave the
    // concurrencies, so a slow phase of the machine hits all of them alike
    const measured: (Measured & Derived)[] = [];
    const bare: Bare[] = [];
    let headlineSetup: Setup | null = null;
    for (let rep = 0; rep < REPEAT; rep++) {
      for (const c of SWEEP) {
        const dir = fs.mkdtempSync(path.join(top, `c${c}-`));
        const s = await setup(dir, jsonl, fake);
        const m = await measureRun(s, fake, `bench c${c} #${rep + 1}`, c);
        const d = derive(m);
        measured.push({ ...m, ...d });
        console.log(`  c=${String(c).padStart(3)} #${rep + 1}: ${(m.wallMs / 1000).toFixed(2)} s, ${m.chat} chat + ${m.embeddings} embeddings, ` +
          `${d.achievedCallsPerS.toFixed(0)} calls/s of ${d.idealCallsPerS.toFixed(0)} = ${d.fraction.toFixed(3)}; ` +
          `slots busy ${(d.slotUtilization * 100).toFixed(1)}%, call latency mean ${m.latencyMeanMs.toFixed(1)} ms, p99 ${m.latencyP99Ms.toFixed(1)} ms; ` +
          `${m.connections} new connections; loop delay p99 ${m.loopDelayP99Ms.toFixed(1)} ms`);
        if (BASELINE) {
          const b = await bareBaseline(fake, c, d.calls, m.chatBodyBytes, m.embeddingsBodyBytes);
          bare.push(b);
          console.log(`         bare client: ${(b.wallMs / 1000).toFixed(2)} s, ${b.calls} requests = ${b.fraction.toFixed(3)} of ideal; ` +
            `call latency mean ${b.latencyMeanMs.toFixed(1)} ms, ${b.connections} new connections, CPU ${b.cpuPerCallMs.toFixed(2)} ms/call`);
        }
        checks.push([`c=${c} #${rep + 1}: all ${RESPONSES} scored, no errors`, m.scored === RESPONSES && m.errored === 0 && m.skipped === 0]);
        checks.push([`c=${c} #${rep + 1}: run.llm_calls (${m.run.llm_calls}) = requests at the fake (${d.calls})`, m.run.llm_calls === d.calls]);
        checks.push([`c=${c} #${rep + 1}: no more than ${c} requests in flight at the fake (${m.fakeMaxInFlight})`, m.fakeMaxInFlight <= c]);
        if (c === CONCURRENCY && rep === 0) { headlineSetup = s; open.push(s); } else s.db.close();
      }
    }

    // ---- re-run with one changed prompt, on the headline run's database (its cache is warm)
    const s = headlineSetup!;
    const metric = s.ctx.registry.get(s.datasetId, METRIC)!;
    const steps = metric.steps.map((x) => x.step);
    if (!steps.includes(CHANGED_STEP)) throw new Error(`${METRIC} has no step "${CHANGED_STEP}" (steps: ${steps.join(', ')})`);
    const unchanged = await measureRun(s, fake, 'bench re-run, nothing changed', CONCURRENCY);
    const { version: _v, ...current } = s.ctx.prompts.resolve(s.datasetId, metric, 'en')[CHANGED_STEP]!;
    const edited: PromptTemplate = { ...current, instruction: current.instruction + ' When in doubt, prefer FP over TP.' };
    const saved = s.ctx.prompts.save(null, s.datasetId, METRIC, CHANGED_STEP, edited, 'bench: one changed prompt');
    const rerun = await measureRun(s, fake, `bench re-run, ${CHANGED_STEP} prompt v${saved.version}`, CONCURRENCY);
    const rerunVersions = (JSON.parse(rerun.run.prompts) as { versions: Record<string, number | null> }).versions;
    const statementsCached = 2 * RESPONSES;
    const embeddingTextsCached = 2 * RESPONSES;
    checks.push([`re-run, nothing changed: 0 requests (${unchanged.chat + unchanged.embeddings})`, unchanged.chat + unchanged.embeddings === 0]);
    checks.push([`re-run, ${CHANGED_STEP} changed: ${RESPONSES} chat requests (${rerun.chat}), 0 embeddings (${rerun.embeddings})`,
      rerun.chat === RESPONSES && rerun.embeddings === 0]);
    checks.push([`re-run, ${CHANGED_STEP} changed: cached_calls = ${statementsCached} statement calls + ${embeddingTextsCached} embedded texts (${rerun.run.cached_calls})`,
      rerun.run.cached_calls === statementsCached + embeddingTextsCached]);
    checks.push([`re-run, ${CHANGED_STEP} changed: run records ${CHANGED_STEP} v${saved.version}, statements default`,
      rerunVersions[CHANGED_STEP] === saved.version && rerunVersions['statements'] === null]);
    checks.push([`re-run, ${CHANGED_STEP} changed: all ${RESPONSES} scored`, rerun.scored === RESPONSES && rerun.errored === 0]);

    // ---- report
    function bareOf(c: number) {
      const bs = bare.filter((b) => b.concurrency === c);
      if (!bs.length) return null;
      return {
        wallMs: median(bs.map((b) => b.wallMs)), fraction: median(bs.map((b) => b.fraction)), latencyMeanMs: median(bs.map((b) => b.latencyMeanMs)),
        connections: median(bs.map((b) => b.connections)), cpuPerCallMs: median(bs.map((b) => b.cpuPerCallMs)),
        machineBusy: bs.every((b) => b.machineBusy !== null) ? median(bs.map((b) => b.machineBusy!)) : null,
      };
    }
    const byC = SWEEP.map((c) => {
      const ms = measured.filter((m) => m.concurrency === c);
      const pick = <K extends keyof (Measured & Derived)>(k: K) => median(ms.map((m) => m[k] as number));
      return {
        concurrency: c,
        wallMs: pick('wallMs'), fraction: pick('fraction'), achievedCallsPerS: pick('achievedCallsPerS'), idealCallsPerS: ms[0]!.idealCallsPerS,
        itemsPerS: pick('itemsPerS'), idealItemsPerSCriticalPath: ms[0]!.idealItemsPerSCriticalPath, idealItemsPerSSlots: pick('idealItemsPerSSlots'),
        slotUtilization: pick('slotUtilization'), latencyMeanMs: pick('latencyMeanMs'), latencyP99Ms: pick('latencyP99Ms'),
        fakeMaxInFlight: Math.max(...ms.map((m) => m.fakeMaxInFlight)), loopDelayP99Ms: pick('loopDelayP99Ms'), loopDelayMaxMs: pick('loopDelayMaxMs'),
        connections: pick('connections'), runnerCpuMs: pick('runnerCpuMs'),
        machineBusy: ms.every((m) => m.machineBusy !== null) ? median(ms.map((m) => m.machineBusy!)) : null,
        bare: bareOf(c),
        sqlMs: pick('sqlMs'), sqlStatements: pick('sqlStatements'), sqlMaxMs: Math.max(...ms.map((m) => m.sqlMaxMs)),
        sqlTop: ms[0]!.sqlTop, fakeCpuMs: ms.every((m) => m.fakeCpuMs !== null) ? median(ms.map((m) => m.fakeCpuMs!)) : null,
        chatPerItem: median(ms.map((m) => m.chat / RESPONSES)), embeddingsPerItem: median(ms.map((m) => m.embeddings / RESPONSES)),
        runs: ms.map((m) => ({ wallMs: Math.round(m.wallMs), chat: m.chat, embeddings: m.embeddings, fraction: r3(m.fraction) })),
      };
    });
    const head = byC.find((x) => x.concurrency === CONCURRENCY)!;
    const perCall = (x: (typeof byC)[number], cpuMs: number) => `${(cpuMs / (RESPONSES * (x.chatPerItem + x.embeddingsPerItem))).toFixed(2)} ms`;
    const pctOf = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(0)}%`);

    console.log(`\nthroughput (median of ${REPEAT}; ideal = concurrency ÷ ${LATENCY_MS} ms, in calls/s):`);
    console.log(table([
      ['C', 'wall s', 'calls/s', 'ideal calls/s', 'fraction', 'bare client', 'goldset/bare', 'items/s', 'ideal items/s (path)', 'ideal items/s (slots)'],
      ...byC.map((x) => [
        String(x.concurrency), (x.wallMs / 1000).toFixed(2), x.achievedCallsPerS.toFixed(0), x.idealCallsPerS.toFixed(0), x.fraction.toFixed(3),
        x.bare ? x.bare.fraction.toFixed(3) : '—', x.bare ? (x.fraction / x.bare.fraction).toFixed(3) : '—',
        x.itemsPerS.toFixed(1), x.idealItemsPerSCriticalPath.toFixed(0), x.idealItemsPerSSlots.toFixed(0),
      ]),
    ]));
    console.log('\nwhere the time goes (median):');
    console.log(table([
      ['C', 'slots busy', 'call latency', 'p99', 'fake max in flight', 'new conns', 'loop delay p99', 'CPU/call goldset', 'of it SQLite', 'longest stmt', 'CPU/call fake', 'machine CPU busy', '| bare: latency', 'new conns', 'CPU/call'],
      ...byC.map((x) => [
        String(x.concurrency), `${(x.slotUtilization * 100).toFixed(1)}%`, `${x.latencyMeanMs.toFixed(1)} ms`, `${x.latencyP99Ms.toFixed(1)} ms`,
        String(x.fakeMaxInFlight), String(x.connections), `${x.loopDelayP99Ms.toFixed(1)} ms`,
        perCall(x, x.runnerCpuMs), perCall(x, x.sqlMs), `${x.sqlMaxMs.toFixed(1)} ms`, x.fakeCpuMs === null ? 'n/a' : perCall(x, x.fakeCpuMs), pctOf(x.machineBusy),
        x.bare ? `${x.bare.latencyMeanMs.toFixed(1)} ms` : '—', x.bare ? String(x.bare.connections) : '—', x.bare ? `${x.bare.cpuPerCallMs.toFixed(2)} ms` : '—',
      ]),
    ]));
    console.log('  bare client = the openai package alone, same fake, same concurrency, same number and sizes of requests (the harness\'s ceiling);');
    console.log('  slots busy = mean requests in flight (seen at fetch) ÷ C; call latency = fetch() to response headers, in goldset\'s process;');
    console.log('  new conns = TCP connections Node\'s fetch opened; CPU/call = process CPU time (user + system) ÷ requests; machine = all CPUs;');
    console.log('  of it SQLite = wall time inside better-sqlite3 statements (synchronous, on the event loop) ÷ requests; longest stmt = the slowest one.');
    console.log(`  SQLite statements of the first C=${SWEEP[0]} run (${byC[0]!.sqlStatements} in all):`);
    console.log(table(byC[0]!.sqlTop.map(([sql, e]) => [`  ${sql}`, `${e.n}×`, `${e.ms.toFixed(0)} ms`, `max ${e.max.toFixed(1)} ms`])));
    console.log(`  items/s ideal (path) = concurrency ÷ (${CRITICAL_PATH_CALLS} dependent round trips × ${LATENCY_MS} ms): every worker always has its item's next call out.`);
    console.log(`  items/s ideal (slots) = concurrency ÷ (calls per item × ${LATENCY_MS} ms): the judge client's semaphore caps calls in flight at the`);
    console.log('  concurrency, and each item needs calls-per-item of them, so this is the real ceiling; calls/s ÷ ideal is the same fraction of it.');

    const chatPerItem = head.chatPerItem;
    const embPerItem = head.embeddingsPerItem;
    console.log('\ncalls per item (first run, empty cache):');
    console.log(table([
      ['', 'chat', 'embeddings requests', 'texts embedded'],
      ['goldset', chatPerItem.toFixed(2), embPerItem.toFixed(2), '2 (one batched request)'],
      ['Ragas answer_correctness', String(RAGAS.chat), RAGAS.embeddings, '2 (embed_text per text)'],
    ]));

    const rerunCalls = rerun.chat + rerun.embeddings;
    console.log(`\nre-run on the headline database (concurrency ${CONCURRENCY}):`);
    console.log(table([
      ['', 'chat', 'embeddings', 'run.llm_calls', 'run.cached_calls', 'wall s'],
      ['nothing changed', String(unchanged.chat), String(unchanged.embeddings), String(unchanged.run.llm_calls), String(unchanged.run.cached_calls), (unchanged.wallMs / 1000).toFixed(2)],
      [`${CHANGED_STEP} prompt → v${saved.version}`, String(rerun.chat), String(rerun.embeddings), String(rerun.run.llm_calls), String(rerun.run.cached_calls), (rerun.wallMs / 1000).toFixed(2)],
    ]));
    const rd = derive(rerun);
    console.log(`  changed-prompt re-run throughput: ${rd.achievedCallsPerS.toFixed(0)} calls/s of ${rd.idealCallsPerS.toFixed(0)} = ${rd.fraction.toFixed(3)}`);

    const ok = printChecks(checks);

    const verdict = head.fraction >= TARGET ? 'within target' : 'BELOW TARGET';
    const summary = `judge: throughput = ${head.fraction.toFixed(2)} of ideal (target ≥ ${TARGET}), ` +
      `calls/item = ${fmtPerItem(chatPerItem)} chat + ${fmtPerItem(embPerItem)} embeddings (Ragas: ${RAGAS.chat} + ${RAGAS.embeddings}), ` +
      `re-run with one changed prompt = ${rerunCalls} calls`;
    console.log(`\n${summary} ${verdict}`);

    const result = {
      bench: 'judge',
      summary,
      withinTarget: head.fraction >= TARGET,
      checksPassed: ok,
      metric: METRIC, responses: RESPONSES, latencyMs: LATENCY_MS, headlineConcurrency: CONCURRENCY, repeat: REPEAT, warmupItems: WARMUP,
      fakeKeepAliveMs: FAKE_KEEP_ALIVE_MS,
      fraction: r3(head.fraction), target: TARGET,
      throughput: byC.map((x) => ({
        concurrency: x.concurrency, wallMs: Math.round(x.wallMs), fraction: r3(x.fraction),
        achievedCallsPerS: r2(x.achievedCallsPerS), idealCallsPerS: x.idealCallsPerS,
        itemsPerS: r2(x.itemsPerS), idealItemsPerSCriticalPath: r2(x.idealItemsPerSCriticalPath), idealItemsPerSSlots: r2(x.idealItemsPerSSlots),
        slotUtilization: r3(x.slotUtilization), callLatencyMeanMs: r2(x.latencyMeanMs), callLatencyP99Ms: r2(x.latencyP99Ms),
        bareClient: x.bare && { fraction: r3(x.bare.fraction), wallMs: Math.round(x.bare.wallMs), callLatencyMeanMs: r2(x.bare.latencyMeanMs),
          newConnections: x.bare.connections, cpuPerCallMs: r3(x.bare.cpuPerCallMs), machineBusy: x.bare.machineBusy === null ? null : r3(x.bare.machineBusy) },
        goldsetOverBare: x.bare ? r3(x.fraction / x.bare.fraction) : null,
        sqlite: { statements: x.sqlStatements, ms: Math.round(x.sqlMs), longestMs: r2(x.sqlMaxMs) },
        machineBusy: x.machineBusy === null ? null : r3(x.machineBusy),
        fakeMaxInFlight: x.fakeMaxInFlight, newConnections: x.connections, loopDelayP99Ms: r2(x.loopDelayP99Ms), loopDelayMaxMs: r2(x.loopDelayMaxMs),
        runnerCpuMs: Math.round(x.runnerCpuMs), fakeCpuMs: x.fakeCpuMs, runs: x.runs,
      })),
      callsPerItem: { chat: r3(chatPerItem), embeddings: r3(embPerItem), ragas: RAGAS, criticalPathCalls: CRITICAL_PATH_CALLS },
      rerun: {
        changedStep: CHANGED_STEP, promptVersion: saved.version,
        nothingChanged: { chat: unchanged.chat, embeddings: unchanged.embeddings, llmCalls: unchanged.run.llm_calls, cachedCalls: unchanged.run.cached_calls, wallMs: Math.round(unchanged.wallMs) },
        changed: { chat: rerun.chat, embeddings: rerun.embeddings, calls: rerunCalls, llmCalls: rerun.run.llm_calls, cachedCalls: rerun.run.cached_calls,
          wallMs: Math.round(rerun.wallMs), fraction: r3(rd.fraction) },
      },
      checks: Object.fromEntries(checks),
      ...runInfo(),
    };
    // What-if runs must not overwrite the result of the app and fake as they are.
    const out = FAKE_KEEP_ALIVE_MS === null ? 'judge.json' : `judge.fake-keep-alive-${FAKE_KEEP_ALIVE_MS}.json`;
    writeResult(out, result);
    failOnChecks('judge', ok);
  } finally {
    for (const s of open) s.db.close();
    if (fake) await fake.stop();
    fs.rmSync(top, { recursive: true, force: true });
  }
}

/** 3 for exactly 3, else two decimals (a retry or repair shows as 3.01). */
function fmtPerItem(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

// Runs when executed, not when imported.
if (isMain(import.meta.url)) await main();
