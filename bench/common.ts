/**
 * Helpers shared by the benchmarks (bench/import.ts, label.ts, judge.ts, calibration.ts): argument
 * parsing, the seeded data generator (mixed Chinese and English text), timing and small statistics,
 * CPU and memory sampling, a migrated goldset database with its app context, child processes that
 * announce themselves on stdout, and writing bench/results/<name>.json. Nothing here decides what a
 * benchmark measures; each bench keeps its own timed code, baseline, checks and report.
 *
 * The generator is part of every result: the same seed must give the same data on every machine and
 * after every change, byte for byte. Do not reorder, add or drop a rand() call in prng or sentence.
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import v8 from 'node:v8';
import vm from 'node:vm';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDatabase, type DB } from '../server/db/connection.ts';
import { migrate } from '../server/db/migrate.ts';
import { loadConfig } from '../server/config.ts';
import { createLogger, type Level } from '../server/log.ts';
import { createAppContext, type AppContext } from '../server/app-context.ts';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
/** The repository root (the parent of bench/). */
export const ROOT = path.dirname(BENCH_DIR);
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');
/** The password of every user a bench creates. */
export const PASSWORD = 'bench password, long enough';

// ---------------------------------------------------------------------------------------------
// Arguments (read from process.argv: `--name value`, or `--name` alone for a flag)

export function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}

/** `--name N`, an integer ≥ min (default 1); `fallback` when absent. */
export function intArg(name: string, fallback: number, min = 1): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < min) {
    throw new Error(`--${name} needs ${min === 1 ? 'a positive integer' : min === 0 ? 'a non-negative integer' : `an integer ≥ ${min}`}`);
  }
  return n;
}

/** `--name A,B,…`, positive integers. */
export function listArg(name: string, fallback: number[]): number[] {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const xs = String(process.argv[i + 1] ?? '').split(',').map(Number);
  if (!xs.length || xs.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--${name} needs a comma-separated list of positive integers`);
  return xs;
}

/** `--name value`, one of `choices`. */
export function strArg<T extends string>(name: string, choices: readonly T[], fallback: T): T {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const v = process.argv[i + 1] as T;
  if (!choices.includes(v)) throw new Error(`--${name} is one of ${choices.join(', ')}`);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Deterministic data

/** mulberry32: small, fast, seeded; the same seed gives the same data on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ZH = ('如何 配置 数据库 连接 超时 的 时间 为什么 模型 回答 不 准确 请 说明 检索 增强 生成 流程 用户 权限 ' +
  '管理 系统 日志 在哪里 查看 报销 流程 需要 哪些 材料 合同 审批 节点 发票 税率 是 多少 产品 保修 期限 退货 政策 ' +
  '向量 索引 重建 评测 指标 忠实度 上下文 召回率 部署 服务器 内存 不足 怎么办 接口 返回 错误 码 含义 可以 通过 设置 ' +
  '页面 进行 修改 根据 公司 规定 员工 每年 享有 天 带薪 年假').split(' ');
const EN = ('how do I configure the database connection timeout why does model answer fail retrieval augmented ' +
  'generation pipeline user permission management where are system logs stored reimbursement process requires ' +
  'which documents contract approval invoice tax rate product warranty period return policy vector index rebuild ' +
  'evaluation metric faithfulness context recall deploy server memory error code meaning can be changed in settings ' +
  'page according to company policy employees receive paid annual leave days per year').split(' ');
const ZH_END = ['？', '。', '！'];
const EN_END = ['?', '.', '!'];

/**
 * A sentence of minChars..maxChars characters plus its final mark: ~45% Chinese, ~35% English,
 * ~20% mixed. `ends` 'full-stop' (label, judge) ends it with 。 or .; 'varied' (import) draws one
 * more number and ends it with ？。！ or ?.! — so the two give different sequences for one seed.
 */
export function sentence(rand: () => number, minChars: number, maxChars: number, ends: 'full-stop' | 'varied' = 'full-stop'): string {
  const target = minChars + Math.floor(rand() * (maxChars - minChars + 1));
  const mode = rand(); // ~45% Chinese, ~35% English, ~20% mixed
  let s = '';
  while (s.length < target) {
    const zh = mode < 0.45 || (mode >= 0.8 && rand() < 0.6);
    const word = zh ? ZH[Math.floor(rand() * ZH.length)]! : EN[Math.floor(rand() * EN.length)]!;
    s += zh || s === '' ? word : ' ' + word;
    if (rand() < 0.08) s += zh ? '，' : ',';
  }
  s = s.slice(0, target).trimEnd();
  if (ends === 'varied') return s + (mode < 0.45 ? ZH_END : EN_END)[Math.floor(rand() * 3)]!;
  return s + (mode < 0.45 ? '。' : '.');
}

// ---------------------------------------------------------------------------------------------
// Timing, statistics, report formatting

/** Milliseconds since `start` (a process.hrtime.bigint()). */
export const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
export const MB = (bytes: number): number => bytes / (1024 * 1024);

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Wall and CPU (user + system) time of one synchronous call. */
export function timed<T>(fn: () => T): { value: T; ms: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const value = fn();
  const elapsed = ms(start);
  const c = process.cpuUsage(cpu);
  return { value, ms: elapsed, cpuMs: (c.user + c.system) / 1000 };
}

/** Two columns, keys padded to the longest, each line indented by two spaces. */
export function table(rows: [string, string][]): string {
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`).join('\n');
}

// ---------------------------------------------------------------------------------------------
// CPU and memory sampling

/** Fields 3 onwards of /proc/<which>/stat (fields[0] is field 3, the state); null where there is no /proc. */
function procStat(which: string): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${which}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' '); // after the command name, which may hold spaces
  } catch {
    return null;
  }
}

/** CPU time (user + system, ms) a process has used so far, from /proc/<pid>/stat; null where there is no /proc. */
export function cpuMsOf(pid: number): number | null {
  const f = procStat(String(pid));
  return f && (Number(f[11]) + Number(f[12])) * 10; // utime, stime (fields 14, 15) in 10 ms ticks
}

/**
 * CPU time (user + system, ms) of a process's main thread alone (the thread whose id is the process's),
 * from /proc/<pid>/task/<pid>/stat; null where there is none. The rest of cpuMsOf is other threads':
 * V8's garbage-collection helpers, worker threads (the checkpointer), libuv's pool.
 */
export function mainThreadCpuMsOf(pid: number): number | null {
  const f = procStat(`${pid}/task/${pid}`);
  return f && (Number(f[11]) + Number(f[12])) * 10;
}

/**
 * Write system calls a process has made and the bytes they wrote (all its threads), from
 * /proc/<pid>/io; null where there is none. Counts writes to files and sockets alike.
 */
export function writeCallsOf(pid: number): { calls: number; bytes: number } | null {
  try {
    const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1]);
    const calls = field('syscw'), bytes = field('wchar');
    return Number.isFinite(calls) && Number.isFinite(bytes) ? { calls, bytes } : null;
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system, ms) of this process's waited-for children, from /proc/self/stat
 * (cutime + cstime, in clock ticks of usually 10 ms); null where there is no /proc.
 */
export function childrenCpuMs(): number | null {
  const f = procStat('self');
  return f && (Number(f[13]) + Number(f[14])) * 10; // fields 16 and 17; USER_HZ is 100 on Linux
}

/** Busy and total jiffies of all CPUs together, from /proc/stat; null where there is no /proc. */
export function machineTicks(): { busy: number; total: number } | null {
  try {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = cpu.reduce((a, b) => a + b, 0);
    const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0); // idle + iowait
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** Share of all CPUs busy between two machineTicks() readings. */
export const machineBusy = (a: ReturnType<typeof machineTicks>, b: ReturnType<typeof machineTicks>): number | null =>
  a && b && b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : null;

/**
 * Samples RSS every 50 ms; resolves once the sampling thread has taken its first sample, so that
 * starting a thread (a few tens of ms of CPU, and its own memory) is not measured with the work it
 * watches: take the starting RSS after this. `stop()` takes a last sample and returns the peak.
 */
export async function startRssSampler(): Promise<{ stop(): number }> {
  // Sampled from a thread of its own: the import holds the main thread for most of its run.
  const peakKb = new Int32Array(new SharedArrayBuffer(4));
  const sampler = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads');
    const peak = new Int32Array(workerData);
    const sample = () => Atomics.store(peak, 0, Math.max(Atomics.load(peak, 0), Math.round(process.memoryUsage().rss / 1024)));
    sample();
    parentPort.postMessage('sampling');
    setInterval(sample, 50);
  `, { eval: true, workerData: peakKb.buffer });
  sampler.unref();
  await once(sampler, 'message');
  return {
    stop() {
      void sampler.terminate();
      return Math.max(Atomics.load(peakKb, 0) * 1024, process.memoryUsage().rss);
    },
  };
}

let gc: (() => void) | undefined = globalThis.gc;

/**
 * A full garbage collection before a timed step, so that garbage left by earlier ones (the generated
 * data, earlier runs) is not collected inside it. Without `node --expose-gc` the flag is set here.
 */
export function collectGarbage(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
}

// ---------------------------------------------------------------------------------------------
// goldset on a bench database

/** A fresh temporary folder in the system temp folder. */
export const tempDir = (prefix: string): string => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** Deletes a SQLite file with its WAL, shared-memory and journal files. */
export function removeDb(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });
}

export interface ContextOptions {
  /** Logger level (default 'silent'). */
  level?: Level;
  /** More configuration, as environment variables (GOLDSET_DB is the database's own file). */
  env?: Record<string, string>;
}

/** goldset's app context on an open database, configured with loadConfig({ GOLDSET_DB: file, ...env }). */
export function benchContext(db: DB, options: ContextOptions = {}): AppContext {
  return createAppContext(db, loadConfig({ GOLDSET_DB: db.name, ...options.env }), createLogger(options.level ?? 'silent'));
}

/** Opens (or creates) the database at `file` with goldset's settings and applies the migrations. */
export function openMigrated(file: string): DB {
  const db = openDatabase(file);
  migrate(db);
  return db;
}

/** openMigrated(file), then the app context on it. */
export function openBenchApp(file: string, options: ContextOptions = {}): { db: DB; ctx: AppContext } {
  const db = openMigrated(file);
  return { db, ctx: benchContext(db, options) };
}

// ---------------------------------------------------------------------------------------------
// Child processes

export interface ChildHandle { proc: ChildProcess; stop(): Promise<void> }

/**
 * Starts `node …nodeArgs` in the repository root (or `cwd`) and waits until its stdout matches `ready`
 * (resolves with the match); fails when it exits first ("<name> exited (code) before listening").
 * stop() sends SIGTERM and waits for the exit.
 */
export async function startChild(nodeArgs: string[], options: { name: string; ready: RegExp; stdin: 'pipe' | 'ignore'; cwd?: string }): Promise<ChildHandle & { match: RegExpExecArray }> {
  const proc = spawn(process.execPath, nodeArgs, { stdio: [options.stdin, 'pipe', 'inherit'], cwd: options.cwd ?? ROOT });
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = options.ready.exec(out);
      if (m) resolve(m);
    });
    proc.on('exit', (code) => reject(new Error(`${options.name} exited (${code}) before listening`)));
  });
  return {
    proc, match,
    stop: () => new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.on('exit', () => resolve());
      proc.kill('SIGTERM');
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// Results

/** The machine line of every result: "linux x64, 2 CPU(s)". */
export const platform = (): string => `${os.platform()} ${os.arch()}, ${os.cpus().length} CPU(s)`;

/** The fields a result ends with: Node version, machine, time of writing. */
export const runInfo = (): { node: string; platform: string; date: string } =>
  ({ node: process.version, platform: platform(), date: new Date().toISOString() });

/** Prints the checks under "checks:" (ok / FAIL per line); true when all passed. */
export function printChecks(checks: [string, boolean][]): boolean {
  console.log('\nchecks:');
  for (const [name, v] of checks) console.log(`  ${v ? 'ok  ' : 'FAIL'} ${name}`);
  return checks.every(([, v]) => v);
}

/** When a check failed: says so on stderr and makes the process exit with 1 (after the result is written). */
export function failOnChecks(bench: string, ok: boolean): void {
  if (ok) return;
  console.error(`${bench} bench: checks failed (see above)`);
  process.exitCode = 1;
}

/** Writes bench/results/<file> (indented JSON and a final newline) and says so on stdout. */
export function writeResult(file: string, result: object): void {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.writeFileSync(path.join(RESULTS_DIR, file), JSON.stringify(result, null, 2) + '\n');
  console.log(`result written to bench/results/${file}`);
}

/** True when the module at `url` (its import.meta.url) is the script node was started with, not an import. */
export function isMain(url: string): boolean {
  return Boolean(process.argv[1]) && url === pathToFileURL(path.resolve(process.argv[1]!)).href;
}
