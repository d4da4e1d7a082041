/**
 * True-score benchmark: the estimate with its diagnostics — judge only, experts only and corrected
 * (PPI++) for all systems and for each of two systems, λ, effective labels, the labels planner, the
 * bias regression and the comparison of the two systems — over 100,000 judge scores and 1,000
 * sampled gold labels (`ctx.estimates.estimates` + `compare`, nothing kept between runs), against
 * reading the rows it reads from the database in the same run (the run's scores with each
 * response's system and question, the sample's items, their submitted labels and adjudications).
 * Target: at most 3× the read.
 *
 *   npx tsx bench/estimate.ts [--items 100000] [--sample 1000] [--repeat 5]
 *
 * Also measured: the labelling queue's next-item query with the sample at the front (its plan, and
 * µs per call), which every save-and-next runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DB } from '../server/db/connection.ts';
import type { AppContext } from '../server/app-context.ts';
import type { Criterion } from '../server/criteria/queries.ts';
import type { RunRow } from '../server/judge/run-queries.ts';
import { CLAIM_MINUTES } from '../server/labels/queries.ts';
import { failOnChecks, intArg, isMain, median, openBenchApp, PASSWORD, printChecks, prng, runInfo, table, tempDir, timed, writeResult } from './common.ts';

const TARGET_RATIO = 3;
const ITEMS = intArg('items', 100_000);
const SAMPLE = intArg('sample', 1000);
const REPEAT = intArg('repeat', 5);

interface Setup { db: DB; ctx: AppContext; datasetId: number; criterion: Criterion; run: RunRow; sampleId: number; expertId: number }

async function setup(file: string): Promise<Setup> {
  const { db, ctx } = openBenchApp(file);
  const admin = await ctx.users.createFirstAdmin({ email: 'admin@bench.test', name: 'Admin', password: PASSWORD });
  const expert = await ctx.users.createUser(admin.id, { email: 'expert@bench.test', name: 'Expert', role: 'expert', password: PASSWORD });
  const dataset = ctx.datasets.create(admin.id, { name: 'estimate bench', description: 'bench/estimate.ts', language: 'en', domain: 'support' });
  const criterion = ctx.criteria.create(admin.id, dataset.id, { name: 'correct', kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null, guidelines: '' });
  const insertSample = db.prepare('INSERT INTO sample (dataset_id, question_key, question, ground_truth) VALUES (?, ?, ?, ?)');
  const insertResponse = db.prepare(`INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, content_hash)
    VALUES (?, ?, ?, ?, ?, ?)`);
  const insertRun = db.prepare(`INSERT INTO run (dataset_id, name, metric_key, source, status, n_total, created_by, started_at, finished_at)
    VALUES (?, 'nightly', 'faithfulness', 'imported', 'done', ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);
  const insertScore = db.prepare("INSERT INTO score (run_id, response_id, status, value) VALUES (?, ?, 'ok', ?)");
  const rand = prng(20261201);
  const truth = new Map<number, boolean>();
  db.transaction(() => {
    const runId = Number(insertRun.run(dataset.id, ITEMS, admin.id).lastInsertRowid);
    let sampleId = 0;
    for (let i = 0; i < ITEMS; i++) {
      const system = i % 2 ? 'rag-v2' : 'rag-v1';
      if (i % 2 === 0) {
        const q = `Question ${i / 2 + 1}: how long is the warranty of product ${i % 97}?`;
        sampleId = Number(insertSample.run(dataset.id, q.toLowerCase(), q, 'Two years.').lastInsertRowid);
      }
      // The judge is lenient, more so with long answers: it passes 40 % of what experts fail.
      const chars = 40 + Math.floor(rand() * 600);
      const pass = rand() < (system === 'rag-v2' ? 0.75 : 0.68);
      const contexts = 1 + Math.floor(rand() * 5);
      const responseId = Number(insertResponse.run(sampleId, dataset.id, system, 'x'.repeat(chars),
        JSON.stringify(Array.from({ length: contexts }, (_, k) => `context ${k}`)), `bench-${i}`).lastInsertRowid);
      truth.set(responseId, pass);
      const judged = pass ? rand() < 0.95 : rand() < 0.2 + chars / 1500;
      insertScore.run(runId, responseId, judged ? 0.6 + 0.4 * rand() : 0.4 * rand());
    }
  })();
  const run = db.prepare<[number], RunRow>('SELECT * FROM run WHERE dataset_id = ?').get(dataset.id)!;
  const drawn = ctx.estimates.draw(admin.id, dataset.id, { system: null, size: SAMPLE, seed: 7, systems: ['rag-v1', 'rag-v2'] });
  const insertAnnotation = db.prepare(`INSERT INTO annotation (response_id, dataset_id, annotator_id, state, submitted_at)
    VALUES (?, ?, ?, 'submitted', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);
  const insertLabel = db.prepare('INSERT INTO label (annotation_id, criterion_id, context_index, value) VALUES (?, ?, -1, ?)');
  db.transaction(() => {
    for (const it of drawn.items) {
      const a = Number(insertAnnotation.run(it.response_id, dataset.id, expert.id).lastInsertRowid);
      insertLabel.run(a, criterion.id, truth.get(it.response_id) ? '1' : '0');
    }
    db.prepare('UPDATE response SET n_submitted = 1 WHERE id IN (SELECT response_id FROM estimation_item WHERE sample_id = ?)').run(drawn.sample.id);
  })();
  // No ANALYZE: the app never runs it, so the planner works without statistics, as in production.
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { db, ctx, datasetId: dataset.id, criterion, run, sampleId: drawn.sample.id, expertId: expert.id };
}

async function main(): Promise<void> {
  const dir = tempDir('goldset-bench-estimate-');
  try {
    const S = await setup(path.join(dir, 'bench.db'));
    const q = S.ctx.estimates.queries;
    const read = () => {
      const scores = q.runScores.all(S.run.id);
      const items = q.items.all(S.sampleId);
      const labels = q.sampleLabels.all({ sample: S.sampleId, criterion: S.criterion.id });
      const adjudications = q.sampleAdjudications.all({ sample: S.sampleId, criterion: S.criterion.id });
      return scores.length + items.length + labels.length + adjudications.length;
    };
    const bump = S.db.prepare('UPDATE dataset SET data_version = data_version + 1 WHERE id = ?');
    const estimate = () => {
      const all = S.ctx.estimates.estimates({ criterion: S.criterion, run: S.run, threshold: 0.5 });
      const comparison = S.ctx.estimates.compare(all.get('rag-v1')!, all.get('rag-v2')!);
      return { all, comparison };
    };
    // Warm-up of both (statement preparation, JIT), then REPEAT alternating runs; the estimate's kept
    // value is dropped before each of its runs (a change moves data_version, as a label would).
    read();
    bump.run(S.datasetId);
    estimate();
    const reads: number[] = [], reads_cpu: number[] = [], ests: number[] = [], ests_cpu: number[] = [];
    let rows = 0;
    let last: ReturnType<typeof estimate> | null = null;
    for (let r = 0; r < REPEAT; r++) {
      const a = timed(read);
      rows = a.value;
      reads.push(a.ms);
      reads_cpu.push(a.cpuMs);
      bump.run(S.datasetId);
      const b = timed(estimate);
      last = b.value;
      ests.push(b.ms);
      ests_cpu.push(b.cpuMs);
    }
    const readMs = median(reads);
    const estimateMs = median(ests);
    const ratio = estimateMs / readMs;
    const cpuRatio = median(ests_cpu) / median(reads_cpu);
    const all = last!.all.get('')!;
    const s = all.scope!;

    // The labelling queue's next item with the sample at the front (sampled items already labelled once).
    const next = S.ctx.labels.queries.next;
    const params = { ds: S.datasetId, me: S.expertId + 1, overlap: 2, cutoff: new Date(Date.now() - CLAIM_MINUTES * 60_000).toISOString(), after: 0, after_rank: Number.MIN_SAFE_INTEGER };
    const plan = (S.db.prepare(`EXPLAIN QUERY PLAN ${next.source}`).all(params) as { detail: string }[]).map((p) => p.detail);
    next.get(params);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 1000; i++) next.get(params);
    const nextUs = Number(process.hrtime.bigint() - t0) / 1e3 / 1000;
    const firstSampled = q.items.all(S.sampleId)[0]!.response_id;
    // The worst case for the sampled branch: every sampled item already has its labels (overlap 1),
    // so the whole sample is stepped over in the index before the rest of the queue.
    const done = { ...params, overlap: 1 };
    next.get(done);
    const t1 = process.hrtime.bigint();
    for (let i = 0; i < 1000; i++) next.get(done);
    const doneUs = Number(process.hrtime.bigint() - t1) / 1e3 / 1000;

    const checks: [string, boolean][] = [
      [`read ${ITEMS} scores and ${SAMPLE} sampled labels`, rows === ITEMS + 2 * SAMPLE],
      ['estimate over every scored item, sample complete', s.n_labelled + s.n_unlabelled === ITEMS && s.sample.completed === SAMPLE && s.sample.missing === 0],
      ['corrected interval and bias regression computed', s.corrected.ci95 !== null && (all.bias?.rows.length ?? 0) === 3],
      ['both systems estimated and compared', last!.all.size === 3 && last!.comparison !== null],
      ['queue query: each branch a range of an index (sampled rows: response_sampled_queue), no sort',
        plan.some((d) => /SEARCH r USING (COVERING )?INDEX response_sampled_queue \(dataset_id=\? AND n_submitted<\?\)/.test(d))
        && plan.some((d) => /SEARCH r USING (COVERING )?INDEX response_queue \(dataset_id=\? AND queue_rank=\? AND n_submitted<\?\)/.test(d))
        && !plan.some((d) => d.includes('TEMP B-TREE'))],
      ['queue hands out the first sampled item first', next.get(params)?.id === firstSampled],
      ['queue hands out an unsampled item once the sample is labelled', !new Set(q.items.all(S.sampleId).map((it) => it.response_id)).has(next.get(done)?.id ?? -1)],
    ];
    const ok = printChecks(checks);
    const fmtFig = (f: { estimate: number | null; ci95: [number, number] | null }) => `${f.estimate?.toFixed(4) ?? '—'} [${f.ci95?.map((v) => v.toFixed(4)).join(', ') ?? '—'}]`;
    console.log('\n' + table([
      ['items (judge scores) / sampled gold labels', `${ITEMS} / ${SAMPLE}; ${REPEAT} runs per side, median shown`],
      ['read: the rows the estimate reads', `${readMs.toFixed(1)} ms (CPU ${median(reads_cpu).toFixed(1)} ms)`],
      ['estimate: 3 scopes, planner, bias, comparison', `${estimateMs.toFixed(1)} ms (CPU ${median(ests_cpu).toFixed(1)} ms)`],
      ['estimate / read', `${ratio.toFixed(2)}× (target ≤ ${TARGET_RATIO}×; CPU ${cpuRatio.toFixed(2)}×)`],
      ['judge only / experts only / corrected', `${fmtFig(s.judge_only)} / ${fmtFig(s.gold_only)} / ${fmtFig(s.corrected)}`],
      ['λ, effective labels, labels for ±0.05', `${s.lambda?.toFixed(3)}, ${s.effective_labels?.toFixed(0)}, ${s.labels_needed.corrected} (experts alone ${s.labels_needed.gold_only})`],
      ['queue next-item query, sample first', `${nextUs.toFixed(1)} µs per call; ${doneUs.toFixed(1)} µs when the whole sample is labelled (stepped over)`],
      ['queue plan', plan.join(' | ')],
    ]));
    const within = ratio <= TARGET_RATIO;
    const summary = `estimate: ${estimateMs.toFixed(0)} ms over ${ITEMS} scores and ${SAMPLE} gold labels = ${ratio.toFixed(2)}× the ${readMs.toFixed(0)} ms read (target ≤ ${TARGET_RATIO}×)`;
    console.log(`\n${summary} ${within ? 'within target' : 'MISSES TARGET'}`);
    const round = (v: number, d = 2) => Number(v.toFixed(d));
    writeResult('estimate.json', {
      bench: 'estimate', summary, withinTarget: within, checksPassed: ok, items: ITEMS, sample: SAMPLE, repeat: REPEAT, targetRatio: TARGET_RATIO,
      readMs: round(readMs), estimateMs: round(estimateMs), ratio: round(ratio), cpuRatio: round(cpuRatio),
      runs: { readMs: reads.map((v) => round(v)), estimateMs: ests.map((v) => round(v)) },
      figures: { judge_only: s.judge_only, gold_only: s.gold_only, corrected: s.corrected, lambda: s.lambda, effective_labels: s.effective_labels, labels_needed: s.labels_needed },
      queue: { nextUs: round(nextUs, 1), sampleLabelledUs: round(doneUs, 1), plan },
      checks: Object.fromEntries(checks),
      ...runInfo(),
    });
    failOnChecks('estimate', ok);
    S.db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await main();
