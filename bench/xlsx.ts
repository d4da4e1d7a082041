/**
 * XLSX export and import of 50,000 responses (Chinese and English text, two retrieved contexts of
 * 300–800 characters each) against the same through CSV, measured in the same run: time ratio
 * XLSX / CSV, and the peak RSS above the process's RSS before each step (is memory bounded?).
 *
 *   npx tsx bench/xlsx.ts [--rows 50000] [--repeat 3]
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  collectGarbage, MB, intArg, isMain, median, ms, openBenchApp, prng, removeDb, runInfo, sentence, startRssSampler, table, tempDir, writeResult,
} from './common.ts';
import { datasetRecords, writeExport, writeRecordsXlsx } from '../server/importexport/export.ts';

const rows = intArg('rows', 50_000);
const repeat = intArg('repeat', 3);

async function measure<T>(fn: () => Promise<T> | T): Promise<{ ms: number; peakMb: number; value: T }> {
  collectGarbage();
  const sampler = await startRssSampler();
  const before = process.memoryUsage().rss;
  const start = process.hrtime.bigint();
  const value = await fn();
  const took = ms(start);
  return { ms: took, peakMb: MB(sampler.stop() - before), value };
}

export async function main(): Promise<void> {
  const dir = tempDir('goldset-bench-xlsx-');
  const file = path.join(dir, 'bench.db');
  const { db, ctx } = openBenchApp(file);
  const rand = prng(15);
  const source = path.join(dir, 'rows.jsonl');
  const fd = fs.openSync(source, 'w');
  for (let i = 0; i < rows; i++) {
    fs.writeSync(fd, JSON.stringify({ user_input: `${i} ${sentence(rand, 40, 120)}`, reference: sentence(rand, 100, 300), response: sentence(rand, 100, 300),
      retrieved_contexts: [sentence(rand, 300, 800), sentence(rand, 300, 800)], system: i % 2 ? 'v1' : 'v2' }) + '\n');
  }
  fs.closeSync(fd);
  const datasetId = ctx.datasets.create(null, { name: 'bench', description: '', language: 'zh', domain: '' }).id;
  await ctx.imports.importFile(null, datasetId, source, { format: 'jsonl' });
  const src = { db, samples: ctx.samples.queries, criteria: ctx.criteria.forDataset(datasetId) };
  const opts = { datasetId, status: 'all' as const, responses: true };
  const csvFile = path.join(dir, 'out.csv'), xlsxFile = path.join(dir, 'out.xlsx');

  const runs: Record<string, { ms: number; peakMb: number }[]> = { exportCsv: [], exportXlsx: [], importCsv: [], importXlsx: [] };
  for (let r = 0; r < repeat; r++) {
    runs.exportCsv!.push(await measure(() => {
      const out = fs.openSync(csvFile, 'w');
      writeExport(src, opts, 'ragas-csv', (chunk) => fs.writeSync(out, chunk));
      fs.closeSync(out);
    }));
    runs.exportXlsx!.push(await measure(() => writeRecordsXlsx(datasetRecords(src, opts), fs.createWriteStream(xlsxFile), { mtime: new Date(0), sheet: 'bench' })));
    for (const [key, f, format] of [['importCsv', csvFile, 'csv'], ['importXlsx', xlsxFile, 'xlsx']] as const) {
      const target = ctx.datasets.create(null, { name: `${key}-${r}`, description: '', language: 'zh', domain: '' }).id;
      await ctx.imports.warm();
      const m = await measure(() => ctx.imports.importFile(null, target, f, { format }));
      const result = m.value;
      if (!result.ok || result.rows !== rows) throw new Error(`${key}: ${JSON.stringify(result).slice(0, 300)}`);
      runs[key]!.push(m);
    }
  }
  const med = (k: string, f: 'ms' | 'peakMb') => median(runs[k]!.map((x) => x[f]));
  const exportRatio = med('exportXlsx', 'ms') / med('exportCsv', 'ms');
  const importRatio = med('importXlsx', 'ms') / med('importCsv', 'ms');
  const sizes = { csvMb: MB(fs.statSync(csvFile).size), xlsxMb: MB(fs.statSync(xlsxFile).size) };
  console.log(table([
    ['rows', String(rows)], ['repetitions', String(repeat)],
    ['files', `CSV ${sizes.csvMb.toFixed(1)} MB, XLSX ${sizes.xlsxMb.toFixed(1)} MB`],
    ['export CSV / XLSX (median)', `${med('exportCsv', 'ms').toFixed(0)} ms / ${med('exportXlsx', 'ms').toFixed(0)} ms = ${exportRatio.toFixed(2)}×`],
    ['export peak RSS above start', `CSV +${med('exportCsv', 'peakMb').toFixed(0)} MB, XLSX +${med('exportXlsx', 'peakMb').toFixed(0)} MB`],
    ['import CSV / XLSX (median)', `${med('importCsv', 'ms').toFixed(0)} ms / ${med('importXlsx', 'ms').toFixed(0)} ms = ${importRatio.toFixed(2)}×`],
    ['import peak RSS above start', `CSV +${med('importCsv', 'peakMb').toFixed(0)} MB, XLSX +${med('importXlsx', 'peakMb').toFixed(0)} MB`],
  ]));
  writeResult('xlsx.json', {
    ...runInfo(), rows, repeat, sizes, runs, exportRatio, importRatio,
    summary: `xlsx: ${rows} rows, export ${exportRatio.toFixed(2)}× CSV (+${med('exportXlsx', 'peakMb').toFixed(0)} MB RSS), import ${importRatio.toFixed(2)}× CSV (+${med('importXlsx', 'peakMb').toFixed(0)} MB RSS)`,
  });
  await ctx.imports.close();
  db.close();
  removeDb(file);
  fs.rmSync(dir, { recursive: true, force: true });
}

if (isMain(import.meta.url)) await main();
