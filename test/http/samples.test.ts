// Datasets and samples: creation, validation, escaping, search, revisions, review workflow, conflicts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loginAs, setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';

let app: TestApp;
let admin: Client;
beforeEach(async () => { app = await startTestApp(); admin = await setupAdmin(app); });
afterEach(async () => { await app.close(); });

async function createDataset(c: Client, name = 'HR', language = 'en'): Promise<number> {
  const res = await c.post('/datasets', { name, language, description: 'd', domain: 'HR' });
  expect(res.status).toBe(303);
  return Number(res.headers.get('location')!.split('/').pop());
}

async function addSample(c: Client, datasetId: number, fields: Record<string, string>) {
  return c.post(`/datasets/${datasetId}/samples`, fields, { headers: { 'HX-Request': 'true' } });
}

describe('datasets', () => {
  it('creates, renames, describes and archives a dataset, each change audited', async () => {
    const id = await createDataset(admin);
    await admin.get(`/datasets/${id}/settings`);
    const res = await admin.post(`/datasets/${id}/settings`, { name: 'HR v2', language: 'zh', description: 'new', domain: 'People', archived: '1', version: 1 });
    expect(res.status).toBe(303);
    const d = app.ctx.datasets.get(id)!;
    expect([d.name, d.language, d.description, d.domain, d.archived]).toEqual(['HR v2', 'zh', 'new', 'People', 1]);
    expect((await admin.get('/datasets')).text).not.toContain('HR v2');
    expect((await admin.get('/datasets?archived=1')).text).toContain('HR v2');
    const events = app.ctx.audit.forEntity('dataset', id);
    expect(events.map((e) => e.action)).toEqual(['update', 'create']);
    expect(JSON.parse(events[0]!.before!).name).toBe('HR');
    expect(JSON.parse(events[0]!.after!).name).toBe('HR v2');
  });

  it('refuses a duplicate name and an unknown language with messages beside the fields', async () => {
    await createDataset(admin, 'Dup');
    const res = await admin.post('/datasets', { name: 'dup', language: 'fr', description: '', domain: '' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('This value is not valid.');
    const res2 = await admin.post('/datasets', { name: 'dup', language: 'en', description: '', domain: '' });
    expect(res2.status).toBe(422);
    expect(res2.text).toContain('A dataset with this name already exists.');
    expect(app.ctx.datasets.list(true)).toHaveLength(1);
  });

  it('loads the bilingual example datasets once', async () => {
    expect((await admin.post('/datasets/example', {})).status).toBe(303);
    await admin.post('/datasets/example', {});
    const names = app.ctx.datasets.list().map((d) => d.name).sort();
    expect(names).toEqual(['HR onboarding (example)', '新人入职答疑（示例）']);
    const zh = app.ctx.datasets.byName('新人入职答疑（示例）')!;
    expect((await admin.get(`/datasets/${zh.id}`)).text).toContain('张伟是哪个部门的？');
  });
});

describe('samples', () => {
  it('adds a sample from the quick-add form and returns a fresh form for the next one', async () => {
    const id = await createDataset(admin);
    const res = await addSample(admin, id, { question: 'How do I request leave?', ground_truth: 'In the OA system.', reference_contexts: 'Leave policy A\n\nLeave policy B', tags: 'leave, policy', source: 'user_log' });
    expect(res.status).toBe(200);
    expect(res.headers.get('hx-trigger')).toBe('samples-changed');
    expect(res.text).toContain('Added sample #');
    expect(res.text).not.toContain('How do I request leave?'); // the form is empty again
    const { rows } = app.ctx.samples.queries.list({ datasetId: id }, { limit: 10, offset: 0 });
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.reference_contexts)).toEqual(['Leave policy A', 'Leave policy B']);
    expect(JSON.parse(rows[0]!.tags)).toEqual(['leave', 'policy']);
    expect(rows[0]!.status).toBe('draft');
  });

  it('refuses an empty question with 422 and keeps what was typed', async () => {
    const id = await createDataset(admin);
    const res = await addSample(admin, id, { question: '   ', ground_truth: 'kept text' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('This field is required.');
    expect(res.text).toContain('kept text');
    expect(app.ctx.samples.queries.list({ datasetId: id }, { limit: 10, offset: 0 }).total).toBe(0);
  });

  it('refuses the same question twice in a dataset, whatever the spacing', async () => {
    const id = await createDataset(admin);
    await addSample(admin, id, { question: 'Where is the office?' });
    const res = await addSample(admin, id, { question: '  Where   is the office? ' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('already in the dataset');
  });

  it('renders a question containing script as text everywhere', async () => {
    const id = await createDataset(admin);
    const evil = '<script>alert(1)</script>';
    await addSample(admin, id, { question: `${evil} leave?`, ground_truth: `<img src=x onerror=alert(2)>` });
    const sampleId = app.ctx.samples.queries.list({ datasetId: id }, { limit: 1, offset: 0 }).rows[0]!.id;
    await admin.get(`/samples/${sampleId}`);
    await admin.post(`/samples/${sampleId}`, { question: `${evil} holiday?`, ground_truth: 'x', version: 1 });
    for (const page of [`/datasets/${id}`, `/samples/${sampleId}`, '/audit']) {
      const html = (await admin.get(page)).text;
      expect(html).not.toContain('<script>alert(1)');
      expect(html).not.toContain('<img src=x');
      expect(html).toContain('&lt;script>alert(1)&lt;/script>');
    }
  });

  it('searches English and Chinese text, including two-character Chinese words', async () => {
    const id = await createDataset(admin);
    await addSample(admin, id, { question: '张伟是哪个部门的？', ground_truth: '教研部' });
    await addSample(admin, id, { question: 'How many days of annual leave?', ground_truth: '10 days' });
    await addSample(admin, id, { question: '如何请年假？', ground_truth: '在 OA 系统提交' });
    const search = async (q: string) => app.ctx.samples.queries.list({ datasetId: id, q }, { limit: 10, offset: 0 }).rows.map((r) => r.question);
    expect(await search('annual leave')).toEqual(['How many days of annual leave?']);
    expect(await search('哪个部门')).toEqual(['张伟是哪个部门的？']);
    expect(await search('年假')).toEqual(['如何请年假？']);
    expect(await search('OA 系统')).toEqual(['如何请年假？']);
    const page = await admin.get(`/datasets/${id}?q=${encodeURIComponent('张伟')}`);
    expect(page.text).toContain('张伟是哪个部门的？');
    expect(page.text).not.toContain('如何请年假？');
  });

  it('filters by status, tag and author and paginates', async () => {
    const id = await createDataset(admin);
    for (let i = 0; i < 55; i++) await addSample(admin, id, { question: `Question number ${i}`, tags: i % 2 ? 'odd' : 'even' });
    const expert = await loginAs(app, 'e@example.com', 'expert');
    await addSample(expert, id, { question: 'By the expert', tags: 'odd' });
    const page1 = await admin.get(`/datasets/${id}`);
    expect(page1.text).toContain('56 samples');
    expect(page1.text).toContain('Page 1 of 2');
    const page2 = await admin.get(`/datasets/${id}?page=2`);
    expect(page2.text).toContain('Question number 0<');
    const odd = await admin.get(`/datasets/${id}?tag=odd`);
    expect(odd.text).toContain('28 samples');
    const expertId = app.ctx.users.queries.byEmail('e@example.com')!.id;
    const mine = await admin.get(`/datasets/${id}?author=${expertId}`);
    expect(mine.text).toContain('1 sample<');
    expect((await admin.get(`/datasets/${id}?status=approved`)).text).toContain('0 samples');
  });

  it('answers an htmx search with the list fragment only', async () => {
    const id = await createDataset(admin);
    await addSample(admin, id, { question: 'Fragment question' });
    const res = await admin.get(`/datasets/${id}?q=Fragment`, { 'HX-Request': 'true' });
    expect(res.text.startsWith('<div id="sample-list"')).toBe(true);
    expect(res.headers.get('vary')).toContain('HX-Request');
  });
});

describe('revisions and review', () => {
  async function oneSample(): Promise<{ datasetId: number; sampleId: number }> {
    const datasetId = await createDataset(admin, 'HR', 'zh');
    await addSample(admin, datasetId, { question: '张伟是哪个部门的？', ground_truth: '张伟是教研部的成员' });
    return { datasetId, sampleId: app.ctx.samples.queries.list({ datasetId }, { limit: 1, offset: 0 }).rows[0]!.id };
  }

  it('keeps every edit as a revision and shows a readable diff', async () => {
    const { sampleId } = await oneSample();
    await admin.get(`/samples/${sampleId}`);
    expect((await admin.post(`/samples/${sampleId}`, { question: '张伟是哪个部门的？', ground_truth: '张伟是人事部的成员', version: 1 })).status).toBe(303);
    const history = app.ctx.samples.history(sampleId);
    expect(history).toHaveLength(1);
    expect(history[0]!.snapshot.ground_truth).toBe('张伟是教研部的成员');
    const page = await admin.get(`/samples/${sampleId}`);
    expect(page.text).toContain('<del>教研</del><ins>人事</ins>');
    // The changed text is the item's own, in the dataset's language (lang), on an English page.
    const changed = /<dt>Ground truth<\/dt><dd lang="zh-CN"><span class="diff">[^<]*<del>教研<\/del><ins>人事<\/ins>/g;
    expect(page.text.match(changed)).toHaveLength(2); // the history, and the audit log beside it
    expect((await admin.get('/audit')).text.match(changed)).toHaveLength(1);
    const audit = app.ctx.audit.forEntity('sample', sampleId);
    expect(audit.map((e) => e.action)).toEqual(['update', 'create']);
  });

  it('requires someone other than the author to approve, and shows who approved', async () => {
    const { sampleId } = await oneSample();
    await admin.get(`/samples/${sampleId}`);
    expect((await admin.post(`/samples/${sampleId}/status`, { action: 'submit', version: 1 })).status).toBe(303);
    await admin.get(`/samples/${sampleId}`);
    const own = await admin.post(`/samples/${sampleId}/status`, { action: 'approve', version: 2 });
    expect(own.status).toBe(422);
    expect(own.text).toContain('cannot approve a sample you wrote');
    const expert = await loginAs(app, 'reviewer@example.com', 'expert');
    await expert.get(`/samples/${sampleId}`);
    expect((await expert.post(`/samples/${sampleId}/status`, { action: 'approve', version: 2 })).status).toBe(303);
    const s = app.ctx.samples.get(sampleId)!;
    expect(s.status).toBe('approved');
    expect(s.approver_email).toBe('reviewer@example.com');
    const page = (await admin.get(`/samples/${sampleId}`)).text;
    expect(page).toContain('reviewer@example.com');
    // The history says the statuses in words, as the badge and the audit log do.
    const history = page.slice(page.indexOf('id="history-heading"'));
    expect(history).toContain('<del>In review</del><ins>Approved</ins>');
    expect(history).not.toContain('in_review');
  });

  it('sends an approved sample back to review when its content changes', async () => {
    const { sampleId } = await oneSample();
    app.ctx.samples.transition(null, sampleId, 1, 'submit');
    const reviewer = await loginAs(app, 'r@example.com', 'expert');
    await reviewer.get(`/samples/${sampleId}`);
    await reviewer.post(`/samples/${sampleId}/status`, { action: 'approve', version: 2 });
    await admin.get(`/samples/${sampleId}`);
    await admin.post(`/samples/${sampleId}`, { question: '张伟是哪个部门的？', ground_truth: '教研部', version: 3 });
    const s = app.ctx.samples.get(sampleId)!;
    expect(s.status).toBe('in_review');
    expect(s.approved_by).toBeNull();
  });

  it('tells the second of two simultaneous editors about the conflict and loses neither edit silently', async () => {
    const { sampleId } = await oneSample();
    const other = await loginAs(app, 'o@example.com', 'expert');
    await admin.get(`/samples/${sampleId}`);
    await other.get(`/samples/${sampleId}`);
    expect((await admin.post(`/samples/${sampleId}`, { question: '张伟是哪个部门的？', ground_truth: 'first edit', version: 1 })).status).toBe(303);
    const second = await other.post(`/samples/${sampleId}`, { question: '张伟是哪个部门的？', ground_truth: 'second edit', version: 1 });
    expect(second.status).toBe(409);
    expect(second.text).toContain('Someone else saved this sample');
    expect(second.text).toContain('first edit');
    expect(second.text).toContain('second edit');
    expect(app.ctx.samples.get(sampleId)!.ground_truth).toBe('first edit');
  });

  it('lets an admin read the global audit log, newest first', async () => {
    const { sampleId } = await oneSample();
    const res = await admin.get('/audit');
    expect(res.status).toBe(200);
    expect(res.text).toContain(`/samples/${sampleId}`);
    expect(res.text.indexOf(`sample #${sampleId}`)).toBeLessThan(res.text.lastIndexOf('set up goldset as administrator'));
  });

  it('cannot rewrite the audit log, even from SQL', () => {
    expect(() => app.ctx.db.prepare('DELETE FROM audit_event').run()).toThrow(/append-only/);
    expect(() => app.ctx.db.prepare("UPDATE audit_event SET action = 'x'").run()).toThrow(/append-only/);
  });
});
