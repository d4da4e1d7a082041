/**
 * Import benchmark: goldset's JSONL import of N question/ground-truth rows, compared in the same run
 * with the sqlite3 command-line tool's `.import` of the same rows as CSV into a plain table.
 * Target: within 3× of sqlite3, with memory bounded (the file is streamed, never held whole).
 *
 *   npx tsx bench/import.ts [--rows 100000] [--repeat 5] [--profile] [--fts-hashsize MB]
 *
 * Each goldset run also times the background work the import leaves behind (the trigram search
 * index of the new rows), reported next to the headline ratio as "import + search index".
 * --profile adds a per-phase breakdown measured through the real code (reading alone, reading with
 * question keys, the import, the index) and the time the sqlite3 tool itself needs to insert the
 * same rows into goldset's schema with the index filled per row, to show where the time goes.
 * --fts-hashsize is a what-if knob: it sets the FTS5 'hashsize' option (default 1 MB) on each fresh
 * database before importing. Without it the bench measures the app exactly as it is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { readImportBatches } from '../server/io/read.ts';
import { startCheckpointer } from '../server/db/checkpointer.ts';
import { questionKey } from '../server/samples/queries.ts';
import {
  childrenCpuMs, collectGarbage, flag, intArg, isMain, MB, median, ms, openBenchApp, platform, prng, removeDb, sentence, startRssSampler, table, tempDir,
  writeResult,
} from './common.ts';

const SQLITE3 = '/usr/bin/sqlite3';
const TARGET = 3;

const ROWS = intArg('rows', 100_000);
const REPEAT = intArg('repeat', 5);
const PROFILE = flag('profile');
const FTS_HASHSIZE_MB = flag('fts-hashsize') ? intArg('fts-hashsize', 1) : null;

// ---------------------------------------------------------------------------------------------
// Deterministic data (bench/common.ts: prng, sentence with varied final marks)

interface Row { question: string; reference: string }

/** Row i; the question carries its number so all questions stay distinct after goldset's key folding. */
function makeRow(rand: () => number, i: number): Row {
  const tag = ` #${i + 1}`;
  return { question: sentence(rand, 40 - tag.length, 150 - tag.length - 1, 'varied') + tag, reference: sentence(rand, 40, 149, 'varied') };
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
// Baseline: sqlite3 CLI `.import` of the CSV into a plain table (created from the header)

function sqliteImport(csv: string, db: string): { ms: number; cpuMs: number | null } {
  removeDb(db);
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const r = spawnSync(SQLITE3, [db, '-cmd', '.mode csv', `.import ${csv} t`], { encoding: 'utf8' });
  const elapsed = ms(start);
  const cpuAfter = childrenCpuMs();
  if (r.status !== 0 || r.stderr.trim() !== '') throw new Error(`sqlite3 .import failed (${r.status}): ${r.stderr || r.error}`);
  const count = spawnSync(SQLITE3, [db, 'SELECT count(*) FROM t'], { encoding: 'utf8' });
  if (Number(count.stdout.trim()) !== ROWS) throw new Error(`sqlite3 imported ${count.stdout.trim()} rows, expected ${ROWS}`);
  removeDb(db);
  return { ms: elapsed, cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore };
}

// ---------------------------------------------------------------------------------------------
// goldset: importFile on a fresh database

async function freshGoldset(file: string) {
  removeDb(file);
  const { db, ctx } = openBenchApp(file);
  // As the server runs it: write-ahead log checkpoints in a worker thread (server/db/checkpointer.ts),
  // and the import reader's thread loaded at start (server/importexport/reader-thread.ts).
  const checkpointer = startCheckpointer(db, ctx.log);
  await ctx.imports.warm();
  const dataset = ctx.datasets.create(null, { name: 'bench', description: '', language: 'zh', domain: '' });
  // An integer literal: a bound JS number arrives as REAL, which FTS5 rejects ("SQL logic error").
  if (FTS_HASHSIZE_MB !== null) db.exec(`INSERT INTO sample_fts (sample_fts, rank) VALUES ('hashsize', ${FTS_HASHSIZE_MB * 1024 * 1024})`);
  return { db, ctx, datasetId: dataset.id, close: async () => { await Promise.all([checkpointer.stop(), ctx.imports.close()]); db.close(); } };
}

async function goldsetImport(jsonl: string, file: string): Promise<{ ms: number; indexMs: number; cpuMs: number; rssGrowthMB: number; hwmGrowthMB: number | null }> {
  const { db, ctx, datasetId, close } = await freshGoldset(file);
  try {
    collectGarbage();
    const sampler = await startRssSampler();
    const rssStart = process.memoryUsage().rss;
    const hwmBefore = process.resourceUsage().maxRSS * 1024;
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    const result = await ctx.imports.importFile(null, datasetId, jsonl, { format: 'jsonl', filename: 'samples.jsonl' });
    const elapsed = ms(start);
    const cpu = process.cpuUsage(cpuStart);
    const peak = sampler.stop();
    // The sampler runs in its own thread (the import holds this one); the kernel's high-water mark
    // is a cross-check, but only shows a peak above every earlier peak of this process.
    const hwmAfter = process.resourceUsage().maxRSS * 1024;
    if (!result.ok) throw new Error(`goldset import failed: ${JSON.stringify(result.errors.slice(0, 3))} (${result.totalErrors} errors)`);
    if (result.created !== ROWS) throw new Error(`goldset created ${result.created} samples, expected ${ROWS}`);
    const inDb = db.prepare('SELECT count(*) FROM sample WHERE dataset_id = ?').pluck().get(datasetId) as number;
    if (inDb !== ROWS) throw new Error(`sample table holds ${inDb} rows, expected ${ROWS}`);
    // What the import leaves to the background: the search index of its rows (done here at once).
    const indexStart = process.hrtime.bigint();
    ctx.searchIndex.catchUp();
    const indexMs = ms(indexStart);
    if (ctx.searchIndex.pending() !== 0) throw new Error('search index incomplete after catchUp');
    return { ms: elapsed, indexMs, cpuMs: (cpu.user + cpu.system) / 1000, rssGrowthMB: MB(peak - rssStart), hwmGrowthMB: hwmAfter > hwmBefore ? MB(hwmAfter - rssStart) : null };
  } finally {
    await close();
    removeDb(file);
  }
}

// ---------------------------------------------------------------------------------------------
// Profile: phases measured through the real code, no copy of it

async function profileImport(jsonl: string, file: string): Promise<Record<string, number>> {
  const t: Record<string, number> = {};
  // 1. Reading alone: stream, split lines, JSON.parse, normalize and check every row.
  let s = process.hrtime.bigint();
  let n = 0;
  for await (const items of readImportBatches(jsonl, { format: 'jsonl' })) for (const item of items) if ('row' in item) n++;
  t['1 read + parse + check (readImportBatches only)'] = ms(s);
  if (n !== ROWS) throw new Error(`read ${n} rows`);
  // 2. The question keys of every row (fold + SHA-256).
  s = process.hrtime.bigint();
  for await (const items of readImportBatches(jsonl, { format: 'jsonl' })) for (const item of items) if ('row' in item) questionKey(item.row.sample.question);
  t['2 [includes 1] read + question keys'] = ms(s);
  // 3. The whole import, then the background work it leaves: the trigram index of the new rows.
  const { ctx, datasetId, close } = await freshGoldset(file);
  try {
    s = process.hrtime.bigint();
    const result = await ctx.imports.importFile(null, datasetId, jsonl, { format: 'jsonl', filename: 'samples.jsonl' });
    t['3 import (rows committed and searchable)'] = ms(s);
    if (!result.ok) throw new Error('profile import failed');
    s = process.hrtime.bigint();
    ctx.searchIndex.catchUp();
    t['4 trigram index of the new rows (background, after 3)'] = ms(s);
  } finally {
    await close();
    removeDb(file);
  }
  return t;
}

/**
 * Reference point, not the baseline: the sqlite3 tool inserting the same rows into goldset's own
 * schema (unique key index, two more indexes, FTS5 trigram trigger), in one INSERT … SELECT from a
 * table it imported first (untimed). Shows what the schema costs before any JavaScript runs.
 */
async function sqliteIntoGoldsetSchema(csv: string, file: string): Promise<number> {
  await (await freshGoldset(file)).close();
  try {
    const imp = spawnSync(SQLITE3, [file, '-cmd', '.mode csv', `.import ${csv} t`], { encoding: 'utf8' });
    if (imp.status !== 0) throw new Error(`sqlite3 .import failed: ${imp.stderr}`);
    const start = process.hrtime.bigint();
    const r = spawnSync(SQLITE3, [file, 'PRAGMA synchronous = NORMAL; INSERT INTO sample (dataset_id, question_key, question, ground_truth) ' +
      'SELECT (SELECT max(id) FROM dataset), lower(question), question, ground_truth FROM t;'], { encoding: 'utf8' });
    const elapsed = ms(start);
    if (r.status !== 0 || r.stderr.trim() !== '') throw new Error(`sqlite3 insert into goldset schema failed: ${r.stderr}`);
    return elapsed;
  } finally {
    removeDb(file);
  }
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  if (!fs.existsSync(SQLITE3)) throw new Error(`${SQLITE3} not found: the baseline needs the sqlite3 command-line tool`);
  const sqliteVersion = spawnSync(SQLITE3, ['--version'], { encoding: 'utf8' }).stdout.split(' ').slice(0, 2).join(' ');
  const dir = tempDir('goldset-bench-import-');
  try {
    console.log(`import bench: ${ROWS} rows, ${REPEAT} repetition(s), node ${process.version}, sqlite3 ${sqliteVersion}` +
      (FTS_HASHSIZE_MB !== null ? `, WHAT-IF: FTS5 hashsize ${FTS_HASHSIZE_MB} MB` : ''));
    let s = process.hrtime.bigint();
    const { jsonl, csv } = generate(dir, ROWS);
    const jsonlMB = MB(fs.statSync(jsonl).size);
    const csvMB = MB(fs.statSync(csv).size);
    console.log(`  generated JSONL ${jsonlMB.toFixed(1)} MB and CSV ${csvMB.toFixed(1)} MB in ${(ms(s) / 1000).toFixed(1)} s`);

    const baseline: number[] = [];
    const goldset: number[] = [];
    const withIndex: number[] = [];
    const baselineCpu: number[] = [];
    const goldsetCpu: number[] = [];
    const rss: number[] = [];
    const hwm: number[] = [];
    // Alternate the two, so a slow phase of the machine hits both sides alike.
    for (let i = 0; i < REPEAT; i++) {
      const b = sqliteImport(csv, path.join(dir, `sqlite-${i}.db`));
      baseline.push(b.ms);
      if (b.cpuMs !== null) baselineCpu.push(b.cpuMs);
      const g = await goldsetImport(jsonl, path.join(dir, `goldset-${i}.db`));
      goldset.push(g.ms);
      withIndex.push(g.ms + g.indexMs);
      goldsetCpu.push(g.cpuMs);
      rss.push(g.rssGrowthMB);
      if (g.hwmGrowthMB !== null) hwm.push(g.hwmGrowthMB);
      console.log(`  run ${i + 1}/${REPEAT}: sqlite3 ${(b.ms / 1000).toFixed(2)} s, goldset ${(g.ms / 1000).toFixed(2)} s ` +
        `(+ ${(g.indexMs / 1000).toFixed(2)} s search index in the background), ` +
        `peak RSS +${g.rssGrowthMB.toFixed(1)} MB`);
    }

    const baselineMs = median(baseline);
    const goldsetMs = median(goldset);
    const ratio = goldsetMs / baselineMs;
    const withIndexMs = median(withIndex);
    const withIndexRatio = withIndexMs / baselineMs;
    const peakRssGrowthMB = Math.max(...rss);
    const hwmGrowthMB = hwm.length ? Math.max(...hwm) : null;
    // CPU time is less disturbed than wall time by other load on the machine; shown as a cross-check.
    const baselineCpuMs = baselineCpu.length === REPEAT ? median(baselineCpu) : null;
    const goldsetCpuMs = median(goldsetCpu);
    const cpuRatio = baselineCpuMs ? goldsetCpuMs / baselineCpuMs : null;
    console.log('\n' + table([
      ['rows', String(ROWS)],
      ['JSONL file size', `${jsonlMB.toFixed(1)} MB`],
      ['sqlite3 .import CSV (median)', `${(baselineMs / 1000).toFixed(2)} s  (${Math.round(ROWS / (baselineMs / 1000))} rows/s)`],
      ['goldset importFile JSONL (median)', `${(goldsetMs / 1000).toFixed(2)} s  (${Math.round(ROWS / (goldsetMs / 1000))} rows/s)`],
      ['goldset import + search index (median)', `${(withIndexMs / 1000).toFixed(2)} s  = ${withIndexRatio.toFixed(2)}× sqlite3 (the index is built after the import returns)`],
      ['CPU time (user+sys, median) sqlite3 / goldset', baselineCpuMs === null ? 'n/a (no /proc)' :
        `${(baselineCpuMs / 1000).toFixed(2)} s / ${(goldsetCpuMs / 1000).toFixed(2)} s  = ${cpuRatio === null ? '—' : cpuRatio.toFixed(2) + '×'} (cross-check)`],
      ['peak RSS growth, goldset import (50 ms samples)', `${peakRssGrowthMB.toFixed(1)} MB  (${(peakRssGrowthMB / jsonlMB).toFixed(2)}× file size)`],
      ['peak RSS growth, kernel high-water mark', hwmGrowthMB === null ? 'not above earlier peaks' : `${hwmGrowthMB.toFixed(1)} MB`],
    ]));

    let profile: Record<string, number> | null = null;
    if (PROFILE) {
      s = process.hrtime.bigint();
      profile = await profileImport(jsonl, path.join(dir, 'profile.db'));
      profile['5 [reference] sqlite3 tool: INSERT … SELECT into goldset schema, index filled per row'] = await sqliteIntoGoldsetSchema(csv, path.join(dir, 'schema.db'));
      console.log(`\nprofile (one run of each phase, ${(ms(s) / 1000).toFixed(1)} s in all):`);
      console.log(table(Object.entries(profile).map(([k, v]) => [k, `${(v / 1000).toFixed(2)} s`])));
    }

    const verdict = ratio <= TARGET ? 'within target' : 'ABOVE TARGET';
    console.log(`\nimport: goldset/sqlite3 = ${ratio.toFixed(2)}× (target ≤ ${TARGET}×) ${verdict}`);

    const result = {
      bench: 'import',
      summary: `import: goldset/sqlite3 = ${ratio.toFixed(2)}× (target ≤ ${TARGET}×)`,
      rows: ROWS,
      repeat: REPEAT,
      ftsHashsizeMB: FTS_HASHSIZE_MB,
      entryPoint: 'ctx.imports.importFile',
      baselineMedianMs: Math.round(baselineMs),
      goldsetMedianMs: Math.round(goldsetMs),
      ratio: Number(ratio.toFixed(3)),
      withSearchIndexMedianMs: Math.round(withIndexMs),
      withSearchIndexRatio: Number(withIndexRatio.toFixed(3)),
      target: TARGET,
      withinTarget: ratio <= TARGET,
      peakRssGrowthMB: Number(peakRssGrowthMB.toFixed(1)),
      peakRssHighWaterGrowthMB: hwmGrowthMB === null ? null : Number(hwmGrowthMB.toFixed(1)),
      jsonlFileMB: Number(jsonlMB.toFixed(2)),
      csvFileMB: Number(csvMB.toFixed(2)),
      baselineCpuMedianMs: baselineCpuMs === null ? null : Math.round(baselineCpuMs),
      goldsetCpuMedianMs: Math.round(goldsetCpuMs),
      cpuRatio: cpuRatio === null ? null : Number(cpuRatio.toFixed(3)),
      baselineRunsMs: baseline.map(Math.round),
      goldsetRunsMs: goldset.map(Math.round),
      profileMs: profile && Object.fromEntries(Object.entries(profile).map(([k, v]) => [k, Math.round(v)])),
      node: process.version,
      sqlite3: sqliteVersion,
      platform: platform(),
      date: new Date().toISOString(),
    };
    // What-if runs must not overwrite the result of the app as it is.
    const out = FTS_HASHSIZE_MB === null ? 'import.json' : `import.fts-hashsize-${FTS_HASHSIZE_MB}.json`;
    writeResult(out, result);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Runs when executed, not when imported (e.g. to reuse generate()).
if (isMain(import.meta.url)) await main();
