// Per-context calibration keeps the gold value of every context, each run's rows, the report and the
// comparison of two runs, and follows the label service's writes (calibration/context-service.ts).
// After any sequence of submissions (context values flipped, left out), drafts, hand-outs and
// adjudications of context slots, every kept value must equal a full recompute with nothing kept; the
// gold values and rows must be updated in place, the report and the comparison kept as they are when the
// write changed no gold value of a context and computed again when it did; changes made past the service
// (sqlite3, another process) must make the next read recompute.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestContext, type TestContext } from '../helpers.ts';
import { createRng } from '../../server/stats/index.ts';
import { seenVersion, valueKey } from '../../server/labels/service.ts';
import { derivedCache } from '../../server/db/derived-cache.ts';
import { contextCalibrationService } from '../../server/calibration/context-service.ts';
import { exampleItems } from '../../server/calibration/service.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import type { CurrentUser } from '../../server/http/context.ts';
import type { RunRow } from '../../server/judge/run-queries.ts';

const ITEMS = 14;
const CONTEXTS = 3;
const RESAMPLES = 40;

let env: TestContext;
let ds: number;
let criteria: Criterion[];
let relevant: Criterion;
let experts: CurrentUser[];
let responses: number[];
let runs: RunRow[];

beforeEach(async () => {
  env = openTestContext('goldset-context-follow-');
  const { ctx, dir, db } = env;
  ds = ctx.datasets.create(null, { name: 'hr', description: '', language: 'zh', domain: '' }).id;
  const first = (await ctx.users.createUser(null, { email: 'li@example.com', name: 'Li', role: 'expert', password: 'a long enough password' })).id;
  const f = path.join(dir, 'items.jsonl');
  fs.writeFileSync(f, Array.from({ length: ITEMS }, (_, i) => JSON.stringify({ user_input: `问题 ${i}`, reference: `答案 ${i}`, response: `回答 ${i}`,
    retrieved_contexts: Array.from({ length: CONTEXTS }, (_, k) => `段落 ${i}-${k}`), system: i % 2 ? 'v1' : 'v2',
    'human.correct': i % 2 ? 'yes' : 'no', 'human.relevant': Array.from({ length: CONTEXTS }, (_, k) => (i + k) % 3 === 0 ? 1 : 0) })).join('\n'));
  const r = await ctx.imports.importFile(null, ds, f, { format: 'jsonl', annotatorId: first });
  if (!r.ok) throw new Error(JSON.stringify(r));
  criteria = ctx.criteria.forDataset(ds);
  relevant = criteria.find((c) => c.target === 'context')!;
  const others = [];
  for (const who of ['wang', 'zhao']) others.push((await ctx.users.createUser(null, { email: `${who}@example.com`, name: who, role: 'expert', password: 'a long enough password' })).id);
  experts = [first, ...others].map((id) => ctx.users.queries.byId(id)!);
  responses = db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(ds) as number[];
  // Two context_precision runs with a verdict per context; some answers failed or were not scored.
  const rng = createRng(7);
  for (const name of ['verify-a', 'verify-b']) {
    const runId = Number(db.prepare(`INSERT INTO run (dataset_id, name, metric_key, source, status, n_total)
      VALUES (?, ?, 'context_precision', 'goldset', 'done', ?)`).run(ds, name, ITEMS).lastInsertRowid);
    for (const rid of responses) {
      const draw = rng();
      if (draw < 0.1) continue;
      const verdicts = Array.from({ length: CONTEXTS }, () => (rng() < 0.5 ? 1 : 0));
      db.prepare('INSERT INTO score (run_id, response_id, status, value, trace) VALUES (?, ?, ?, ?, ?)').run(runId, rid, draw < 0.2 ? 'error' : 'ok',
        draw < 0.2 ? null : verdicts.reduce((s: number, v) => s + v, 0) / CONTEXTS, JSON.stringify({ steps: [], values: { verdicts } }));
    }
  }
  runs = ctx.runner.queries.forDataset(ds).filter((x) => x.metric_key === 'context_precision').sort((a, b) => a.id - b.id);
});
afterEach(() => env.close());

const version = () => env.db.prepare('SELECT data_version FROM dataset WHERE id = ?').pluck().get(ds) as number;

/** Every kept value the per-context pages read, from a service with the given cache (a fresh one: a full recompute). */
function read(service = env.ctx.contextCalibration) {
  const holdoutSeed = env.ctx.datasets.get(ds)!.holdout_seed;
  const [a, b] = runs as [RunRow, RunRow];
  const input = (run: RunRow, part: 'all' | 'calibration') => ({ criterion: relevant, run, part, holdoutSeed });
  return {
    gold: service.goldFor(relevant),
    all: service.responses(input(a, 'all')),
    calibration: service.responses(input(a, 'calibration')),
    report: service.report({ ...input(a, 'all'), resamples: RESAMPLES }),
    compare: service.compare(relevant, a, b, holdoutSeed, new Set([...exampleItems(a), ...exampleItems(b)])),
  };
}

/** What a read gives as plain data, to compare a kept read with a full recompute. */
function plain(v: ReturnType<typeof read>) {
  return {
    gold: [...v.gold].sort((x, y) => x[0] - y[0]), all: v.all.map((r) => ({ ...r, gold: [...r.gold] })),
    calibration: v.calibration.map((r) => ({ ...r, gold: [...r.gold] })), report: v.report.report, compare: v.compare,
  };
}

const keys = () => {
  const holdoutSeed = env.ctx.datasets.get(ds)!.holdout_seed;
  const [a, b] = runs as [RunRow, RunRow];
  return {
    gold: `context-gold:${relevant.id}`, all: `context-responses:${relevant.id}:${a.id}:all:${holdoutSeed}`,
    calibration: `context-responses:${relevant.id}:${a.id}:calibration:${holdoutSeed}`,
    report: `context-report:${relevant.id}:${a.id}:all:${holdoutSeed}:${RESAMPLES}`, compare: `context-compare:${relevant.id}:${a.id}:${b.id}:${holdoutSeed}`,
  };
};

describe('per-context calibration kept across label changes', () => {
  it('equals a full recompute after every change; gold values and rows updated in place, the report kept unless a gold value changed', () => {
    const { ctx, db } = env;
    const rng = createRng(16);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
    const k = keys();
    let inPlace = 0;
    let reportKept = 0;
    let reportRecomputed = 0;
    for (let step = 0; step < 120; step++) {
      const kept = read();
      const before = version();
      const goldBefore = JSON.stringify(kept.all.map((r) => [...r.gold]));
      const expert = pick(experts);
      const rid = pick(responses);
      const target = { id: rid, dataset_id: ds };
      const values = new Map([[valueKey(criteria.find((c) => c.name === 'correct')!.id, -1), pick(['1', '0'])]]);
      // Each context's value flipped at random, or left out (a context without a gold value).
      for (let i = 0; i < CONTEXTS; i++) if (rng() < 0.85) values.set(valueKey(relevant.id, i), pick(['1', '0']));
      const input = { values, rationale: '', corrected_answer: '' };
      const op = rng();
      let tracked = true;
      let what: string;
      if (op < 0.4) {
        what = `submit ${expert.email} #${rid}`;
        ctx.labels.submit(expert, target, criteria, input, seenVersion(ctx.labels.mine(rid, expert.id)?.annotation));
      } else if (op < 0.5) {
        what = `draft ${expert.email} #${rid}`;
        ctx.labels.saveDraft(expert, target, criteria, input);
      } else if (op < 0.6) {
        what = `submit and next ${expert.email} #${rid}`;
        ctx.labels.submitAndHandOut(expert, target, criteria, input, seenVersion(ctx.labels.mine(rid, expert.id)?.annotation), 3);
      } else if (op < 0.65) {
        what = `hand out to ${expert.email}`;
        ctx.labels.handOut(ds, expert.id, 3);
      } else if (op < 0.8) {
        const index = Math.floor(rng() * CONTEXTS);
        what = `adjudicate #${rid} context ${index}`;
        const existing = db.prepare('SELECT version FROM adjudication WHERE response_id = ? AND criterion_id = ? AND context_index = ?').pluck()
          .get(rid, relevant.id, index) as number | undefined;
        ctx.labels.adjudicate(experts[0]!.id, relevant, rid, index, pick(['1', '0']), 'decided', existing ?? 0);
      } else if (op < 0.9) {
        // Past the service, as sqlite3 or another process would: a context value flipped.
        what = `label changed past the service #${rid}`;
        tracked = false;
        db.prepare(`UPDATE label SET value = CASE value WHEN '1' THEN '0' ELSE '1' END WHERE criterion_id = ? AND context_index = 0
          AND annotation_id IN (SELECT id FROM annotation WHERE response_id = ?)`).run(relevant.id, rid);
      } else {
        what = `adjudications deleted #${rid}`;
        tracked = false;
        db.prepare('DELETE FROM adjudication WHERE response_id = ?').run(rid);
      }
      const now = version();
      const peek = <T extends object>(key: string) => ctx.derived.peek<T>(ds, key, now);
      if (tracked) {
        expect(peek(k.gold), `${what}: gold values updated in place`).toBe(kept.gold);
        expect(peek(k.all), `${what}: rows updated in place`).toBe(kept.all);
        expect(peek(k.calibration), `${what}: rows of a part updated in place`).toBe(kept.calibration);
        inPlace++;
        const goldNow = read(contextCalibrationService(db, derivedCache(db))).all.map((r) => [...r.gold]);
        if (JSON.stringify(goldNow) === goldBefore) {
          expect(peek(k.report), `${what}: no gold value changed, the report kept`).toBe(kept.report);
          expect(peek<{ cmp: object }>(k.compare)?.cmp, `${what}: no gold value changed, the comparison kept`).toBe(kept.compare);
          reportKept++;
        } else {
          expect(peek(k.report), `${what}: a gold value changed, the report is not current`).toBeUndefined();
          expect(peek(k.compare), `${what}: a gold value changed, the comparison is not current`).toBeUndefined();
          reportRecomputed++;
        }
      } else if (now !== before) {
        for (const key of Object.values(k)) expect(peek(key), `${what}: a change past the service leaves nothing kept as current (${key})`).toBeUndefined();
      }
      expect(plain(read()), what).toEqual(plain(read(contextCalibrationService(db, derivedCache(db)))));
    }
    expect(inPlace).toBeGreaterThan(70);
    // Both ways of following the report were taken: kept when no gold value changed, computed again when one did.
    expect(reportKept).toBeGreaterThan(5);
    expect(reportRecomputed).toBeGreaterThan(5);
  });
});
