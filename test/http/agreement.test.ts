// The agreement page (English, Chinese, escaping, access) and the `agreement` CLI command's output.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../server/app-context.ts';
import type { CurrentUser } from '../../server/http/context.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import { AgreementUsageError, cmdAgreement } from '../../server/agreement/cli.ts';
import { Client, loginAs, setupAdmin, startTestApp, type TestApp } from '../helpers.ts';

const startApp = () => startTestApp();

// Krippendorff (2011): 4 coders × 12 units with missing values; α nominal .743, ordinal .815.
const _ = null;
const OBSERVERS = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
  [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
];
const EVIL = '<img src=x onerror=alert(1)>';

interface Seeded { datasetId: number; ordinal: Criterion; categorical: Criterion; numeric: Criterion; empty: Criterion }

function seed(ctx: AppContext): Seeded {
  const datasetId = ctx.datasets.create(null, { name: 'Agreement & <b>set</b>', description: '', language: 'en', domain: '' }).id;
  const make = (name: string, kind: Criterion['kind'], extra: Partial<Criterion> = {}) =>
    ctx.criteria.create(null, datasetId, { name, kind, target: 'response', options: [], scale_min: null, scale_max: null, guidelines: '', ...extra });
  const ordinal = make('grade', 'ordinal', { scale_min: 1, scale_max: 5 });
  const categorical = make(`${EVIL}kind`, 'categorical', { options: ['a', 'b', 'c', 'd', 'e'].map((v) => ({ value: v, label: v })) });
  const numeric = make('score', 'numeric');
  const empty = make('unused', 'binary');
  const sample = ctx.db.prepare('INSERT INTO sample (dataset_id, question_key, question) VALUES (?, ?, ?)');
  const response = ctx.db.prepare(`INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, metadata, content_hash)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const items = OBSERVERS[0]!.map((_v, u) => {
    const sampleId = Number(sample.run(datasetId, `q${u}`, `Q${u}?`).lastInsertRowid);
    return { id: Number(response.run(sampleId, datasetId, 'rag', `A${u}`, '[]', '{}', `h${u}`).lastInsertRowid), dataset_id: datasetId, nContexts: 0 };
  });
  OBSERVERS.forEach((row, o) => {
    const email = `coder-${'abcd'[o]}@example.com`;
    const user: CurrentUser = { id: ctx.users.queries.insert({ email, name: '', role: 'expert', password_hash: null }), email, name: '', role: 'expert', locale: null };
    row.forEach((v, u) => {
      if (v === null) return;
      const values = new Map([[String(ordinal.id), String(v)], [String(categorical.id), 'abcde'[v - 1]!], [String(numeric.id), String(v / 5)]]);
      ctx.labels.submit(user, items[u]!, [ordinal, categorical, numeric], { values, rationale: '', corrected_answer: '' }, null);
    });
  });
  return { datasetId, ordinal, categorical, numeric, empty };
}

let app: TestApp;
beforeEach(async () => { app = await startApp(); });
afterEach(async () => { await app.close(); });

describe('GET /datasets/:id/agreement', () => {
  it('shows every criterion with its figures, the n behind them and their reading, in English, to a viewer', async () => {
    await setupAdmin(app);
    const { datasetId } = seed(app.ctx);
    const viewer = await loginAs(app, 'viewer@example.com', 'viewer');
    const res = await viewer.get(`/datasets/${datasetId}/agreement`);
    expect(res.status).toBe(200);
    const html = res.text;
    expect(html).toContain('<h1>Agreement</h1>');
    expect(html).toContain(`<a href="/datasets/${datasetId}">`); // breadcrumbs back to the dataset
    // ordinal α .815 (reliable), nominal α .743 (tentative), interval α .849
    expect(html).toContain('data-figure="krippendorff_alpha">0.815<');
    expect(html).toContain('data-figure="krippendorff_alpha">0.743<');
    expect(html).toContain('data-figure="krippendorff_alpha">0.849<');
    expect(html).toContain('Reliable (α ≥ 0.800)');
    expect(html).toContain('Tentative conclusions only (0.667 ≤ α &lt; 0.800)');
    expect(html).toContain('data-figure="percent_agreement">81.8%<'); // 9/11
    expect(html).toContain('11 items, 40 labels, 4 experts');
    expect(html).toContain('Does not apply: items have different numbers of labels');
    expect(html).toContain('Does not apply to numeric scores.');
    expect(html).toContain('not computed for this numeric criterion');
    expect(html).toContain("Cohen's κ with quadratic weights");
    expect(html).toContain('coder-a@example.com');
    expect(html).toContain('No item has submitted labels from two or more experts yet');
    expect(html).toContain('Krippendorff (Content Analysis, 2nd ed., 2004, p. 241)');
    expect(html).toContain('Landis &amp; Koch (1977)');
    expect(html).not.toContain('NaN');
  });

  it('speaks Chinese to a zh-CN browser', async () => {
    await setupAdmin(app);
    const { datasetId } = seed(app.ctx);
    const viewer = await loginAs(app, 'zh@example.com', 'expert', 'zh-CN');
    const html = (await viewer.get(`/datasets/${datasetId}/agreement`)).text;
    expect(html).toContain('<html lang="zh-CN"');
    expect(html).toContain('<h1>一致性</h1>');
    expect(html).toContain('可靠（α ≥ 0.800）');
    expect(html).toContain('仅可得出初步结论');
    expect(html).toContain('11 条数据，40 个标注，4 位专家');
    expect(html).toContain('测量尺度：顺序');
    expect(html).toContain('data-figure="krippendorff_alpha">0.815<');
    expect(html).not.toContain('Reliable (α');
  });

  it('escapes dataset and criterion names', async () => {
    await setupAdmin(app);
    const { datasetId } = seed(app.ctx);
    const expert = await loginAs(app, 'e@example.com', 'expert');
    const html = (await expert.get(`/datasets/${datasetId}/agreement`)).text;
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)>kind');
    expect(html).not.toContain('<b>set</b>');
    expect(html).toContain('Agreement &amp; &lt;b>set&lt;/b>');
  });

  it('sends strangers to the login page and answers 404 for an unknown dataset', async () => {
    const admin = await setupAdmin(app);
    const { datasetId } = seed(app.ctx);
    const anonymous = await new Client(app.url).get(`/datasets/${datasetId}/agreement`);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe(`/login?next=${encodeURIComponent(`/datasets/${datasetId}/agreement`)}`);
    expect((await admin.get('/datasets/999999/agreement')).status).toBe(404);
    expect((await admin.get('/datasets/abc/agreement')).status).toBe(404);
  });
});

describe('goldset agreement (cmdAgreement)', () => {
  const REQUIRED = ['fleiss_kappa', 'krippendorff_alpha', 'level', 'n_annotators', 'n_items', 'pairwise_cohen_kappa', 'percent_agreement'];

  function capture(json: boolean) {
    const printed: { text: string; data: Record<string, unknown> }[] = [];
    return { printed, out: { json, print: (text: string, data: Record<string, unknown>) => { printed.push({ text, data }); } } };
  }

  it('prints one object with exactly the required keys, the figures and {a, b, n, kappa} pairs by email', async () => {
    const { ordinal } = seed(app.ctx);
    const { printed, out } = capture(true);
    expect(await cmdAgreement(app.ctx, { dataset: 'Agreement & <b>set</b>', criterion: ordinal.name, json: true }, out)).toBe(0);
    expect(printed).toHaveLength(1);
    const data = printed[0]!.data;
    expect(Object.keys(data).sort()).toEqual(REQUIRED);
    // What another program reads: JSON, with nulls (not NaN) where a figure does not apply.
    const parsed = JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
    expect(parsed).toMatchObject({ n_items: 11, n_annotators: 4, level: 'ordinal', fleiss_kappa: null });
    expect(parsed.krippendorff_alpha as number).toBeCloseTo(0.815, 3);
    expect(parsed.percent_agreement as number).toBeCloseTo(9 / 11, 12);
    const pairs = parsed.pairwise_cohen_kappa as Record<string, unknown>[];
    expect(pairs).toHaveLength(6);
    for (const p of pairs) expect(Object.keys(p).sort()).toEqual(['a', 'b', 'kappa', 'n']);
    expect(pairs[0]).toMatchObject({ a: 'coder-a@example.com', b: 'coder-b@example.com', n: 9 });
  });

  it('uses null for what is not computable: numeric κ, and every figure of a criterion without labels', async () => {
    const { numeric, empty } = seed(app.ctx);
    const { printed, out } = capture(true);
    await cmdAgreement(app.ctx, { dataset: 'Agreement & <b>set</b>', criterion: numeric.name }, out);
    await cmdAgreement(app.ctx, { dataset: 'Agreement & <b>set</b>', criterion: 'UNUSED' }, out);
    const [num, none] = printed.map((p) => p.data);
    expect(Object.keys(num!).sort()).toEqual(REQUIRED);
    expect(num).toMatchObject({ level: 'interval', fleiss_kappa: null });
    expect((num!.pairwise_cohen_kappa as { kappa: unknown }[]).every((p) => p.kappa === null)).toBe(true);
    expect(none).toEqual({ n_items: 0, n_annotators: 0, level: 'nominal', krippendorff_alpha: null, fleiss_kappa: null, percent_agreement: null, pairwise_cohen_kappa: [] });
    expect(empty.name).toBe('unused'); // criterion names match case-insensitively, as everywhere else
  });

  it('prints a readable table without --json', async () => {
    const { categorical } = seed(app.ctx);
    const { printed, out } = capture(false);
    await cmdAgreement(app.ctx, { dataset: 'Agreement & <b>set</b>', criterion: categorical.name }, out);
    const text = printed[0]!.text;
    expect(text).toMatch(/Krippendorff's alpha\s+0\.743/);
    expect(text).toMatch(/items with >= 2 labels\s+11/);
    expect(text).toMatch(/Fleiss' kappa\s+- \(items have different numbers of labels\)/);
    expect(text).toContain("pairwise Cohen's kappa (unweighted):");
    expect(text).toMatch(/coder-a@example\.com\s+coder-b@example\.com\s+9\s+-?\d\.\d{3}/);
  });

  it('refuses an unknown dataset or criterion, or a missing option, with AgreementUsageError', async () => {
    seed(app.ctx);
    const { out } = capture(true);
    await expect(cmdAgreement(app.ctx, { dataset: 'nope', criterion: 'grade' }, out)).rejects.toThrow(new AgreementUsageError('no dataset named "nope"'));
    await expect(cmdAgreement(app.ctx, { dataset: 'Agreement & <b>set</b>', criterion: 'nope' }, out)).rejects.toThrow(/no criterion named "nope" in "Agreement & <b>set<\/b>" \(its criteria: grade, .*score, unused\)/);
    await expect(cmdAgreement(app.ctx, { dataset: 'Agreement & <b>set</b>' }, out)).rejects.toBeInstanceOf(AgreementUsageError);
    await expect(cmdAgreement(app.ctx, { criterion: 'grade' }, out)).rejects.toThrow('missing --dataset NAME');
  });
});
