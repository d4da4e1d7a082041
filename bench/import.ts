/**
 * Import benchmark: goldset's JSONL import of N question/ground-truth rows, compared in the same run
 * with the sqlite3 command-line tool's `.import` of the same rows as CSV into a plain table.
 * Target: within 3× of sqlite3, with memory bounded (the file is streamed, never held whole).
 *
 *   npx tsx bench/import.ts [--rows 100000] [--repeat 3] [--profile]
 *
 * --profile adds a per-phase breakdown (parse, stage, final transaction) measured on a copy of the
 * import-service logic, to show where the time goes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDatabase, type DB } from '../server/db/connection.ts';
import { migrate } from '../server/db/migrate.ts';
import { loadConfig } from '../server/config.ts';
import { createLogger } from '../server/log.ts';
import { createAppContext } from '../server/app-context.ts';
import { readImportFile } from '../server/io/read.ts';
import { questionKey } from '../server/samples/queries.ts';

const SQLITE3 = '/usr/bin/sqlite3';
const TARGET = 3;
const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_DIR = path.join(BENCH_DIR, 'results');

// ---------------------------------------------------------------------------------------------
// Arguments

function intArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} needs a positive integer`);
  return n;
}
const ROWS = intArg('rows', 100_000);
const REPEAT = intArg('repeat', 3);
const PROFILE = process.argv.includes('--profile');

// ---------------------------------------------------------------------------------------------
// Deterministic data

/** mulberry32: small, fast, seeded; the same seed gives the same file on every machine. */
function prng(seed: number): () => number {
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

function sentence(rand: () => number, minChars: number, maxChars: number): string {
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
  return s + (mode < 0.45 ? ZH_END : EN_END)[Math.floor(rand() * 3)]!;
}

interface Row { question: string; reference: string }

/** Row i; the question carries its number so all questions stay distinct after goldset's key folding. */
function makeRow(rand: () => number, i: number): Row {
  const tag = ` #${i + 1}`;
  return { question: sentence(rand, 40 - tag.length, 150 - tag.length - 1) + tag, reference: sentence(rand, 40, 149) };
}

const csvCell = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** Writes both files in 1000-row chunks, so generation does not hold the data set in memory. */
export function generate(dir: string, rows: number): { jsonl: string; csv: string } {
  const jsonl = path.join(dir, 'samples.jsonl');
  const csv = path.join(dir, 'samples.csv');
  const rand = prng(20240611);
  const fj = fs.openSync(jsonl, 'w');
  const fc = fs.openSync(csv, 'w');
  try {
    fs.writeSync(fc, 'question,ground_truth\n');
    for (let start = 0; start < rows; start += 1000) {
      let j = '', c = '';
      for (let i = start; i < Math.min(rows, start + 1000); i++) {
        const r = makeRow(rand, i);
        j += JSON.stringify({ user_input: r.question, reference: r.reference }) + '\n';
        c += `${csvCell(r.question)},${csvCell(r.reference)}\n`;
      }
      fs.writeSync(fj, j);
      fs.writeSync(fc, c);
    }
  } finally {
    fs.closeSync(fj);
    fs.closeSync(fc);
  }
  return { jsonl, csv };
}

// ---------------------------------------------------------------------------------------------
// Helpers

const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
const MB = (bytes: number): number => bytes / (1024 * 1024);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function removeDb(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });
}

/** Samples RSS every 50 ms; `stop()` takes a last sample and returns the peak. */
function rssSampler(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 50);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Baseline: sqlite3 CLI `.import` of the CSV into a plain table (created from the header)

function sqliteImport(csv: string, db: string): number {
  removeDb(db);
  const start = process.hrtime.bigint();
  const r = spawnSync(SQLITE3, [db, '-cmd', '.mode csv', `.import ${csv} t`], { encoding: 'utf8' });
  const elapsed = ms(start);
  if (r.status !== 0 || r.stderr.trim() !== '') throw new Error(`sqlite3 .import failed (${r.status}): ${r.stderr || r.error}`);
  const count = spawnSync(SQLITE3, [db, 'SELECT count(*) FROM t'], { encoding: 'utf8' });
  if (Number(count.stdout.trim()) !== ROWS) throw new Error(`sqlite3 imported ${count.stdout.trim()} rows, expected ${ROWS}`);
  removeDb(db);
  return elapsed;
}

// ---------------------------------------------------------------------------------------------
// goldset: importSamples on a fresh database

function freshGoldset(file: string) {
  removeDb(file);
  const db = openDatabase(file);
  migrate(db);
  const ctx = createAppContext(db, loadConfig({ GOLDSET_DB: file }), createLogger('silent'));
  const dataset = ctx.datasets.create(null, { name: 'bench', description: '', language: 'zh', domain: '' });
  return { db, ctx, datasetId: dataset.id };
}

async function goldsetImport(jsonl: string, file: string): Promise<{ ms: number; rssGrowthMB: number; hwmGrowthMB: number | null }> {
  const { db, ctx, datasetId } = freshGoldset(file);
  try {
    global.gc?.();
    const rssStart = process.memoryUsage().rss;
    const hwmBefore = process.resourceUsage().maxRSS * 1024;
    const sampler = rssSampler();
    const start = process.hrtime.bigint();
    const result = await ctx.imports.importSamples(null, datasetId, jsonl, { format: 'jsonl', filename: 'samples.jsonl' });
    const elapsed = ms(start);
    const peak = sampler.stop();
    // The final transaction is synchronous and blocks the 50 ms timer; the kernel's high-water mark
    // catches a peak inside it, but only when it exceeds every earlier peak of this process.
    const hwmAfter = process.resourceUsage().maxRSS * 1024;
    if (!result.ok) throw new Error(`goldset import failed: ${JSON.stringify(result.errors.slice(0, 3))} (${result.totalErrors} errors)`);
    if (result.created !== ROWS) throw new Error(`goldset created ${result.created} samples, expected ${ROWS}`);
    const inDb = db.prepare('SELECT count(*) FROM sample WHERE dataset_id = ?').pluck().get(datasetId) as number;
    if (inDb !== ROWS) throw new Error(`sample table holds ${inDb} rows, expected ${ROWS}`);
    return { ms: elapsed, rssGrowthMB: MB(peak - rssStart), hwmGrowthMB: hwmAfter > hwmBefore ? MB(hwmAfter - rssStart) : null };
  } finally {
    db.close();
    removeDb(file);
  }
}

// ---------------------------------------------------------------------------------------------
// Profile: a copy of importService.importSamples with a timer around each phase

const STAGE_BATCH = 2000;

async function profileImport(jsonl: string, file: string): Promise<Record<string, number>> {
  const { db, datasetId } = freshGoldset(file);
  const t: Record<string, number> = {};
  const time = <T>(name: string, fn: () => T): T => {
    const s = process.hrtime.bigint();
    try { return fn(); } finally { t[name] = (t[name] ?? 0) + ms(s); }
  };
  try {
    // 1. Reading alone: stream + split lines + JSON.parse + normalize/zod validation.
    let s = process.hrtime.bigint();
    let n = 0;
    for await (const item of readImportFile(jsonl, { format: 'jsonl' })) if ('row' in item) n++;
    t['1 read+parse+validate (readImportFile only)'] = ms(s);
    if (n !== ROWS) throw new Error(`read ${n} rows`);

    // 2. The import-service loop: read + questionKey + JSON.stringify + staging inserts.
    const stage = db.prepare('INSERT INTO import_staging (import_id, line, payload) VALUES (?, ?, ?)');
    const importId = 'bench';
    let batch: { key: string; line: number; row: unknown }[] = [];
    const flush = () => time('2b staging inserts (JSON.stringify + INSERT)', () => db.transaction(() => {
      for (const b of batch) stage.run(importId, b.line, JSON.stringify({ key: b.key, row: b.row }));
    })());
    s = process.hrtime.bigint();
    for await (const item of readImportFile(jsonl, { format: 'jsonl' })) {
      if (!('row' in item)) continue;
      batch.push({ key: time('2a questionKey', () => questionKey(item.row.sample.question)), line: item.line, row: item.row });
      if (batch.length >= STAGE_BATCH) { flush(); batch = []; }
    }
    flush();
    t['2 staging loop total (read + key + stage)'] = ms(s);

    // 3. The final transaction, statement by statement (same SQL as import-service.ts).
    const differing = db.prepare(`
      SELECT st.line FROM import_staging st JOIN sample s
        ON s.dataset_id = @ds AND s.question_key = json_extract(st.payload, '$.key')
      WHERE st.import_id = @id AND (s.ground_truth IS NOT coalesce(json_extract(st.payload, '$.row.sample.ground_truth'), '')
        OR s.reference_contexts IS NOT json(json_extract(st.payload, '$.row.sample.reference_contexts')))
      ORDER BY st.line`);
    const insertSamples = db.prepare(`
      INSERT INTO sample (dataset_id, question_key, question, ground_truth, reference_contexts, tags, source, notes, author_id)
      SELECT @ds, json_extract(payload, '$.key'), json_extract(payload, '$.row.sample.question'),
        coalesce(json_extract(payload, '$.row.sample.ground_truth'), ''),
        json(json_extract(payload, '$.row.sample.reference_contexts')), json(json_extract(payload, '$.row.sample.tags')),
        coalesce(json_extract(payload, '$.row.sample.source'), ''), coalesce(json_extract(payload, '$.row.sample.notes'), ''), @author
      FROM import_staging WHERE import_id = @id ORDER BY line
      ON CONFLICT (dataset_id, question_key) DO NOTHING`);
    const insertTags = db.prepare(`
      INSERT OR IGNORE INTO sample_tag (sample_id, tag)
      SELECT s.id, j.value FROM sample s, json_each(s.tags) j WHERE s.dataset_id = @ds AND s.id > @after`);
    const clear = db.prepare('DELETE FROM import_staging WHERE import_id = ?');
    s = process.hrtime.bigint();
    db.transaction(() => {
      time('3a differing (SELECT join)', () => differing.all({ id: importId, ds: datasetId }));
      const created = time('3b INSERT INTO sample … SELECT (incl. FTS trigger)', () =>
        insertSamples.run({ id: importId, ds: datasetId, author: null }).changes);
      if (created !== ROWS) throw new Error(`created ${created}`);
      time('3c insertTags', () => insertTags.run({ ds: datasetId, after: 0 }));
      time('3d clear staging (DELETE)', () => clear.run(importId));
    })();
    t['3 final transaction total (incl. COMMIT)'] = ms(s);

    // 4. What the FTS trigger costs inside 3b: the same insert again without it, on a fresh db.
    t['4 [variant] 3b without the FTS trigger'] = await insertWithoutFts(jsonl, file + '.nofts');
    return t;
  } finally {
    db.close();
    removeDb(file);
  }
}

async function insertWithoutFts(jsonl: string, file: string): Promise<number> {
  const { db, datasetId } = freshGoldset(file);
  try {
    db.exec('DROP TRIGGER sample_fts_insert');
    const stage = db.prepare('INSERT INTO import_staging (import_id, line, payload) VALUES (?, ?, ?)');
    const rows: [number, string][] = [];
    for await (const item of readImportFile(jsonl, { format: 'jsonl' })) {
      if ('row' in item) rows.push([item.line, JSON.stringify({ key: questionKey(item.row.sample.question), row: item.row })]);
    }
    db.transaction(() => { for (const [line, p] of rows) stage.run('x', line, p); })();
    const s = process.hrtime.bigint();
    db.transaction(() => db.prepare(`
      INSERT INTO sample (dataset_id, question_key, question, ground_truth, reference_contexts, tags, source, notes, author_id)
      SELECT @ds, json_extract(payload, '$.key'), json_extract(payload, '$.row.sample.question'),
        coalesce(json_extract(payload, '$.row.sample.ground_truth'), ''),
        json(json_extract(payload, '$.row.sample.reference_contexts')), json(json_extract(payload, '$.row.sample.tags')),
        coalesce(json_extract(payload, '$.row.sample.source'), ''), coalesce(json_extract(payload, '$.row.sample.notes'), ''), NULL
      FROM import_staging WHERE import_id = 'x' ORDER BY line
      ON CONFLICT (dataset_id, question_key) DO NOTHING`).run({ ds: datasetId }))();
    return ms(s);
  } finally {
    db.close();
    removeDb(file);
  }
}

// ---------------------------------------------------------------------------------------------
// Main

function table(rows: [string, string][]): string {
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`).join('\n');
}

async function main(): Promise<void> {
  if (!fs.existsSync(SQLITE3)) throw new Error(`${SQLITE3} not found: the baseline needs the sqlite3 command-line tool`);
  const sqliteVersion = spawnSync(SQLITE3, ['--version'], { encoding: 'utf8' }).stdout.split(' ').slice(0, 2).join(' ');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-bench-import-'));
  try {
    console.log(`import bench: ${ROWS} rows, ${REPEAT} repetition(s), node ${process.version}, sqlite3 ${sqliteVersion}`);
    let s = process.hrtime.bigint();
    const { jsonl, csv } = generate(dir, ROWS);
    const jsonlMB = MB(fs.statSync(jsonl).size);
    const csvMB = MB(fs.statSync(csv).size);
    console.log(`  generated JSONL ${jsonlMB.toFixed(1)} MB and CSV ${csvMB.toFixed(1)} MB in ${(ms(s) / 1000).toFixed(1)} s`);

    const baseline: number[] = [];
    const goldset: number[] = [];
    const rss: number[] = [];
    const hwm: number[] = [];
    // Alternate the two, so a slow phase of the machine hits both sides alike.
    for (let i = 0; i < REPEAT; i++) {
      const b = sqliteImport(csv, path.join(dir, `sqlite-${i}.db`));
      baseline.push(b);
      const g = await goldsetImport(jsonl, path.join(dir, `goldset-${i}.db`));
      goldset.push(g.ms);
      rss.push(g.rssGrowthMB);
      if (g.hwmGrowthMB !== null) hwm.push(g.hwmGrowthMB);
      console.log(`  run ${i + 1}/${REPEAT}: sqlite3 ${(b / 1000).toFixed(2)} s, goldset ${(g.ms / 1000).toFixed(2)} s, ` +
        `peak RSS +${g.rssGrowthMB.toFixed(1)} MB`);
    }

    const baselineMs = median(baseline);
    const goldsetMs = median(goldset);
    const ratio = goldsetMs / baselineMs;
    const peakRssGrowthMB = Math.max(...rss);
    const hwmGrowthMB = hwm.length ? Math.max(...hwm) : null;
    console.log('\n' + table([
      ['rows', String(ROWS)],
      ['JSONL file size', `${jsonlMB.toFixed(1)} MB`],
      ['sqlite3 .import CSV (median)', `${(baselineMs / 1000).toFixed(2)} s  (${Math.round(ROWS / (baselineMs / 1000))} rows/s)`],
      ['goldset importSamples JSONL (median)', `${(goldsetMs / 1000).toFixed(2)} s  (${Math.round(ROWS / (goldsetMs / 1000))} rows/s)`],
      ['peak RSS growth, goldset import (50 ms samples)', `${peakRssGrowthMB.toFixed(1)} MB  (${(peakRssGrowthMB / jsonlMB).toFixed(2)}× file size)`],
      ['peak RSS growth, kernel high-water mark', hwmGrowthMB === null ? 'not above earlier peaks' : `${hwmGrowthMB.toFixed(1)} MB`],
    ]));

    let profile: Record<string, number> | null = null;
    if (PROFILE) {
      s = process.hrtime.bigint();
      profile = await profileImport(jsonl, path.join(dir, 'profile.db'));
      console.log(`\nprofile (one run of a copy of the import-service logic, ${(ms(s) / 1000).toFixed(1)} s in all):`);
      console.log(table(Object.entries(profile).map(([k, v]) => [k, `${(v / 1000).toFixed(2)} s`])));
    }

    const verdict = ratio <= TARGET ? 'within target' : 'ABOVE TARGET';
    console.log(`\nimport: goldset/sqlite3 = ${ratio.toFixed(2)}× (target ≤ ${TARGET}×) ${verdict}`);

    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    const result = {
      bench: 'import',
      summary: `import: goldset/sqlite3 = ${ratio.toFixed(2)}× (target ≤ ${TARGET}×)`,
      rows: ROWS,
      repeat: REPEAT,
      baselineMedianMs: Math.round(baselineMs),
      goldsetMedianMs: Math.round(goldsetMs),
      ratio: Number(ratio.toFixed(3)),
      target: TARGET,
      withinTarget: ratio <= TARGET,
      peakRssGrowthMB: Number(peakRssGrowthMB.toFixed(1)),
      peakRssHighWaterGrowthMB: hwmGrowthMB === null ? null : Number(hwmGrowthMB.toFixed(1)),
      jsonlFileMB: Number(jsonlMB.toFixed(2)),
      csvFileMB: Number(csvMB.toFixed(2)),
      baselineRunsMs: baseline.map(Math.round),
      goldsetRunsMs: goldset.map(Math.round),
      profileMs: profile && Object.fromEntries(Object.entries(profile).map(([k, v]) => [k, Math.round(v)])),
      node: process.version,
      sqlite3: sqliteVersion,
      platform: `${os.platform()} ${os.arch()}, ${os.cpus().length} CPU(s)`,
      date: new Date().toISOString(),
    };
    fs.writeFileSync(path.join(RESULTS_DIR, 'import.json'), JSON.stringify(result, null, 2) + '\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Runs when executed, not when imported (e.g. to reuse generate()).
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
