/**
 * Import benchmark: goldset's JSONL import of N question/ground-truth rows, compared in the same run
 * with the sqlite3 command-line tool's `.import` of the same rows as CSV into a plain table.
 * Target: within 3× of sqlite3, with memory bounded (the file is streamed, never held whole).
 *
 *   npx tsx bench/import.ts [--rows 100000] [--repeat 3] [--profile] [--fts-hashsize MB]
 *
 * --profile adds a per-phase breakdown (parse, stage, final transaction) measured on a copy of the
 * import-service logic, and the time the sqlite3 tool itself needs to insert the same rows into
 * goldset's schema (indexes + FTS5 trigram), to show where the time goes.
 * --fts-hashsize is a what-if knob: it sets the FTS5 'hashsize' option (default 1 MB) on each fresh
 * database before importing. Without it the bench measures the app exactly as it is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { DB } from '../server/db/connection.ts';
import { readImportFile } from '../server/io/read.ts';
import { questionKey } from '../server/samples/queries.ts';
import type { ImportRow } from '../server/io/schema.ts';
import {
  childrenCpuMs, flag, intArg, isMain, MB, median, ms, openBenchApp, platform, prng, removeDb, rssSampler, sentence, table, tempDir, writeResult,
} from './common.ts';

const SQLITE3 = '/usr/bin/sqlite3';
const TARGET = 3;

const ROWS = intArg('rows', 100_000);
const REPEAT = intArg('repeat', 3);
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
// goldset: importSamples on a fresh database

function freshGoldset(file: string) {
  removeDb(file);
  const { db, ctx } = openBenchApp(file);
  const dataset = ctx.datasets.create(null, { name: 'bench', description: '', language: 'zh', domain: '' });
  // An integer literal: a bound JS number arrives as REAL, which FTS5 rejects ("SQL logic error").
  if (FTS_HASHSIZE_MB !== null) db.exec(`INSERT INTO sample_fts (sample_fts, rank) VALUES ('hashsize', ${FTS_HASHSIZE_MB * 1024 * 1024})`);
  return { db, ctx, datasetId: dataset.id };
}

/**
 * The service's import entry point. It was `importSamples` and is `importFile` since the import of
 * answers and labels; the bench takes whichever exists so it keeps measuring across the rename.
 */
type ImportFn = (actorId: number | null, datasetId: number, file: string, options: { format: 'jsonl'; filename: string }) =>
  Promise<{ ok: true; created: number } | { ok: false; errors: unknown[]; totalErrors: number }>;

function importEntryPoint(imports: object): { name: string; run: ImportFn } {
  for (const name of ['importFile', 'importSamples']) {
    const fn = (imports as Record<string, unknown>)[name];
    if (typeof fn === 'function') return { name, run: (fn as ImportFn).bind(imports) };
  }
  throw new Error('ctx.imports has neither importFile nor importSamples');
}

let entryPointName = 'importFile';

async function goldsetImport(jsonl: string, file: string): Promise<{ ms: number; cpuMs: number; rssGrowthMB: number; hwmGrowthMB: number | null }> {
  const { db, ctx, datasetId } = freshGoldset(file);
  const entry = importEntryPoint(ctx.imports);
  entryPointName = entry.name;
  try {
    global.gc?.();
    const rssStart = process.memoryUsage().rss;
    const hwmBefore = process.resourceUsage().maxRSS * 1024;
    const sampler = rssSampler();
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    const result = await entry.run(null, datasetId, jsonl, { format: 'jsonl', filename: 'samples.jsonl' });
    const elapsed = ms(start);
    const cpu = process.cpuUsage(cpuStart);
    const peak = sampler.stop();
    // The final transaction is synchronous and blocks the 50 ms timer; the kernel's high-water mark
    // catches a peak inside it, but only when it exceeds every earlier peak of this process.
    const hwmAfter = process.resourceUsage().maxRSS * 1024;
    if (!result.ok) throw new Error(`goldset import failed: ${JSON.stringify(result.errors.slice(0, 3))} (${result.totalErrors} errors)`);
    if (result.created !== ROWS) throw new Error(`goldset created ${result.created} samples, expected ${ROWS}`);
    const inDb = db.prepare('SELECT count(*) FROM sample WHERE dataset_id = ?').pluck().get(datasetId) as number;
    if (inDb !== ROWS) throw new Error(`sample table holds ${inDb} rows, expected ${ROWS}`);
    return { ms: elapsed, cpuMs: (cpu.user + cpu.system) / 1000, rssGrowthMB: MB(peak - rssStart), hwmGrowthMB: hwmAfter > hwmBefore ? MB(hwmAfter - rssStart) : null };
  } finally {
    db.close();
    removeDb(file);
  }
}

// ---------------------------------------------------------------------------------------------
// Profile: a copy of the import service's logic (server/importexport/import-service.ts as of the
// import of answers and labels) with a timer around each phase. Keep it in step with the service.

const STAGE_BATCH = 2000;

// The service's SQL, copied verbatim.
const SQL = {
  stage: 'INSERT INTO import_staging (import_id, line, payload) VALUES (?, ?, ?)',
  clear: 'DELETE FROM import_staging WHERE import_id = ?',
  differing: `
    SELECT st.line FROM import_staging st JOIN sample s
      ON s.dataset_id = @ds AND s.question_key = json_extract(st.payload, '$.key')
    WHERE st.import_id = @id AND (
      (json_extract(st.payload, '$.row.sample.ground_truth') IS NOT NULL AND s.ground_truth IS NOT json_extract(st.payload, '$.row.sample.ground_truth'))
      OR (json_array_length(json_extract(st.payload, '$.row.sample.reference_contexts')) > 0
          AND s.reference_contexts IS NOT json(json_extract(st.payload, '$.row.sample.reference_contexts'))))
    ORDER BY st.line`,
  insertSamples: `
    INSERT INTO sample (dataset_id, question_key, question, ground_truth, reference_contexts, tags, source, notes, author_id)
    SELECT @ds, json_extract(payload, '$.key'), json_extract(payload, '$.row.sample.question'),
      coalesce(json_extract(payload, '$.row.sample.ground_truth'), ''),
      json(json_extract(payload, '$.row.sample.reference_contexts')), json(json_extract(payload, '$.row.sample.tags')),
      coalesce(json_extract(payload, '$.row.sample.source'), ''), coalesce(json_extract(payload, '$.row.sample.notes'), ''), @author
    FROM import_staging WHERE import_id = @id ORDER BY line
    ON CONFLICT (dataset_id, question_key) DO NOTHING`,
  insertTags: `
    INSERT OR IGNORE INTO sample_tag (sample_id, tag)
    SELECT s.id, j.value FROM sample s, json_each(s.tags) j WHERE s.dataset_id = @ds AND s.id > @after`,
  insertResponses: `
    INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, metadata, content_hash, created_by)
    SELECT s.id, @ds, coalesce(json_extract(st.payload, '$.row.response.system'), ''), json_extract(st.payload, '$.row.response.answer'),
      json(json_extract(st.payload, '$.row.response.retrieved_contexts')), json(json_extract(st.payload, '$.meta')),
      json_extract(st.payload, '$.hash'), @author
    FROM import_staging st JOIN sample s ON s.dataset_id = @ds AND s.question_key = json_extract(st.payload, '$.key')
    WHERE st.import_id = @id AND json_extract(st.payload, '$.hash') IS NOT NULL ORDER BY st.line
    ON CONFLICT (sample_id, content_hash) DO NOTHING`,
};

/** The staged payload as the service builds it. The bench rows have no answer: hash and meta are null. */
function payload(key: string, row: ImportRow): string {
  if (row.response) throw new Error('bench rows carry no response');
  return JSON.stringify({ key, hash: null, meta: null, row });
}

async function stageAll(db: DB, jsonl: string, importId: string, time: <T>(name: string, fn: () => T) => T): Promise<void> {
  const stage = db.prepare(SQL.stage);
  let batch: { key: string; line: number; row: ImportRow }[] = [];
  const flush = () => time('2b staging inserts (JSON.stringify + INSERT)', () => db.transaction(() => {
    for (const b of batch) stage.run(importId, b.line, payload(b.key, b.row));
  })());
  for await (const item of readImportFile(jsonl, { format: 'jsonl' })) {
    if (!('row' in item)) continue;
    batch.push({ key: time('2a questionKey', () => questionKey(item.row.sample.question)), line: item.line, row: item.row });
    if (batch.length >= STAGE_BATCH) { flush(); batch = []; }
  }
  flush();
}

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

    // 2. The service's loop: read + questionKey + JSON.stringify + staging inserts in batches.
    const importId = 'bench';
    s = process.hrtime.bigint();
    await stageAll(db, jsonl, importId, time);
    t['2 staging loop total (read + key + stage)'] = ms(s);

    // 3. The final transaction, statement by statement.
    const hasResponses = db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'response'").get() !== undefined;
    s = process.hrtime.bigint();
    db.transaction(() => {
      time('3a differing (SELECT join)', () => db.prepare(SQL.differing).all({ id: importId, ds: datasetId }));
      const created = time('3b INSERT INTO sample … SELECT (incl. FTS trigger)', () =>
        db.prepare(SQL.insertSamples).run({ id: importId, ds: datasetId, author: null }).changes);
      if (created !== ROWS) throw new Error(`created ${created}`);
      time('3c insertTags', () => db.prepare(SQL.insertTags).run({ ds: datasetId, after: 0 }));
      if (hasResponses) time('3d insertResponses (none in this file)', () => db.prepare(SQL.insertResponses).run({ id: importId, ds: datasetId, author: null }));
    })();
    t['3 final transaction total (incl. COMMIT)'] = ms(s);
    time('3e clear staging (DELETE, after the commit)', () => db.prepare(SQL.clear).run(importId));

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
    await stageAll(db, jsonl, 'x', (_name, fn) => fn());
    const s = process.hrtime.bigint();
    db.transaction(() => db.prepare(SQL.insertSamples).run({ id: 'x', ds: datasetId, author: null }))();
    return ms(s);
  } finally {
    db.close();
    removeDb(file);
  }
}

/**
 * Reference point, not the baseline: the sqlite3 tool inserting the same rows into goldset's own
 * schema (unique key index, two more indexes, FTS5 trigram trigger), in one INSERT … SELECT from a
 * table it imported first (untimed). Shows what the schema costs before any JavaScript runs.
 */
function sqliteIntoGoldsetSchema(csv: string, file: string): number {
  const { db } = freshGoldset(file);
  db.close();
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
      goldsetCpu.push(g.cpuMs);
      rss.push(g.rssGrowthMB);
      if (g.hwmGrowthMB !== null) hwm.push(g.hwmGrowthMB);
      console.log(`  run ${i + 1}/${REPEAT}: sqlite3 ${(b.ms / 1000).toFixed(2)} s, goldset ${(g.ms / 1000).toFixed(2)} s, ` +
        `peak RSS +${g.rssGrowthMB.toFixed(1)} MB`);
    }

    const baselineMs = median(baseline);
    const goldsetMs = median(goldset);
    const ratio = goldsetMs / baselineMs;
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
      [`goldset ${entryPointName} JSONL (median)`, `${(goldsetMs / 1000).toFixed(2)} s  (${Math.round(ROWS / (goldsetMs / 1000))} rows/s)`],
      ['CPU time (user+sys, median) sqlite3 / goldset', baselineCpuMs === null ? 'n/a (no /proc)' :
        `${(baselineCpuMs / 1000).toFixed(2)} s / ${(goldsetCpuMs / 1000).toFixed(2)} s  = ${cpuRatio === null ? '—' : cpuRatio.toFixed(2) + '×'} (cross-check)`],
      ['peak RSS growth, goldset import (50 ms samples)', `${peakRssGrowthMB.toFixed(1)} MB  (${(peakRssGrowthMB / jsonlMB).toFixed(2)}× file size)`],
      ['peak RSS growth, kernel high-water mark', hwmGrowthMB === null ? 'not above earlier peaks' : `${hwmGrowthMB.toFixed(1)} MB`],
    ]));

    let profile: Record<string, number> | null = null;
    if (PROFILE) {
      s = process.hrtime.bigint();
      profile = await profileImport(jsonl, path.join(dir, 'profile.db'));
      profile['5 [reference] sqlite3 tool: INSERT … SELECT into goldset schema'] = sqliteIntoGoldsetSchema(csv, path.join(dir, 'schema.db'));
      console.log(`\nprofile (one run of a copy of the import-service logic, ${(ms(s) / 1000).toFixed(1)} s in all):`);
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
      entryPoint: `ctx.imports.${entryPointName}`,
      baselineMedianMs: Math.round(baselineMs),
      goldsetMedianMs: Math.round(goldsetMs),
      ratio: Number(ratio.toFixed(3)),
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
