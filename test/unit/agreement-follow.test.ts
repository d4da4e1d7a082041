// The agreement page's figures are kept and updated from the changed response by the label
// service's own writes (agreement/service.ts: KeptAgreement, followAgreement). After any sequence
// of submissions, changed labels, drafts, hand-outs and adjudications, for binary, categorical,
// ordinal, numeric and per-context criteria, the kept figures must equal a full computation over
// freshly read rows, to the last bit; the service's writes must update them in place (no
// recomputation), and changes made past the service (sqlite3, another process) must make the next
// read compute them again.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openTestContext, type TestContext } from '../helpers.ts';
import { createRng } from '../../server/stats/index.ts';
import { seenVersion, valueKey } from '../../server/labels/service.ts';
import { AGREEMENT_KEY, computeAgreement, keptAgreement } from '../../server/agreement/service.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import type { CurrentUser } from '../../server/http/context.ts';

const CONTEXTS = 3;

let env: TestContext;
let ds: number;
let criteria: Criterion[];
let experts: CurrentUser[];
let responses: { id: number; dataset_id: number }[];

beforeEach(async () => {
  env = openTestContext('goldset-agreement-follow-');
  const { ctx, db } = env;
  ds = ctx.datasets.create(null, { name: 'agreement', description: '', language: 'en', domain: '' }).id;
  const base = { target: 'response' as const, options: [], scale_min: null, scale_max: null, guidelines: '' };
  ctx.criteria.create(null, ds, { ...base, name: 'correct', kind: 'binary' });
  ctx.criteria.create(null, ds, { ...base, name: 'tone', kind: 'categorical',
    options: ['formal', 'casual', 'rude'].map((v) => ({ value: v, label: v })) });
  ctx.criteria.create(null, ds, { ...base, name: 'grade', kind: 'ordinal', scale_min: 1, scale_max: 5 });
  ctx.criteria.create(null, ds, { ...base, name: 'score', kind: 'numeric' });
  ctx.criteria.create(null, ds, { ...base, name: 'relevant', kind: 'binary', target: 'context' });
  criteria = ctx.criteria.queries.allForDataset(ds);
  // Responses by SQL, as the import writes them, each with retrieved contexts for the per-context criterion.
  const sample = db.prepare('INSERT INTO sample (dataset_id, question_key, question) VALUES (?, ?, ?)');
  const response = db.prepare(`INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, metadata, content_hash)
    VALUES (?, ?, 'rag', ?, ?, '{}', ?)`);
  responses = Array.from({ length: 10 }, (_v, i) => {
    const sampleId = Number(sample.run(ds, `q${i}`, `Question ${i}?`).lastInsertRowid);
    const contexts = JSON.stringify(Array.from({ length: CONTEXTS }, (_c, k) => `context ${k}`));
    return { id: Number(response.run(sampleId, ds, `Answer ${i}`, contexts, `hash-${i}`).lastInsertRowid), dataset_id: ds };
  });
  experts = [];
  // Created out of email order, so the pairwise list's order by email differs from the order by id.
  for (const who of ['zhao', 'li', 'wang', 'chen']) {
    const id = (await ctx.users.createUser(null, { email: `${who}@example.com`, name: who, role: 'expert', password: 'a long enough password' })).id;
    experts.push(ctx.users.queries.byId(id)!);
  }
});
afterEach(() => env.close());

const version = () => env.db.prepare('SELECT data_version FROM dataset WHERE id = ?').pluck().get(ds) as number;

/** Every criterion's figures computed afresh from rows read now. */
function recompute() {
  const { ctx } = env;
  const emailOf = (id: number) => ctx.users.queries.byId(id)!.email;
  return criteria.map((c) => ({ criterion: c, agreement: computeAgreement(c, ctx.labels.queries.criterionValues.all(c.id), emailOf) }));
}

describe('agreement kept across label changes', () => {
  it('equals a full computation after every change, updated in place by the label service', () => {
    const { ctx, db } = env;
    const rng = createRng(7);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
    // Numeric scores (0 to 1): a few repeated ones (so experts agree sometimes) and arbitrary, continuous ones.
    const score = () => (rng() < 0.6 ? pick(['0', '0.5', '0.25', '1']) : String(rng()));
    const valueFor = (c: Criterion): string => c.kind === 'binary' ? pick(['1', '0']) : c.kind === 'categorical' ? pick(['formal', 'casual', 'rude'])
      : c.kind === 'ordinal' ? String(1 + Math.floor(rng() * 5)) : score();
    /** Values for a random subset of the criteria (at least one), so units of one response differ in size between criteria. */
    const input = (complete: boolean) => {
      const chosen = criteria.filter(() => rng() < 0.7);
      if (chosen.length === 0) chosen.push(pick(criteria));
      const values = new Map<string, string>();
      for (const c of chosen) {
        for (const i of c.target === 'context' ? [0, 1, 2] : [-1]) if (complete || rng() < 0.7) values.set(valueKey(c.id, i), valueFor(c));
      }
      return { chosen, input: { values, rationale: '', corrected_answer: '' } };
    };
    const seen = { inPlace: 0, recomputed: 0, fleiss: 0, unequal: 0, sizes: new Set<number>(), kappa: 0 };
    const unitSizes = db.prepare(`SELECT DISTINCT count(*) FROM label l JOIN annotation a ON a.id = l.annotation_id WHERE a.state = 'submitted'
      GROUP BY a.response_id, l.criterion_id, l.context_index`).pluck();
    for (let step = 0; step < 160; step++) {
      const kept = keptAgreement(ctx, ds);
      const before = version();
      const expert = pick(experts);
      const target = pick(responses);
      const mine = () => seenVersion(ctx.labels.mine(target.id, expert.id)?.annotation);
      const op = rng();
      let tracked = true;
      let what: string;
      if (op < 0.5) {
        const { chosen, input: given } = input(true);
        what = `submit ${expert.email} #${target.id} ${chosen.map((c) => c.name).join(',')}`;
        ctx.labels.submit(expert, target, chosen, given, mine());
      } else if (op < 0.62) {
        // A draft of an already submitted annotation stays submitted and replaces its labels (autosave of an edit).
        const { chosen, input: given } = input(false);
        what = `draft ${expert.email} #${target.id}`;
        ctx.labels.saveDraft(expert, target, chosen, given);
      } else if (op < 0.72) {
        const { chosen, input: given } = input(true);
        what = `submit and next ${expert.email} #${target.id}`;
        ctx.labels.submitAndHandOut(expert, target, chosen, given, mine(), 4);
      } else if (op < 0.78) {
        what = `hand out to ${expert.email}`;
        ctx.labels.handOut(ds, expert.id, 4);
      } else if (op < 0.9) {
        const c = pick(criteria.filter((x) => x.kind !== 'numeric' && x.target === 'response'));
        what = `adjudicate #${target.id} ${c.name}`;
        const existing = db.prepare('SELECT version FROM adjudication WHERE response_id = ? AND criterion_id = ? AND context_index = -1').pluck().get(target.id, c.id) as number | undefined;
        ctx.labels.adjudicate(experts[0]!.id, c, target.id, -1, valueFor(c), 'decided', existing ?? 0);
      } else if (op < 0.95) {
        // Past the service, as sqlite3 or another process would: a label's value changed in place.
        what = `label updated by SQL #${target.id}`;
        tracked = false;
        db.prepare(`UPDATE label SET value = CASE value WHEN '1' THEN '0' WHEN '0' THEN '1' ELSE value END
          WHERE annotation_id IN (SELECT id FROM annotation WHERE response_id = ?)`).run(target.id);
      } else {
        what = `annotation deleted by SQL #${target.id}`;
        tracked = false;
        db.prepare('DELETE FROM annotation WHERE response_id = ? AND annotator_id = ?').run(target.id, expert.id);
      }
      const now = ctx.derived.peek(ds, AGREEMENT_KEY, version());
      if (tracked) {
        expect(now, `${what}: kept value updated in place`).toBe(kept);
        seen.inPlace++;
      } else if (version() !== before) {
        expect(now, `${what}: a change past the service leaves nothing kept as current`).toBeUndefined();
        seen.recomputed++;
      }
      for (const m of unitSizes.all() as number[]) seen.sizes.add(m);
      const full = recompute();
      expect(keptAgreement(ctx, ds).rows(), what).toEqual(full);
      for (const { agreement: a } of full) {
        if (a.fleiss_kappa !== null) seen.fleiss++;
        if (a.fleiss_note === 'unequal_counts') seen.unequal++;
        if (a.pairwise_cohen_kappa.some((p) => p.kappa !== null)) seen.kappa++;
      }
    }
    expect(seen.inPlace).toBeGreaterThan(100);
    expect(seen.recomputed).toBeGreaterThan(3);
    // The sequence reached the interesting states: Fleiss' κ given and not, units of 1 to 4 labels, pairwise κ.
    expect(seen.fleiss).toBeGreaterThan(5);
    expect(seen.unequal).toBeGreaterThan(100);
    expect([...seen.sizes].sort()).toEqual([1, 2, 3, 4]);
    expect(seen.kappa).toBeGreaterThan(100);
    const last = keptAgreement(ctx, ds).rows();
    expect(last.every((r) => r.agreement.n_items > 0 && r.agreement.n_annotators >= 2)).toBe(true);
    expect(last.find((r) => r.criterion.kind === 'numeric')!.agreement.krippendorff_alpha).not.toBeNull();
  });

  it('is computed again after a change that does not go through the service, and not while it follows', () => {
    const { ctx, db } = env;
    const [a, b] = experts;
    const correct = criteria.find((c) => c.name === 'correct')!;
    const give = (u: CurrentUser, r: { id: number; dataset_id: number }, v: string) =>
      ctx.labels.submit(u, r, [correct], { values: new Map([[valueKey(correct.id, -1), v]]), rationale: '', corrected_answer: '' }, seenVersion(ctx.labels.mine(r.id, u.id)?.annotation));
    give(a!, responses[0]!, '1');
    give(b!, responses[0]!, '0');
    const kept = keptAgreement(ctx, ds);
    const all = vi.spyOn(ctx.labels.queries.criterionValues, 'all');
    give(a!, responses[0]!, '0');
    give(b!, responses[1]!, '1');
    expect(keptAgreement(ctx, ds)).toBe(kept);
    expect(all).not.toHaveBeenCalled(); // followed: no criterion read again
    expect(kept.rows()).toEqual(recompute());
    expect(kept.rows()[0]!.agreement.percent_agreement).toBe(1);
    all.mockClear();
    db.prepare(`UPDATE label SET value = '1' WHERE criterion_id = ? AND annotation_id = (SELECT id FROM annotation WHERE response_id = ? AND annotator_id = ?)`)
      .run(correct.id, responses[0]!.id, b!.id);
    const again = keptAgreement(ctx, ds);
    expect(again).not.toBe(kept);
    expect(all).toHaveBeenCalledTimes(criteria.length);
    expect(again.rows()).toEqual(recompute());
    expect(again.rows()[0]!.agreement.percent_agreement).toBe(0);
  });
});
