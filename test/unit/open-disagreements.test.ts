// The open disagreements every page shows are kept and updated from the changed item by the label
// service's own writes (labels/open-disagreements.ts). After any sequence of submissions, changed
// labels, drafts, hand-outs, adjudications and deletions, the kept figures must equal a full
// recount of the dataset; the service's writes must update them in place (no recount), and changes
// made past the service (sqlite3, another process) must make the next read recount. A first label of
// an item is followed without counting its slots (the save counted the item's submitted annotations):
// that must hold too where a change past the service left the queue's running count behind.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestContext, type TestContext } from '../helpers.ts';
import { createRng } from '../../server/stats/index.ts';
import { seenVersion, valueKey } from '../../server/labels/service.ts';
import { randomLabelWrite } from './random-label-writes.ts';
import { OPEN_SLOTS_OF_RESPONSE } from '../../server/labels/open-disagreements.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import type { CurrentUser } from '../../server/http/context.ts';

let env: TestContext;
let ds: number;
let criteria: Criterion[];
let experts: CurrentUser[];
let responses: number[];

beforeEach(async () => {
  env = openTestContext('goldset-open-disagreements-');
  const { ctx, dir, db } = env;
  ds = ctx.datasets.create(null, { name: 'hr', description: '', language: 'zh', domain: '' }).id;
  const first = (await ctx.users.createUser(null, { email: 'li@example.com', name: 'Li', role: 'expert', password: 'a long enough password' })).id;
  const f = path.join(dir, 'items.jsonl');
  fs.writeFileSync(f, Array.from({ length: 12 }, (_, i) => JSON.stringify({ user_input: `问题 ${i}`, reference: `答案 ${i}`, response: `回答 ${i}`,
    'human.correct': i % 2 ? 'yes' : 'no' })).join('\n'));
  const r = await ctx.imports.importFile(null, ds, f, { format: 'jsonl', annotatorId: first });
  if (!r.ok) throw new Error(JSON.stringify(r));
  ctx.criteria.create(null, ds, { name: 'tone', kind: 'categorical', target: 'response', scale_min: null, scale_max: null, guidelines: '',
    options: [{ value: 'formal', label: 'formal' }, { value: 'casual', label: 'casual' }] });
  criteria = ctx.criteria.forDataset(ds);
  const others = [];
  for (const who of ['wang', 'zhao']) others.push((await ctx.users.createUser(null, { email: `${who}@example.com`, name: who, role: 'expert', password: 'a long enough password' })).id);
  experts = [first, ...others].map((id) => ctx.users.queries.byId(id)!);
  responses = db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(ds) as number[];
});
afterEach(() => env.close());

/** A full recount: the number of open slots and the responses holding them. */
function recount() {
  const rows = env.ctx.labels.disagreements(ds, -1, 0);
  return { count: env.ctx.labels.disagreementCount(ds), ids: [...new Set(rows.map((d) => d.response_id))].sort((a, b) => a - b) };
}

const version = () => env.db.prepare('SELECT data_version FROM dataset WHERE id = ?').pluck().get(ds) as number;

/** `n` items nobody has labelled (the imported ones all carry Li's label), as most items are during active labelling. */
function addUnlabelled(n: number): number[] {
  const sample = env.db.prepare('INSERT INTO sample (dataset_id, question_key, question) VALUES (?, ?, ?)');
  const response = env.db.prepare(`INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, metadata, content_hash)
    VALUES (?, ?, 'rag', ?, '[]', '{}', ?)`);
  return Array.from({ length: n }, (_v, i) =>
    Number(response.run(Number(sample.run(ds, `fresh-${i}`, `新问题 ${i}`).lastInsertRowid), ds, `新回答 ${i}`, `fresh-hash-${i}`).lastInsertRowid));
}

/** How many times `fn` counts one response's open slots (the follow's query). */
function slotCounts(fn: () => void): number {
  const proto = Object.getPrototypeOf(env.db.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  const get = proto.get!;
  let n = 0;
  proto.get = function (this: { source: string }, ...a: unknown[]) { if (this.source === OPEN_SLOTS_OF_RESPONSE) n++; return get.apply(this, a); };
  try { fn(); } finally { proto.get = get; }
  return n;
}

/** The kept open disagreements equal a full recount, and so does every page read from them (returns the recount). */
function expectRecount(what: string): { count: number } {
  const full = recount();
  // Pages read from the kept open slots equal the query over the whole dataset, page by page.
  for (const limit of [1, 3, 7]) {
    for (let offset = 0; offset <= full.count; offset += limit) {
      expect(env.ctx.labels.disagreementsPage(ds, limit, offset), `${what}: page ${limit} at ${offset}`).toEqual(env.ctx.labels.disagreements(ds, limit, offset));
    }
  }
  const after = env.ctx.labels.openDisagreements(ds);
  expect(after.count, what).toBe(full.count);
  expect([...after.ids()], what).toEqual(full.ids);
  return full;
}

describe('open disagreements kept across label changes', () => {
  it('equal a full recount after every change, updated in place by the label service', () => {
    const { ctx, db } = env;
    const rng = createRng(16);
    let inPlace = 0;
    let most = 0;
    let closed = 0;
    for (let step = 0; step < 150; step++) {
      const kept = ctx.labels.openDisagreements(ds);
      const before = version();
      const { what, tracked } = randomLabelWrite({ ctx, ds, criteria, experts, responses, values: (c) => (c.kind === 'binary' ? ['1', '0'] : ['formal', 'casual']) }, rng);
      const now = ctx.derived.peek(ds, 'disagreements:open', version());
      if (tracked) {
        expect(now, `${what}: kept value updated in place`).toBe(kept);
        inPlace++;
      } else if (version() !== before) {
        expect(now, `${what}: a change past the service leaves nothing kept as current`).toBeUndefined();
      }
      const full = expectRecount(what);
      if (full.count < kept.count) closed++;
      most = Math.max(most, full.count);
    }
    expect(inPlace).toBeGreaterThan(100);
    // The sequence reached the interesting states: several disagreements open at once, and some closed again.
    expect(most).toBeGreaterThan(3);
    expect(closed).toBeGreaterThan(1);
  });

  it('follow the first label of an item without counting its slots, and still equal a full recount', () => {
    const { ctx, db } = env;
    const fresh = addUnlabelled(24);
    const submittedOf = db.prepare("SELECT count(*) FROM annotation WHERE response_id = ? AND state = 'submitted'").pluck();
    const rng = createRng(17);
    let firsts = 0;
    let most = 0;
    for (let step = 0; step < 150; step++) {
      ctx.labels.openDisagreements(ds); // kept (as every page keeps it), so that the write follows it
      const before = new Map(fresh.map((id) => [id, submittedOf.get(id) as number]));
      let write!: ReturnType<typeof randomLabelWrite>;
      const counted = slotCounts(() => {
        write = randomLabelWrite({ ctx, ds, criteria, experts, responses: fresh, values: (c) => (c.kind === 'binary' ? ['1', '0'] : ['formal', 'casual']) }, rng);
      });
      // A submission to an item with no submitted annotation: the save counted one, so it has no open slot.
      if (write.what.startsWith('submit') && before.get(write.rid) === 0) {
        expect(counted, write.what).toBe(0);
        firsts++;
      }
      most = Math.max(most, expectRecount(write.what).count);
    }
    expect(firsts).toBeGreaterThan(10);
    expect(most).toBeGreaterThan(2);
  });

  it('count a first submission\'s annotations, not the running count a change past the service can leave behind', () => {
    const { ctx, db } = env;
    const [rid] = addUnlabelled(1);
    const [, wang, zhao] = experts;
    const correct = criteria.find((c) => c.kind === 'binary')!;
    // Wang's label written past the service (sqlite3, another tool): the item's running count stays at 0.
    const a = Number(db.prepare("INSERT INTO annotation (response_id, dataset_id, annotator_id, state, submitted_at) VALUES (?, ?, ?, 'submitted', '2026-01-01T00:00:00.000Z')")
      .run(rid, ds, wang!.id).lastInsertRowid);
    db.prepare("INSERT INTO label (annotation_id, criterion_id, value) VALUES (?, ?, '1')").run(a, correct.id);
    expect(ctx.labels.openDisagreements(ds).count).toBe(recount().count); // recounted: the version moved
    const kept = ctx.labels.openDisagreements(ds);
    // Zhao's is the first submission the running count sees, but the second of the item: the two differ.
    ctx.labels.submit(zhao!, { id: rid!, dataset_id: ds }, [correct], { values: new Map([[valueKey(correct.id, -1), '0']]), rationale: '', corrected_answer: '' }, 0);
    expect(db.prepare('SELECT n_submitted FROM response WHERE id = ?').pluck().get(rid)).toBe(1);
    expect(ctx.derived.peek(ds, 'disagreements:open', version())).toBe(kept); // followed, not recounted
    expect(kept.ids()).toContain(rid);
    expectRecount('a second label the running count missed');
  });

  it('are recounted after a change that does not go through the service, and after an outer transaction rolled back', () => {
    const { ctx, db } = env;
    const [li, wang] = experts;
    const rid = responses[0]!;
    const values = new Map([[valueKey(criteria[0]!.id, -1), '1'], [valueKey(criteria[1]!.id, -1), 'formal']]);
    ctx.labels.submit(wang!, { id: rid, dataset_id: ds }, criteria, { values, rationale: '', corrected_answer: '' }, 0);
    expect(ctx.labels.openDisagreements(ds).count).toBe(recount().count);
    // Archiving a criterion changes which slots count: no label write names it, the version moves, the next read recounts.
    db.prepare('UPDATE criterion SET archived = 1 WHERE id = ?').run(criteria[1]!.id);
    expect(ctx.derived.peek(ds, 'disagreements:open', version())).toBeUndefined();
    expect(ctx.labels.openDisagreements(ds).count).toBe(recount().count);
    // A write of the service inside an outer transaction that rolls back leaves nothing kept as current.
    const kept = ctx.labels.openDisagreements(ds);
    expect(() => db.transaction(() => {
      ctx.labels.submit(li!, { id: responses[1]!, dataset_id: ds }, [criteria[0]!], { values: new Map([[valueKey(criteria[0]!.id, -1), '1']]), rationale: '', corrected_answer: '' },
        seenVersion(ctx.labels.mine(responses[1]!, li!.id)?.annotation));
      throw new Error('rolled back');
    })()).toThrow('rolled back');
    expect(ctx.labels.openDisagreements(ds)).toBe(kept);
    expect(ctx.labels.openDisagreements(ds).count).toBe(recount().count);
  });
});
