/**
 * Runs every benchmark in BENCHES, one child process each (so one bench's memory and timers cannot
 * disturb the next), then prints their one-line summaries from bench/results/<name>.json.
 *
 *   npm run bench                      all benchmarks, default sizes
 *   npm run bench -- --rows 20000      extra arguments are passed to every benchmark
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHES = ['import', 'label', 'judge', 'calibration', 'contexts', 'estimate', 'pages', 'xlsx'];

const dir = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const summaries: string[] = [];
let failed = 0;

for (const name of BENCHES) {
  console.log(`\n=== bench/${name}.ts ${args.join(' ')}`.trimEnd());
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, `${name}.ts`), ...args], { stdio: 'inherit', cwd: path.dirname(dir) });
  if (r.status !== 0) {
    failed++;
    summaries.push(`${name}: FAILED (exit ${r.status ?? r.signal})`);
    continue;
  }
  const file = path.join(dir, 'results', `${name}.json`);
  const result = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { summary?: string }) : {};
  summaries.push(`${result.summary ?? `${name}: no summary in ${path.relative(process.cwd(), file)}`}  [${((Date.now() - started) / 1000).toFixed(0)} s]`);
}

console.log('\n=== summary');
for (const line of summaries) console.log(line);
process.exitCode = failed ? 1 : 0;
