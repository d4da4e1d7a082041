// The analysis pages keep what they computed over a whole dataset until dataset.data_version moves
// (migration 0011). The cache must never answer with a value older than the data: every kind of
// change to what those pages read moves the version, cascades included, while other datasets' rows
// and reviewers' verdicts leave it alone. And a kept value cannot be changed by whoever reads it.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestContext, type TestContext } from '../helpers.ts';
import type { DB } from '../../server/db/connection.ts';
import type { AppContext } from '../../server/app-context.ts';
import { derivedCache } from '../../server/db/derived-cache.ts';

let dir: string;
let db: DB;
let ctx: AppContext;
let env: TestContext;
let hr: number, it_: number, expert: number, run: number, criterion: number, otherResponse: number;
const ids = (ds: number) => db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(ds) as number[];

beforeEach(async () => {
  ({ dir, db, ctx } = env = openTestContext('goldset-derived-'));
  hr = ctx.datasets.create(null, { name: 'hr', description: '', language: 'zh', domain: '' }).id;
  it_ = ctx.datasets.create(null, { name: 'it', description: '', language: 'en', domain: '' }).id;
  expert = (await ctx.users.createUser(null, { email: 'li@example.com', name: 'Li', role: 'expert', password: 'a long enough password' })).id;
  for (const ds of [hr, it_]) {
    const f = path.join(dir, `${ds}.jsonl`);
    fs.writeFileSync(f, [1, 2, 3].map((i) => JSON.stringify({ user_input: `问题 ${i}`, reference: `答案 ${i}`, response: `回答 ${i}`, faithfulness: i / 4, 'human.correct': i % 2 ? 'yes' : 'no' })).join('\n'));
    const r = await ctx.imports.importFile(null, ds, f, { format: 'jsonl', annotatorId: expert, runName: 'judge' });
    if (!r.ok) throw new Error(JSON.stringify(r));
  }
  run = db.prepare('SELECT id FROM run WHERE dataset_id = ?').pluck().get(hr) as number;
  criterion = db.prepare('SELECT id FROM criterion WHERE dataset_id = ?').pluck().get(hr) as number;
  otherResponse = ids(it_)[0]!;
});
afterEach(() => env.close());

/** Each change as the app (or a user with sqlite3) could make it; each must make the cache compute again. */
const CHANGES: [string, () => void][] = [
  ['a label changed', () => db.prepare("UPDATE label SET value = 'no' WHERE annotation_id = (SELECT min(id) FROM annotation WHERE dataset_id = ?)").run(hr)],
  ['an annotation submitted', () => db.prepare("UPDATE annotation SET rationale = 'checked' WHERE id = (SELECT min(id) FROM annotation WHERE dataset_id = ?)").run(hr)],
  ['an annotation with a label added', () => {
    const wang = Number(db.prepare("INSERT INTO user (email, role) VALUES ('wang@example.com', 'expert')").run().lastInsertRowid);
    const a = Number(db.prepare("INSERT INTO annotation (response_id, dataset_id, annotator_id, state) VALUES (?, ?, ?, 'draft')").run(ids(hr)[0], hr, wang).lastInsertRowid);
    db.prepare("INSERT INTO label (annotation_id, criterion_id, value) VALUES (?, ?, 'yes')").run(a, criterion);
  }],
  ['a label deleted', () => db.prepare('DELETE FROM label WHERE annotation_id = (SELECT max(id) FROM annotation WHERE dataset_id = ?)').run(hr)],
  ['an adjudication', () => db.prepare("INSERT INTO adjudication (response_id, criterion_id, value, reason, adjudicator_id) VALUES (?, ?, 'no', 'wrong', ?)").run(ids(hr)[1], criterion, expert)],
  ['an adjudication changed', () => db.prepare("UPDATE adjudication SET value = 'yes'").run()],
  ['an adjudication removed', () => db.prepare('DELETE FROM adjudication').run()],
  ['a score changed', () => db.prepare('UPDATE score SET value = 0.9 WHERE run_id = ? AND response_id = ?').run(run, ids(hr)[0])],
  ['a score deleted', () => db.prepare('DELETE FROM score WHERE run_id = ? AND response_id = ?').run(run, ids(hr)[0])],
  ['a criterion edited', () => db.prepare("UPDATE criterion SET guidelines = 'stricter' WHERE id = ?").run(criterion)],
  ['a response added', () => db.prepare("INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, metadata, content_hash) SELECT sample_id, dataset_id, 'v9', 'x', '[]', '{}', 'h9' FROM response WHERE id = ?").run(ids(hr)[0])],
  ['a labelled response deleted (cascade)', () => db.prepare('DELETE FROM response WHERE id = ?').run(ids(hr)[2])],
  ['an expert renamed', () => db.prepare("UPDATE user SET name = 'Li Wei' WHERE id = ?").run(expert)],
  ['an expert disabled', () => db.prepare('UPDATE user SET disabled = 1 WHERE id = ?').run(expert)],
  ['an estimation sample drawn', () => { ctx.estimates.draw(null, hr, { system: null, size: 1, seed: 1, systems: [''] }); }],
  ['an estimation sample extended', () => { ctx.estimates.extend(null, ctx.estimates.samples(hr)[0]!.id, { size: 1, seed: 2 }); }],
  ['an estimation sample deleted', () => db.prepare('DELETE FROM estimation_sample WHERE dataset_id = ?').run(hr)],
  ['the run deleted (its scores by cascade)', () => db.prepare('DELETE FROM run WHERE id = ?').run(run)],
];

describe('derived values per dataset', () => {
  it('are computed once while nothing changes, and again after each kind of change', () => {
    let computed = 0;
    const value = () => ctx.derived.get(hr, 'figures', () => ({ n: ++computed }));
    expect(value()).toEqual({ n: 1 });
    expect(value()).toEqual({ n: 1 });
    for (const [what, change] of CHANGES) {
      const before = computed;
      change();
      expect(value(), what).toEqual({ n: before + 1 });
      expect(value(), `${what}, asked again`).toEqual({ n: before + 1 });
    }
  });

  it('survive changes to another dataset, and reviewers\' verdicts on items and contexts (which nothing kept reads)', () => {
    let computed = 0;
    const value = () => ctx.derived.get(hr, 'figures', () => ({ n: ++computed }));
    value();
    db.prepare("INSERT INTO review_verdict (dataset_id, run_id, response_id, criterion_id, verdict, reviewer_id) VALUES (?, ?, ?, ?, 'judge_right', ?)").run(hr, run, ids(hr)[1], criterion, expert);
    db.prepare("INSERT INTO context_verdict (dataset_id, run_id, response_id, criterion_id, context_index, verdict, reviewer_id) VALUES (?, ?, ?, ?, 0, 'judge_right', ?)")
      .run(hr, run, ids(hr)[1], criterion, expert);
    db.prepare("UPDATE label SET value = 'no' WHERE annotation_id IN (SELECT id FROM annotation WHERE dataset_id = ?)").run(it_);
    db.prepare('UPDATE score SET value = 0 WHERE response_id = ?').run(otherResponse);
    db.prepare('DELETE FROM response WHERE id = ?').run(otherResponse);
    expect(value()).toEqual({ n: 1 });
  });

  it('are all dropped when a group commit fails (the writes they followed are gone)', () => {
    let computed = 0;
    const value = () => ctx.derived.get(hr, 'figures', () => ({ n: ++computed }));
    expect(value()).toEqual({ n: 1 });
    // A COMMIT that fails: a deferred foreign key it checks only then.
    db.exec('CREATE TABLE t (p INTEGER REFERENCES dataset (id) DEFERRABLE INITIALLY DEFERRED)');
    ctx.group.join();
    db.prepare('INSERT INTO t (p) VALUES (999999)').run();
    ctx.group.flush();
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
    expect(value()).toEqual({ n: 2 });
  });

  it('are frozen, and the least recently used is dropped beyond the capacity', () => {
    const cache = derivedCache(db, 2);
    const list = cache.get(hr, 'list', () => [{ id: 1 }, { id: 2 }]);
    expect(() => (list as { id: number }[]).sort((a, b) => b.id - a.id)).toThrow(TypeError);
    expect(() => { (list[0] as { id: number }).id = 5; }).toThrow(TypeError);
    let computed = 0;
    cache.get(hr, 'a', () => ({ n: ++computed }));
    cache.get(hr, 'b', () => ({ n: ++computed }));
    cache.get(hr, 'a', () => ({ n: ++computed })); // a is now the most recent
    cache.get(hr, 'c', () => ({ n: ++computed })); // drops b
    expect(computed).toBe(3);
    cache.get(hr, 'a', () => ({ n: ++computed }));
    expect(computed).toBe(3);
    cache.get(hr, 'b', () => ({ n: ++computed }));
    expect(computed).toBe(4);
  });

  it('make the second view of the calibration report read nothing but the version', () => {
    const runRow = ctx.runner.queries.byId(run)!;
    const input = { criterion: ctx.criteria.forDataset(hr)[0]!, run: runRow, part: 'all' as const, holdoutSeed: 1 };
    const first = ctx.calibration.report(input);
    const reads = new Map<string, number>();
    const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
    const originals = (['get', 'all', 'iterate'] as const).map((m) => [m, proto[m]!] as const);
    for (const [m, original] of originals) proto[m] = function (this: { source: string }, ...a: unknown[]) { reads.set(this.source, (reads.get(this.source) ?? 0) + 1); return original.apply(this, a); };
    try {
      expect(ctx.calibration.report(input)).toBe(first);
    } finally {
      for (const [m, original] of originals) proto[m] = original;
    }
    expect([...reads.keys()]).toEqual(['SELECT data_version FROM dataset WHERE id = ?']);
    db.prepare('UPDATE score SET value = 0.1 WHERE run_id = ?').run(run);
    expect(ctx.calibration.report(input)).not.toBe(first);
  });

  it('follow a tracked write only when told how, and only once it has committed', () => {
    const cache = derivedCache(db);
    const version = () => db.prepare('SELECT data_version FROM dataset WHERE id = ?').pluck().get(hr) as number;
    const bump = () => db.prepare("UPDATE label SET value = 'no' WHERE annotation_id = (SELECT min(id) FROM annotation WHERE dataset_id = ?)").run(hr);
    let computed = 0;
    const followed: number[][] = [];
    const counter = () => cache.get(hr, 'counter', () => ({ n: ++computed, seen: [] as number[] }), (v, touched) => {
      followed.push([...touched]);
      return () => { v.seen.push(...touched); return v; };
    });
    const plain = () => cache.get(hr, 'plain', () => ({ n: ++computed }));
    const write = (touch: number[], fail = false) => {
      try {
        db.transaction(() => {
          const w = cache.track(hr);
          for (const id of touch) w.touch(id);
          bump();
          const committed = w.done();
          if (fail) throw new Error('rolled back');
          return committed;
        })()();
      } catch (e) {
        if (!fail) throw e;
      }
    };
    const a = counter();
    const p = plain();
    expect(computed).toBe(2);
    // A write naming a response: the followed value is updated in place, the plain one computed again.
    write([ids(hr)[0]!]);
    expect(counter()).toBe(a);
    expect(a.seen).toEqual([ids(hr)[0]]);
    expect(cache.peek(hr, 'plain', version())).toBeUndefined();
    const p2 = plain();
    expect(p2).not.toBe(p);
    expect(computed).toBe(3);
    // A write naming no response (a hand-out's draft) moves every kept value along unchanged.
    write([]);
    expect(counter()).toBe(a);
    expect(plain()).toBe(p2);
    expect(computed).toBe(3);
    // A rolled-back write changes nothing and moves nothing: the kept values are still current.
    const before = followed.length;
    write([ids(hr)[1]!], true);
    expect(followed.length).toBe(before + 1); // read inside the transaction …
    expect(a.seen).toEqual([ids(hr)[0]]); // … but never applied
    expect(counter()).toBe(a);
    // A change past the tracker (sqlite3, an import) leaves a gap: both are computed again.
    bump();
    expect(counter()).not.toBe(a);
    expect(plain()).not.toBe(p2);
    // A write inside someone else's transaction follows nothing (the outer one may yet roll back).
    const b = counter();
    db.transaction(() => {
      const w = cache.track(hr, true);
      w.touch(ids(hr)[0]!);
      bump();
      w.done()();
    })();
    expect(counter()).not.toBe(b);
  });

  it('tell a follow what the write knew of a touched response, as its last touch of it told', () => {
    const cache = derivedCache(db);
    const [first, second, third] = ids(hr);
    let told: [readonly number[], [number, unknown][]] | null = null;
    cache.get(hr, 'told', () => ({}), (v, touched, known) => {
      told = [[...touched], [...known]];
      return () => v;
    });
    db.transaction(() => {
      const w = cache.track(hr);
      w.touch(first!, { submitted: 1 });
      w.touch(second!, { submitted: 1 });
      w.touch(second!); // written to again since: what was known of it may no longer hold
      w.touch(third!, { submitted: 2 });
      db.prepare("UPDATE label SET value = 'no' WHERE annotation_id = (SELECT min(id) FROM annotation WHERE dataset_id = ?)").run(hr);
      return w.done();
    })()();
    expect(told).toEqual([[first, second, third], [[first, { submitted: 1 }], [third, { submitted: 2 }]]]);
  });

  it('stay current through an autosaved draft of an item never submitted, which no kept value reads', async () => {
    const runRow = ctx.runner.queries.byId(run)!;
    const criteria = ctx.criteria.forDataset(hr);
    const input = { criterion: criteria[0]!, run: runRow, part: 'all' as const, holdoutSeed: 1 };
    const report = ctx.calibration.report(input);
    const wang = ctx.users.queries.byId((await ctx.users.createUser(null, { email: 'wang@example.com', name: 'Wang', role: 'expert', password: 'a long enough password' })).id)!;
    const target = { id: ids(hr)[0]!, dataset_id: hr };
    // The first item's gold is the importing expert's "yes": Wang says no.
    const values = new Map([[String(criteria[0]!.id), criteria[0]!.kind === 'binary' ? '0' : 'no']]);
    const before = db.prepare('SELECT data_version FROM dataset WHERE id = ?').pluck().get(hr);
    ctx.labels.saveDraft(wang, target, criteria, { values, rationale: '', corrected_answer: '' });
    expect(db.prepare('SELECT data_version FROM dataset WHERE id = ?').pluck().get(hr)).not.toBe(before);
    expect(ctx.calibration.report(input)).toBe(report);
    // Once submitted, the labels count: the gold value is gone (the experts disagree), the report is computed again.
    ctx.labels.submit(wang, target, criteria, { values, rationale: '', corrected_answer: '' }, 0);
    expect(ctx.calibration.report(input)).not.toBe(report);
  });
});
