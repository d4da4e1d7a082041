/**
 * Per-context calibration benchmark: the per-context report (binary figures over contexts with 95 %
 * intervals from a bootstrap over responses, 1,000 resamples; by rank; item-level context precision
 * with its own intervals) over --items responses of --contexts retrieved contexts each, compared in the
 * same run with reading those rows from the database (every response's verdicts from its trace and the
 * gold value of each context), which the report starts with. This is what the first view of the
 * per-context page costs after a change; the views after it are kept (server/db/derived-cache.ts).
 *
 *   npx tsx bench/contexts.ts [--items 100000] [--contexts 5] [--repeat 3] [--resamples 1000]
 *
 * The traces are the size real ones are: each verify call keeps its prompt as sent (the built-in
 * English verify prompt with its examples) and the reply. Wall and CPU time are both reported: on a
 * shared machine the CPU time is the steadier of the two.
 */
import path from 'node:path';
import type { DB } from '../server/db/connection.ts';
import type { AppContext } from '../server/app-context.ts';
import type { Criterion } from '../server/criteria/queries.ts';
import type { RunRow } from '../server/judge/run-queries.ts';
import { contextCalibrationService } from '../server/calibration/context-service.ts';
import { contextReport } from '../server/calibration/report-context.ts';
import { VERIFY_PROMPTS } from '../server/judge/prompts/context.ts';
import { renderPrompt } from '../server/judge/prompts/render.ts';
import { failOnChecks, intArg, isMain, median, openBenchApp, PASSWORD, printChecks, prng, runInfo, table, tempDir, timed, writeResult } from './common.ts';

const ITEMS = intArg('items', 100_000);
const CONTEXTS = intArg('contexts', 5);
const REPEAT = intArg('repeat', 3);
const RESAMPLES = intArg('resamples', 1000);
const TARGET_RATIO = 10;

interface Setup { db: DB; ctx: AppContext; criterion: Criterion; run: RunRow; holdoutSeed: number }

async function setup(file: string): Promise<Setup> {
  const { db, ctx } = openBenchApp(file);
  const admin = await ctx.users.createFirstAdmin({ email: 'admin@bench.test', name: 'Admin', password: PASSWORD });
  const expert = await ctx.users.createUser(admin.id, { email: 'expert@bench.test', name: 'Expert', role: 'expert', password: PASSWORD });
  const dataset = ctx.datasets.create(admin.id, { name: 'contexts bench', description: 'bench/contexts.ts', language: 'en', domain: 'support' });
  const criterion = ctx.criteria.create(admin.id, dataset.id, {
    name: 'relevant', kind: 'binary', target: 'context', options: [], scale_min: null, scale_max: null, guidelines: 'Does the context help to answer?',
  });
  const insertSample = db.prepare('INSERT INTO sample (dataset_id, question_key, question, ground_truth) VALUES (?, ?, ?, ?)');
  const insertResponse = db.prepare(`INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, content_hash, n_submitted)
    VALUES (?, ?, ?, ?, ?, ?, 1)`);
  const insertAnnotation = db.prepare(`INSERT INTO annotation (response_id, dataset_id, annotator_id, state, submitted_at)
    VALUES (?, ?, ?, 'submitted', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);
  const insertLabel = db.prepare('INSERT INTO label (annotation_id, criterion_id, context_index, value) VALUES (?, ?, ?, ?)');
  const insertScore = db.prepare("INSERT INTO score (run_id, response_id, status, value, trace) VALUES (?, ?, 'ok', ?, ?)");
  const runId = Number(db.prepare(`INSERT INTO run (dataset_id, name, metric_key, source, status, n_total, created_by)
    VALUES (?, 'verify-v1', 'context_precision', 'goldset', 'done', ?, ?)`).run(dataset.id, ITEMS, admin.id).lastInsertRowid);
  const system = JSON.stringify(renderPrompt(VERIFY_PROMPTS.en, { question: '', context: '', answer: '' })[0]);
  const rand = prng(20261201);
  db.transaction(() => {
    for (let i = 0; i < ITEMS; i++) {
      const question = `Question ${i + 1}: how long is the warranty of product ${i % 97}?`;
      const sampleId = Number(insertSample.run(dataset.id, question.toLowerCase(), question, 'Two years.').lastInsertRowid);
      const contexts = Array.from({ length: CONTEXTS }, (_, k) => `Context ${k + 1} of answer ${i + 1}: products of line ${(i + k) % 13} carry a warranty of ${1 + ((i + k) % 3)} years.`);
      const responseId = Number(insertResponse.run(sampleId, dataset.id, i % 2 ? 'rag-v2' : 'rag-v1', `Answer ${i + 1}: two years.`, JSON.stringify(contexts), `bench-${i}`).lastInsertRowid);
      // Relevance falls with rank; the judge agrees more often on some answers than on others (clustered errors).
      const skill = 0.6 + 0.35 * rand();
      const gold = contexts.map((_, k) => (rand() < 0.7 / (1 + k * 0.4) ? 1 : 0));
      const verdicts = gold.map((g) => (rand() < skill ? g : 1 - g));
      const annotationId = Number(insertAnnotation.run(responseId, dataset.id, expert.id).lastInsertRowid);
      gold.forEach((g, k) => insertLabel.run(annotationId, criterion.id, k, String(g)));
      // Each step as the runner writes it; the system message (instruction and examples) is the same in every one.
      const steps = contexts.map((context, k) => {
        const parsed = JSON.stringify({ reason: verdicts[k] ? 'The context states the warranty period of the answer.' : 'The context is about another product line.', verdict: verdicts[k] });
        const user = JSON.stringify({ role: 'user', content: `Input: ${JSON.stringify({ question, context, answer: 'Two years.' }, null, 2)}` });
        return `{"step":"verify","prompt_version":null,"messages":[${system},${user}],"raw":${JSON.stringify(parsed)},"parsed":${parsed},"cached":false}`;
      });
      let hits = 0, sum = 0;
      verdicts.forEach((v, k) => { if (v) { hits++; sum += hits / (k + 1); } });
      const score = hits ? sum / hits : 0;
      insertScore.run(runId, responseId, score, `{"steps":[${steps.join(',')}],"values":{"verdicts":${JSON.stringify(verdicts)}},"computation":""}`);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { db, ctx, criterion, run: ctx.runner.queries.byId(runId)!, holdoutSeed: dataset.holdout_seed };
}

async function main(): Promise<void> {
  console.log(`contexts bench: ${ITEMS} responses × ${CONTEXTS} contexts, ${RESAMPLES} resamples, ${REPEAT} repetitions, node ${process.version}`);
  const file = path.join(tempDir('goldset-bench-contexts-'), 'bench.db');
  const t0 = performance.now();
  const S = await setup(file);
  console.log(`  seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s (${(S.db.prepare('PRAGMA page_count').pluck().get() as number) * 4096 / 1e6 | 0} MB)`);
  // A service that keeps nothing, so every call reads and computes.
  const uncached = contextCalibrationService(S.db, { get: (_d, _k, compute) => compute(), peek: () => undefined, track: () => ({ touch: () => {}, done: () => () => {} }), followWrite: () => true, clear: () => {} });
  const input = { criterion: S.criterion, run: S.run, part: 'all' as const, holdoutSeed: S.holdoutSeed };
  const reads: number[] = [], reports: number[] = [], readCpu: number[] = [], reportCpu: number[] = [];
  let rows = uncached.responses(input);
  for (let r = 0; r < REPEAT; r++) {
    const read = timed(() => uncached.responses(input));
    rows = read.value;
    const report = timed(() => contextReport({ responses: rows, resamples: RESAMPLES }));
    reads.push(read.ms); readCpu.push(read.cpuMs); reports.push(report.ms); reportCpu.push(report.cpuMs);
    console.log(`  run ${r + 1}: read ${read.ms.toFixed(0)} ms, report ${report.ms.toFixed(0)} ms (κ = ${report.value.cohen_kappa?.toFixed(3)}, n = ${report.value.n})`);
  }
  const readMs = median(reads), reportMs = median(reports);
  const ratio = reportMs / readMs;
  console.log('\n' + table([
    ['', 'median'],
    ['read the rows (baseline)', `${readMs.toFixed(0)} ms (CPU ${median(readCpu).toFixed(0)} ms)`],
    ['per-context report', `${reportMs.toFixed(0)} ms (CPU ${median(reportCpu).toFixed(0)} ms)`],
    ['report ÷ read', `${ratio.toFixed(2)}×`],
    ['first view (read + report)', `${(readMs + reportMs).toFixed(0)} ms (CPU ${(median(readCpu) + median(reportCpu)).toFixed(0)} ms)`],
  ]));
  const summary = `contexts: per-context report over ${ITEMS} × ${CONTEXTS} contexts ${reportMs.toFixed(0)} ms, ${ratio.toFixed(2)}× reading the rows (${readMs.toFixed(0)} ms)`;
  const ok = printChecks([[`report within ${TARGET_RATIO}× the read`, ratio <= TARGET_RATIO], ['every context counted', rows.length === ITEMS]]);
  console.log(`\n${summary}`);
  writeResult('contexts.json', { bench: 'contexts', summary, items: ITEMS, contexts: CONTEXTS, resamples: RESAMPLES, repeat: REPEAT, readMs, reportMs, ratio, readCpuMs: median(readCpu), reportCpuMs: median(reportCpu), reads, reports, ...runInfo() });
  failOnChecks('contexts', ok);
  S.db.close();
}

if (isMain(import.meta.url)) await main();
