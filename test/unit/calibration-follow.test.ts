// The response-level analysis values kept per dataset — gold values, the calibration pairs, the
// true-score estimates, the review queue's comparisons — follow the label service's writes (calibration/service.ts, estimate/service.ts:
// derived-cache.ts follow), and the report is recomputed from the followed pairs. After any sequence of
// submissions, changed labels, drafts, hand-outs and adjudications each must equal what a fresh cache
// computes from the database, and the service's writes must leave them kept at the new version (followed,
// not dropped); changes made past the service (sqlite3, another process) must make the next read recompute.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestContext, type TestContext } from '../helpers.ts';
import { createRng } from '../../server/stats/index.ts';
import { seenVersion, valueKey } from '../../server/labels/service.ts';
import { randomLabelWrite } from './random-label-writes.ts';
import { derivedCache } from '../../server/db/derived-cache.ts';
import { calibrationService, type CalibrationInput, type Part } from '../../server/calibration/service.ts';
import { estimateService } from '../../server/estimate/service.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import type { CurrentUser } from '../../server/http/context.ts';
import type { RunRow } from '../../server/judge/run-queries.ts';
import { buildQueue, compareAll, keptComparison, queueFrom, VERDICTS, type QueueFilters } from '../../server/review/queue.ts';

let env: TestContext;
let ds: number;
let criteria: Criterion[];
let experts: CurrentUser[];
let responses: number[];
let run: RunRow;
let seed: number;

const ITEMS = 30;

beforeEach(async () => {
  env = openTestContext('goldset-calibration-follow-');
  const { ctx, dir, db } = env;
  ds = ctx.datasets.create(null, { name: 'hr', description: '', language: 'zh', domain: '' }).id;
  const first = (await ctx.users.createUser(null, { email: 'li@example.com', name: 'Li', role: 'expert', password: 'a long enough password' })).id;
  const f = path.join(dir, 'items.jsonl');
  // Scores with ties (five distinct values), two systems, one expert's binary labels and a judge run.
  fs.writeFileSync(f, Array.from({ length: ITEMS }, (_, i) => JSON.stringify({ user_input: `问题 ${i % 12}`, reference: `答案 ${i}`, response: `回答 ${i}`,
    system: i % 2 ? 'v1' : 'v2', faithfulness: (i % 5) / 4, 'human.correct': i % 3 ? 'yes' : 'no' })).join('\n'));
  const r = await ctx.imports.importFile(null, ds, f, { format: 'jsonl', annotatorId: first, runName: 'judge-v1' });
  if (!r.ok) throw new Error(JSON.stringify(r));
  // A numeric criterion: its gold is the mean of the experts' values, added in annotation order.
  ctx.criteria.create(null, ds, { name: 'score', kind: 'numeric', target: 'response', scale_min: null, scale_max: null, guidelines: '', options: [] });
  criteria = ctx.criteria.forDataset(ds);
  const others = [];
  for (const who of ['wang', 'zhao']) others.push((await ctx.users.createUser(null, { email: `${who}@example.com`, name: who, role: 'expert', password: 'a long enough password' })).id);
  experts = [first, ...others].map((id) => ctx.users.queries.byId(id)!);
  responses = db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(ds) as number[];
  run = ctx.runner.queries.forDataset(ds)[0]!;
  seed = ctx.datasets.get(ds)!.holdout_seed;
  // An estimation sample of a third of the items: writes to them change the true-score estimate, others do not.
  ctx.estimates.draw(null, ds, { system: null, size: ITEMS / 3, seed: 5, systems: ['v1', 'v2'] });
});
afterEach(() => env.close());

const version = () => env.db.prepare('SELECT data_version FROM dataset WHERE id = ?').pluck().get(ds) as number;

/** What a cache with nothing kept computes from the database now. */
function fresh() {
  const derived = derivedCache(env.db);
  return { calibration: calibrationService(env.db, env.ctx.audit, derived), estimates: estimateService(env.db, env.ctx.audit, derived) };
}

const PARTS: Part[] = ['all', 'calibration', 'held_out'];
const inputOf = (criterion: Criterion, part: Part): CalibrationInput & { threshold: number } => ({ criterion, run, part, threshold: 0.5, holdoutSeed: seed });
const QUEUE_FILTERS: QueueFilters[] = [
  { verdict: 'any', system: '', tagged: null, inPart: null },
  { verdict: 'none', system: 'v1', tagged: null, inPart: (id) => id % 3 !== 0 },
];
const sorted = (m: ReadonlyMap<number, string>) => [...m].sort((a, b) => a[0] - b[0]);

describe('calibration values kept across label changes', () => {
  it('equal a fresh computation after every change, followed by the label service', () => {
    const { ctx, db } = env;
    const rng = createRng(16);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
    const sampled = new Set(db.prepare('SELECT response_id FROM estimation_item').pluck().all() as number[]);
    let followed = 0, goldChanged = 0, sampledWrites = 0, estimateChanged = 0, reportKept = 0;
    for (let step = 0; step < 120; step++) {
      // The values of one criterion and part at a time (the cache keeps 8), read before the write so they are kept.
      const criterion = pick(criteria);
      const part = pick(PARTS);
      const keys = [`gold:${criterion.id}`, `pairs:${criterion.id}:${run.id}:${part}:${seed}`, `true-score:${criterion.id}:${run.id}:${criterion.kind === 'binary' ? 0.5 : ''}:`,
        `review-compared:${criterion.id}:${run.id}:0.5:${seed}`];
      const all = inputOf(criterion, 'all');
      const goldBefore = ctx.calibration.goldFor(criterion);
      const goldEntries = sorted(goldBefore);
      const pairsBefore = ctx.calibration.pairs(inputOf(criterion, part));
      const reportInput = { ...inputOf(criterion, part), resamples: 50 };
      const reportBefore = ctx.calibration.report(reportInput);
      const estimatesBefore = ctx.estimates.estimates({ criterion, run, threshold: 0.5 });
      keptComparison(ctx, all, ctx.calibration.pairs(all));
      const before = version();
      let write: { what: string; rid: number; tracked: boolean };
      if (rng() < 0.05) {
        // A reviewer's verdict: read by every view of the queue, kept nowhere (it moves no data version).
        const rid = pick(responses);
        ctx.calibration.setVerdict(experts[0]!.id, { dataset_id: ds, run_id: run.id, response_id: rid, criterion_id: criterion.id, verdict: pick(VERDICTS), note: '' },
          ctx.calibration.verdict(run.id, rid, criterion.id)?.version ?? 0);
        write = { what: `verdict on #${rid}`, rid, tracked: true };
      } else {
        write = randomLabelWrite({ ctx, ds, criteria, experts, responses, values: (c) => (c.kind === 'binary' ? ['1', '0'] : ['0.1', '0.2', '0.7', '1']) }, rng);
      }
      const { what, rid, tracked } = write;
      for (const key of keys) {
        const now = ctx.derived.peek(ds, key, version());
        if (tracked) expect(now, `${what}: ${key} followed the write`).toBeDefined();
        else if (version() !== before) expect(now, `${what}: a change past the service leaves ${key} not current`).toBeUndefined();
      }
      if (tracked) {
        followed++;
        if (sampled.has(rid) && !what.startsWith('hand out')) sampledWrites++;
        // The gold map is updated in place, one level down.
        expect(ctx.derived.peek(ds, keys[0]!, version()), what).toBe(goldBefore);
        // The report stays kept exactly when no gold value among its pairs changed.
        const pairsKept = ctx.calibration.pairs(inputOf(criterion, part)) === pairsBefore;
        expect(ctx.calibration.report(reportInput) === reportBefore, `${what}: report kept iff its pairs are`).toBe(pairsKept);
        if (pairsKept && !what.startsWith('hand out')) reportKept++;
      }
      const full = fresh();
      const gold = ctx.calibration.goldFor(criterion);
      if (JSON.stringify(sorted(gold)) !== JSON.stringify(goldEntries)) goldChanged++;
      expect(sorted(gold), `${what}: gold of ${criterion.name}`).toEqual(sorted(full.calibration.goldFor(criterion)));
      expect(ctx.calibration.pairs(inputOf(criterion, part)), `${what}: pairs ${part}`).toEqual(full.calibration.pairs(inputOf(criterion, part)));
      const estimates = ctx.estimates.estimates({ criterion, run, threshold: 0.5 });
      expect(estimates, `${what}: true score`).toEqual(full.estimates.estimates({ criterion, run, threshold: 0.5 }));
      if (JSON.stringify([...estimates]) !== JSON.stringify([...estimatesBefore])) estimateChanged++;
      // The review queue from the followed comparisons and pairs is the queue built from fresh pairs.
      const comparison = keptComparison(ctx, all, ctx.calibration.pairs(all));
      expect(comparison.disagreeing, `${what}: disagreeing items`).toEqual(compareAll(criterion, full.calibration.pairs(all), 0.5).disagreeing);
      const verdicts = ctx.calibration.verdicts(run.id, criterion.id);
      for (const filters of QUEUE_FILTERS) {
        expect(queueFrom(comparison, ctx.calibration.pairs(all), verdicts, filters), `${what}: review queue`)
          .toEqual(buildQueue(criterion, full.calibration.pairs(all), verdicts, 0.5, filters));
      }
      // The report, recomputed from the followed pairs, is the report of a full recompute.
      expect(ctx.calibration.report(reportInput).report, `${what}: report`).toEqual(full.calibration.report(reportInput).report);
    }
    expect(reportKept).toBeGreaterThan(10);
    expect(followed).toBeGreaterThan(80);
    expect(goldChanged).toBeGreaterThan(20);
    expect(sampledWrites).toBeGreaterThan(5);
    expect(estimateChanged).toBeGreaterThan(3);
  });

  it('are recomputed after a change past the service, and after an outer transaction rolled back', () => {
    const { ctx, db } = env;
    const [li, wang] = experts;
    const rid = responses[0]!;
    const binary = criteria[0]!;
    const all = inputOf(binary, 'all');
    ctx.labels.submit(wang!, { id: rid, dataset_id: ds }, [binary], { values: new Map([[valueKey(binary.id, -1), '1']]), rationale: '', corrected_answer: '' }, 0);
    const pairs = ctx.calibration.pairs(all);
    expect(pairs).toEqual(fresh().calibration.pairs(all));
    // sqlite3 changes a label: no write of the service names it, the version moves, the next read recomputes.
    db.prepare(`UPDATE label SET value = CASE value WHEN '1' THEN '0' ELSE '1' END WHERE criterion_id = ? AND annotation_id IN
      (SELECT id FROM annotation WHERE response_id = ?)`).run(binary.id, responses[1]!);
    expect(ctx.derived.peek(ds, `pairs:${binary.id}:${run.id}:all:${seed}`, version())).toBeUndefined();
    expect(ctx.calibration.pairs(all)).not.toBe(pairs);
    expect(ctx.calibration.pairs(all)).toEqual(fresh().calibration.pairs(all));
    // A write of the service inside an outer transaction that rolls back leaves nothing kept as current.
    const kept = ctx.calibration.pairs(all);
    const gold = ctx.calibration.goldFor(binary);
    const goldEntries = sorted(gold);
    expect(() => db.transaction(() => {
      ctx.labels.submit(li!, { id: responses[2]!, dataset_id: ds }, [binary], { values: new Map([[valueKey(binary.id, -1), '1']]), rationale: '', corrected_answer: '' },
        seenVersion(ctx.labels.mine(responses[2]!, li!.id)?.annotation));
      throw new Error('rolled back');
    })()).toThrow('rolled back');
    expect(ctx.calibration.pairs(all)).toBe(kept);
    expect(sorted(ctx.calibration.goldFor(binary))).toEqual(goldEntries);
    expect(ctx.calibration.pairs(all)).toEqual(fresh().calibration.pairs(all));
  });
});
