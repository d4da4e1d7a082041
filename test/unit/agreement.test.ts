// Inter-expert agreement end to end through a real database: published worked examples (Krippendorff
// 2011, Fleiss 1971, Cohen's κ on Wikipedia), the stats module called directly on the same values, and
// the edge cases (unequal label counts, numeric criteria, no labels, no variation, drafts, contexts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { openDatabase, type DB } from '../../server/db/connection.ts';
import { migrate } from '../../server/db/migrate.ts';
import { createLogger } from '../../server/log.ts';
import { createAppContext, type AppContext } from '../../server/app-context.ts';
import type { CurrentUser } from '../../server/http/context.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import type { CriterionInput } from '../../server/criteria/service.ts';
import { agreementFor, agreementForDataset, alphaReading, kappaReading } from '../../server/agreement/service.ts';
import { cohenKappa, countTable, fleissKappa, krippendorffAlpha, percentAgreement } from '../../server/stats/index.ts';

let dir: string;
let db: DB;
let ctx: AppContext;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-agreement-'));
  const config = loadConfig({ GOLDSET_DB: path.join(dir, 'test.db') });
  db = openDatabase(config.dbFile);
  migrate(db);
  ctx = createAppContext(db, config, createLogger('silent'));
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// ---- seeding through the real services (responses by SQL, as the import does) ----

let userCount = 0;
function expert(email: string): CurrentUser {
  const id = ctx.users.queries.insert({ email, name: `expert ${++userCount}`, role: 'expert', password_hash: null });
  return { id, email, name: '', role: 'expert', locale: null };
}

function dataset(name = 'Agreement set'): number {
  return ctx.datasets.create(null, { name, description: '', language: 'en', domain: '' }).id;
}

interface Resp { id: number; dataset_id: number; nContexts: number }

function responses(datasetId: number, n: number, nContexts = 0): Resp[] {
  const sample = db.prepare('INSERT INTO sample (dataset_id, question_key, question) VALUES (?, ?, ?)');
  const response = db.prepare(`INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, metadata, content_hash)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const out: Resp[] = [];
  for (let i = 0; i < n; i++) {
    const q = `Question ${datasetId}-${i}?`;
    const sampleId = Number(sample.run(datasetId, q.toLowerCase(), q).lastInsertRowid);
    const contexts = JSON.stringify(Array.from({ length: nContexts }, (_v, k) => `context ${k}`));
    const id = Number(response.run(sampleId, datasetId, 'rag-v1', `Answer ${i}`, contexts, '{}', `hash-${datasetId}-${i}`).lastInsertRowid);
    out.push({ id, dataset_id: datasetId, nContexts });
  }
  return out;
}

function criterion(datasetId: number, input: Partial<CriterionInput> & Pick<CriterionInput, 'name' | 'kind'>): Criterion {
  return ctx.criteria.create(null, datasetId, { target: 'response', options: [], scale_min: null, scale_max: null, guidelines: '', ...input });
}

/** One expert's submitted annotation of a response: values keyed by criterion id (or "id:context"). */
function submit(user: CurrentUser, r: Resp, criteria: Criterion[], values: Record<string, string>): void {
  ctx.labels.submit(user, r, criteria, { values: new Map(Object.entries(values)), rationale: '', corrected_answer: '' }, null);
}

// ---- Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", 4 observers × 12 units ----
const _ = null;
const OBSERVERS = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
  [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
];
const PAPER_UNITS = OBSERVERS[0]!.map((_v, u) => OBSERVERS.map((row) => row[u]).filter((v): v is number => v !== null));
const CODERS = ['coder-a@example.com', 'coder-b@example.com', 'coder-c@example.com', 'coder-d@example.com'];
const CATEGORY = ['one', 'two', 'three', 'four', 'five'];

/** The paper's data in one dataset, as a categorical, an ordinal 1–5 and a numeric (value / 5) criterion. */
function seedPaper() {
  const ds = dataset();
  const cat = criterion(ds, { name: 'category', kind: 'categorical', options: CATEGORY.map((v) => ({ value: v, label: v.toUpperCase() })) });
  const ord = criterion(ds, { name: 'grade', kind: 'ordinal', scale_min: 1, scale_max: 5 });
  const num = criterion(ds, { name: 'score', kind: 'numeric' });
  const items = responses(ds, 12);
  const users = CODERS.map(expert);
  OBSERVERS.forEach((row, o) => row.forEach((v, u) => {
    if (v === null) return;
    // All criteria in one submission: a new submission of the same annotation replaces its labels.
    submit(users[o]!, items[u]!, [cat, ord, num], { [cat.id]: CATEGORY[v - 1]!, [ord.id]: String(v), [num.id]: String(v / 5) });
  }));
  return { ds, cat, ord, num };
}

/** Pairwise ratings of the paper straight from the arrays: the independent route for Cohen's κ. */
function paperPairs(map: (v: number) => string | number, weights: 'none' | 'quadratic', categories: (string | number)[]) {
  const out: { a: string; b: string; n: number; kappa: number | null }[] = [];
  for (let i = 0; i < 4; i++) {
    for (let j = i + 1; j < 4; j++) {
      const la: (string | number)[] = [], lb: (string | number)[] = [];
      OBSERVERS[i]!.forEach((v, u) => {
        const w = OBSERVERS[j]![u];
        if (v !== null && w !== null && w !== undefined) { la.push(map(v)); lb.push(map(w)); }
      });
      out.push({ a: CODERS[i]!, b: CODERS[j]!, n: la.length, kappa: cohenKappa(la, lb, { weights, categories }) });
    }
  }
  return out;
}

describe('agreement on Krippendorff (2011), 4 coders × 12 units with missing values', () => {
  it('gives nominal α = 0.743 for a categorical criterion, with the counts behind it', () => {
    const { cat } = seedPaper();
    const a = agreementFor(ctx, cat.id);
    expect(a.level).toBe('nominal');
    expect(a.krippendorff_alpha).toBeCloseTo(0.743, 3);
    // the paper's own closed form: 1 − (n − 1)·(disagreeing pairable values) / (n² − Σ n_c²), n_c = 9, 13, 10, 5, 3
    expect(a.krippendorff_alpha).toBeCloseTo(1 - (39 * 8) / (1600 - (81 + 169 + 100 + 25 + 9)), 12);
    expect(a.n_items).toBe(11); // unit 12 has a single label and does not count
    expect(a.n_units).toBe(12);
    expect(a.n_pairable_values).toBe(40);
    expect(a.n_annotators).toBe(4);
    // Units carry 2, 3 or 4 labels: Fleiss' κ does not apply.
    expect(a.fleiss_kappa).toBeNull();
    expect(a.fleiss_note).toBe('unequal_counts');
    expect(a.labels_per_item).toBeNull();
    // By hand: units 2 and 8 have 3 of 6 pairs agreeing, unit 6 none, the other 8 all → 9/11.
    expect(a.percent_agreement).toBeCloseTo(9 / 11, 12);
    expect(alphaReading(a.krippendorff_alpha)).toBe('tentative');
  });

  it('gives ordinal α = 0.815 and quadratic-weighted pairwise κ over the 1–5 scale', () => {
    const { ord } = seedPaper();
    const a = agreementFor(ctx, ord.id);
    expect(a.level).toBe('ordinal');
    expect(a.krippendorff_alpha).toBeCloseTo(0.815, 3);
    expect(alphaReading(a.krippendorff_alpha)).toBe('reliable');
    expect(a.kappa_weights).toBe('quadratic');
    const expected = paperPairs((v) => v, 'quadratic', [1, 2, 3, 4, 5]);
    expect(a.pairwise_cohen_kappa.map((p) => [p.a, p.b, p.n])).toEqual(expected.map((p) => [p.a, p.b, p.n]));
    expect(a.pairwise_cohen_kappa.map((p) => p.n)).toEqual([9, 8, 9, 9, 10, 10]);
    a.pairwise_cohen_kappa.forEach((p, i) => expect(p.kappa).toBeCloseTo(expected[i]!.kappa!, 12));
    expect(a.fleiss_kappa).toBeNull();
  });

  it('gives interval α = 0.849 for a numeric criterion holding value/5 (α is invariant under linear rescaling at interval level)', () => {
    const { num } = seedPaper();
    const a = agreementFor(ctx, num.id);
    expect(a.level).toBe('interval');
    expect(a.krippendorff_alpha).toBeCloseTo(0.849, 3);
    // percent agreement on numbers means exactly equal scores: the same 9/11 as the categories.
    expect(a.percent_agreement).toBeCloseTo(9 / 11, 12);
    // No Fleiss' κ and no Cohen's κ for continuous scores; the shared counts are still given.
    expect(a.fleiss_kappa).toBeNull();
    expect(a.fleiss_note).toBe('numeric');
    expect(a.kappa_weights).toBeNull();
    expect(a.pairwise_cohen_kappa).toHaveLength(6);
    expect(a.pairwise_cohen_kappa.every((p) => p.kappa === null)).toBe(true);
    expect(a.pairwise_cohen_kappa.map((p) => p.n)).toEqual([9, 8, 9, 9, 10, 10]);
  });

  it('matches the stats module called directly on the same values, for every criterion', () => {
    const { cat, ord, num } = seedPaper();
    const counted = PAPER_UNITS.filter((u) => u.length >= 2);
    const cases = [
      { c: cat, level: 'nominal' as const, units: counted.map((u) => u.map((v) => CATEGORY[v - 1]!)) },
      { c: ord, level: 'ordinal' as const, units: counted },
      { c: num, level: 'interval' as const, units: counted.map((u) => u.map((v) => v / 5)) },
    ];
    for (const { c, level, units } of cases) {
      const a = agreementFor(ctx, c.id);
      expect(a.krippendorff_alpha).toBeCloseTo(krippendorffAlpha(units, level).alpha!, 12);
      expect(a.percent_agreement).toBeCloseTo(percentAgreement(units)!, 12);
    }
    const nominal = agreementFor(ctx, cat.id).pairwise_cohen_kappa;
    const expected = paperPairs((v) => CATEGORY[v - 1]!, 'none', CATEGORY);
    nominal.forEach((p, i) => {
      expect([p.a, p.b, p.n]).toEqual([expected[i]!.a, expected[i]!.b, expected[i]!.n]);
      expect(p.kappa).toBeCloseTo(expected[i]!.kappa!, 12);
    });
  });

  it('reads each criterion with one prepared statement and each expert\'s email once, and prepares nothing', () => {
    const { ds } = seedPaper();
    const all = vi.spyOn(ctx.labels.queries.criterionValues, 'all');
    const byId = vi.spyOn(ctx.users.queries, 'byId');
    const prepare = vi.spyOn(ctx.db, 'prepare');
    const rows = agreementForDataset(ctx, ds).rows();
    expect(rows.map((r) => r.criterion.name)).toEqual(['category', 'grade', 'score']);
    expect(all).toHaveBeenCalledTimes(3);
    expect(byId).toHaveBeenCalledTimes(4); // the rows carry expert ids; only the pairwise list names them
    expect(prepare).not.toHaveBeenCalled();
  });
});

describe('agreement on Fleiss (1971) as worked in Wikipedia: 10 items × 14 raters, 5 categories', () => {
  const TABLE = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
  ];
  const CATS = ['c1', 'c2', 'c3', 'c4', 'c5'];

  it('gives κ = 0.210, the same as fleissKappa on the published table, and α from the same units', () => {
    const ds = dataset();
    const c = criterion(ds, { name: 'category', kind: 'categorical', options: CATS.map((v) => ({ value: v, label: v })) });
    const items = responses(ds, 10);
    const raters = Array.from({ length: 14 }, (_v, i) => expert(`rater-${String(i + 1).padStart(2, '0')}@example.com`));
    const units: string[][] = [];
    TABLE.forEach((row, i) => {
      // Rater r gets the category whose cumulative count first exceeds r: the row's counts exactly.
      const labels = row.flatMap((count, k) => Array<string>(count).fill(CATS[k]!));
      units.push(labels);
      labels.forEach((v, r) => submit(raters[r]!, items[i]!, [c], { [c.id]: v }));
    });
    const a = agreementFor(ctx, c.id);
    expect(a.fleiss_kappa).toBeCloseTo(0.21, 3);
    expect(a.fleiss_kappa).toBeCloseTo(fleissKappa(TABLE)!, 12);
    expect(countTable(units, CATS).table).toEqual(TABLE);
    expect(a.fleiss_note).toBeNull();
    expect(a.labels_per_item).toBe(14);
    expect([a.n_items, a.n_annotators, a.n_pairable_values]).toEqual([10, 14, 140]);
    expect(a.krippendorff_alpha).toBeCloseTo(krippendorffAlpha(units, 'nominal').alpha!, 12);
    expect(a.percent_agreement).toBeCloseTo(percentAgreement(units)!, 12);
    // Fleiss' P̄ is the same per-item pair agreement averaged over items: 0.378 in the worked example.
    expect(a.percent_agreement).toBeCloseTo(0.378, 3);
    expect(a.pairwise_cohen_kappa).toHaveLength(91); // C(14, 2)
    expect(a.pairwise_cohen_kappa.every((p) => p.n === 10)).toBe(true);
    expect(kappaReading(a.fleiss_kappa)).toBe('fair');
  });
});

describe("agreement on Wikipedia's Cohen's κ example: 50 items, 2 raters, 20/5/10/15", () => {
  it('lists the pair with n = 50 and κ = 0.4; Fleiss equals Scott\'s π and α is 0.4 by hand', () => {
    const ds = dataset();
    const c = criterion(ds, { name: 'correct', kind: 'binary' });
    const items = responses(ds, 50);
    const [ra, rb] = [expert('rater-b@example.com'), expert('rater-a@example.com')]; // created out of order on purpose
    const cells: [string, string, number][] = [['1', '1', 20], ['1', '0', 5], ['0', '1', 10], ['0', '0', 15]];
    let i = 0;
    for (const [va, vb, count] of cells) {
      for (let k = 0; k < count; k++, i++) {
        submit(ra!, items[i]!, [c], { [c.id]: va });
        submit(rb!, items[i]!, [c], { [c.id]: vb });
      }
    }
    const a = agreementFor(ctx, c.id);
    expect(a.pairwise_cohen_kappa).toHaveLength(1);
    const p = a.pairwise_cohen_kappa[0]!;
    expect([p.a, p.b, p.n]).toEqual(['rater-a@example.com', 'rater-b@example.com', 50]);
    expect(p.kappa).toBeCloseTo(0.4, 12);
    expect(a.kappa_weights).toBe('none');
    expect(a.percent_agreement).toBeCloseTo(0.7, 12);
    // Scott's π with pooled marginals yes 55/100, no 45/100: (0.7 − 0.505) / 0.495.
    expect(a.fleiss_kappa).toBeCloseTo((0.7 - 0.505) / 0.495, 12);
    // α by hand: D_o = 30/100, D_e = 2·55·45/(100·99) = 0.5 → 1 − 0.6 = 0.4.
    expect(a.krippendorff_alpha).toBeCloseTo(0.4, 12);
    expect([a.n_items, a.n_annotators, a.labels_per_item]).toEqual([50, 2, 2]);
    expect(kappaReading(p.kappa)).toBe('fair');
  });
});

describe('agreement edge cases', () => {
  it('is all null with n_items 0 for a criterion without labels, and for one with single labels only', () => {
    const ds = dataset();
    const c = criterion(ds, { name: 'tone', kind: 'ordinal', scale_min: 1, scale_max: 3 });
    const empty = { n_items: 0, n_annotators: 0, krippendorff_alpha: null, fleiss_kappa: null, percent_agreement: null, pairwise_cohen_kappa: [] };
    expect(agreementFor(ctx, c.id)).toMatchObject({ ...empty, level: 'ordinal', n_units: 0, fleiss_note: 'no_items' });
    const [r1, r2] = responses(ds, 2);
    submit(expert('x@example.com'), r1!, [c], { [c.id]: '1' });
    submit(expert('y@example.com'), r2!, [c], { [c.id]: '3' });
    expect(agreementFor(ctx, c.id)).toMatchObject({ ...empty, n_units: 2 });
  });

  it('gives null (never NaN) chance-corrected figures when every label is the same', () => {
    const ds = dataset();
    const c = criterion(ds, { name: 'ok', kind: 'binary' });
    const items = responses(ds, 3);
    const users = [expert('p@example.com'), expert('q@example.com')];
    for (const r of items) for (const u of users) submit(u, r, [c], { [c.id]: 'yes' });
    const a = agreementFor(ctx, c.id);
    expect(a).toMatchObject({ n_items: 3, n_annotators: 2, krippendorff_alpha: null, fleiss_kappa: null, percent_agreement: 1 });
    expect(a.pairwise_cohen_kappa).toEqual([{ a: 'p@example.com', b: 'q@example.com', n: 3, kappa: null }]);
    expect(JSON.stringify(a)).not.toContain('NaN');
  });

  it('counts one unit per retrieved context for per-context criteria, and ignores drafts', () => {
    const ds = dataset();
    const c = criterion(ds, { name: 'relevant', kind: 'binary', target: 'context' });
    const items = responses(ds, 3, 2);
    const [ua, ub, drafter] = [expert('a@example.com'), expert('b@example.com'), expert('draft@example.com')];
    const give = (u: CurrentUser, r: Resp, v: [string, string]) => submit(u, r, [c], { [`${c.id}:0`]: v[0], [`${c.id}:1`]: v[1] });
    give(ua!, items[0]!, ['1', '0']); give(ub!, items[0]!, ['1', '1']);
    give(ua!, items[1]!, ['1', '1']); give(ub!, items[1]!, ['1', '1']);
    give(ua!, items[2]!, ['0', '0']); give(ub!, items[2]!, ['0', '0']);
    ctx.labels.saveDraft(drafter!, items[0]!, [c], { values: new Map([[`${c.id}:0`, '0'], [`${c.id}:1`, '0']]), rationale: '', corrected_answer: '' });
    const a = agreementFor(ctx, c.id);
    expect([a.n_items, a.n_units, a.n_annotators]).toEqual([6, 6, 2]);
    expect(a.percent_agreement).toBeCloseTo(5 / 6, 12);
    // a = 1,0,1,1,0,0 and b = 1,1,1,1,0,0: p_o = 5/6, p_e = (3·4 + 3·2)/36 = 1/2 → κ = 2/3
    expect(a.pairwise_cohen_kappa).toEqual([{ a: 'a@example.com', b: 'b@example.com', n: 6, kappa: expect.closeTo(2 / 3, 12) }]);
  });

  it('lists pairs of experts who share no item with n 0 and kappa null', () => {
    const ds = dataset();
    const c = criterion(ds, { name: 'verdict', kind: 'categorical', options: [{ value: 'good', label: 'Good' }, { value: 'bad', label: 'Bad' }] });
    const [r1, r2] = responses(ds, 2);
    const [a, b, x, y] = ['a@example.com', 'b@example.com', 'x@example.com', 'y@example.com'].map(expert);
    submit(a!, r1!, [c], { [c.id]: 'good' }); submit(b!, r1!, [c], { [c.id]: 'bad' });
    submit(x!, r2!, [c], { [c.id]: 'good' }); submit(y!, r2!, [c], { [c.id]: 'good' });
    const res = agreementFor(ctx, c.id);
    expect(res.n_annotators).toBe(4);
    expect(res.pairwise_cohen_kappa.map((p) => `${p.a[0]}${p.b[0]}:${p.n}`)).toEqual(['ab:1', 'ax:0', 'ay:0', 'bx:0', 'by:0', 'xy:1']);
    expect(res.pairwise_cohen_kappa.filter((p) => p.n === 0).every((p) => p.kappa === null)).toBe(true);
    expect(res.fleiss_kappa).toBeCloseTo(fleissKappa([[1, 1], [2, 0]])!, 12);
  });

  it('reads α with Krippendorff\'s thresholds and κ with the Landis & Koch bands', () => {
    expect([0.8, 0.7996, 0.7994, 0.667, 0.6668, 0.6664, null].map(alphaReading))
      .toEqual(['reliable', 'reliable', 'tentative', 'tentative', 'tentative', 'unreliable', null]);
    expect([-0.1, 0, 0.2, 0.21, 0.4, 0.41, 0.6, 0.61, 0.8, 0.81, 1].map(kappaReading))
      .toEqual(['poor', 'slight', 'slight', 'fair', 'fair', 'moderate', 'moderate', 'substantial', 'substantial', 'almost_perfect', 'almost_perfect']);
  });
});
