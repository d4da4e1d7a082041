// Import (all-or-nothing, idempotent, Ragas columns) and Ragas-compatible export, over HTTP.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';

let app: TestApp;
let admin: Client;
let datasetId: number;
beforeEach(async () => {
  app = await startTestApp();
  admin = await setupAdmin(app);
  const res = await admin.post('/datasets', { name: 'Imports', language: 'zh', description: '', domain: '' });
  datasetId = Number(res.headers.get('location')!.split('/').pop());
  await admin.get(`/datasets/${datasetId}/import`);
});
afterEach(async () => { await app.close(); });

const count = () => app.ctx.samples.queries.list({ datasetId }, { limit: 1, offset: 0 }).total;

const PANDAS_CSV = [
  'user_input,retrieved_contexts,response,reference,reference_contexts,faithfulness',
  `张伟是哪个部门的？,"['牛顿发现了万有引力', '张伟 教研部工程师，他最近在负责课程研发']",张伟是教研部的,张伟是教研部的成员,"['张伟 教研部工程师', 'it\\'s ""quoted""']",1.0`,
  `Who approves leave?,[],Your manager.,The direct manager approves leave.,[],`,
].join('\n');

describe('import', () => {
  it('imports a Ragas CSV written by pandas, with Python list literals', async () => {
    const res = await admin.upload(`/datasets/${datasetId}/import`, 'results.csv', PANDAS_CSV);
    expect(res.status).toBe(200);
    expect(res.text).toContain('Imported 2 rows: 2 new samples, 0 matched existing samples.');
    const rows = app.ctx.samples.queries.batchAfter({ datasetId }, 0, 10);
    expect(rows.map((r) => r.question)).toEqual(['张伟是哪个部门的？', 'Who approves leave?']);
    expect(rows[0]!.ground_truth).toBe('张伟是教研部的成员');
    expect(JSON.parse(rows[0]!.reference_contexts)).toEqual(['张伟 教研部工程师', 'it\'s "quoted"']);
    expect(rows.every((r) => r.status === 'draft')).toBe(true);
  });

  it('imports the old Ragas column names from JSONL', async () => {
    const jsonl = [
      JSON.stringify({ question: 'Q1', ground_truth: 'A1', contexts: ['c'] }),
      '',
      JSON.stringify({ question: 'Q2', ground_truth: 'A2' }),
    ].join('\n');
    const res = await admin.upload(`/datasets/${datasetId}/import`, 'old.jsonl', jsonl);
    expect(res.status).toBe(200);
    expect(count()).toBe(2);
  });

  it('changes nothing when the same file is imported again', async () => {
    await admin.upload(`/datasets/${datasetId}/import`, 'results.csv', PANDAS_CSV);
    const events = app.ctx.audit.page({}).length;
    const res = await admin.upload(`/datasets/${datasetId}/import`, 'results.csv', PANDAS_CSV);
    expect(res.text).toContain('0 new samples, 2 matched existing samples');
    expect(count()).toBe(2);
    expect(app.ctx.samples.history(app.ctx.samples.queries.batchAfter({ datasetId }, 0, 1)[0]!.id)).toHaveLength(0);
    expect(app.ctx.audit.page({}).length).toBe(events + 1); // only the import itself is recorded
  });

  it('keeps an existing sample when a re-imported row differs, and says which rows', async () => {
    await admin.upload(`/datasets/${datasetId}/import`, 'a.jsonl', JSON.stringify({ user_input: 'Q', reference: 'old answer' }));
    const res = await admin.upload(`/datasets/${datasetId}/import`, 'b.jsonl', JSON.stringify({ user_input: 'Q', reference: 'new answer' }));
    expect(res.text).toContain('1 row matches an existing question but differs from it; the existing samples were kept. Rows: 1');
    expect(app.ctx.samples.queries.batchAfter({ datasetId }, 0, 1)[0]!.ground_truth).toBe('old answer');
  });

  it('imports nothing from a file with one bad row and names the row and the problem', async () => {
    const jsonl = [
      JSON.stringify({ user_input: 'fine 1', reference: 'a' }),
      JSON.stringify({ user_input: '', reference: 'no question' }),
      JSON.stringify({ user_input: 'fine 3', reference: 'c' }),
    ].join('\n');
    const res = await admin.upload(`/datasets/${datasetId}/import`, 'bad.jsonl', jsonl);
    expect(res.status).toBe(422);
    expect(res.text).toContain('Nothing was imported');
    expect(res.text).toMatch(/line 2: field &#39;user_input&#39; is empty|line 2: field 'user_input' is empty/);
    expect(count()).toBe(0);
    // The import's staging table is gone too.
    expect(app.ctx.db.prepare("SELECT count(*) FROM temp.sqlite_schema WHERE name LIKE 'import%'").pluck().get()).toBe(0);
  });

  it('explains a broken list literal in Chinese to a Chinese user', async () => {
    const zh = new (admin.constructor as typeof Client)(app.url, 'zh-CN');
    zh.cookie = admin.cookie;
    await zh.get(`/datasets/${datasetId}/import`);
    const csv = 'question,ground_truth,reference_contexts\nQ,A,"[\'unterminated]"\n';
    const res = await zh.upload(`/datasets/${datasetId}/import`, 'bad.csv', csv);
    expect(res.status).toBe(422);
    expect(res.text).toContain('第 2 行');
    expect(res.text).toContain('不是列表');
    expect(count()).toBe(0);
  });

  it('refuses an upload over the size limit with a clear message', async () => {
    const big = 'question,ground_truth\n' + 'q,a\n'.repeat(1_500_000); // ~6 MB against the test limit of 5 MB
    const res = await admin.upload(`/datasets/${datasetId}/import`, 'big.csv', big);
    expect(res.status).toBe(413);
    expect(res.text).toContain('too large (limit 5 MB)');
    expect(count()).toBe(0);
  });

  it('answers an upload it cannot read with 400 and a message, in the user\'s language, and logs no server error', async () => {
    const before = app.logs.length;
    // A file name holding a NUL breaks the part's header; two files where the form sends one.
    const broken = await admin.upload(`/datasets/${datasetId}/import`, 'a\u0000b.csv', 'question,ground_truth\nQ,A\n');
    expect(broken.status).toBe(400);
    expect(broken.text).toContain('The upload could not be read');
    const form = new FormData();
    form.set('_csrf', admin.csrf);
    form.append('file', new Blob(['question\nQ\n']), 'one.csv');
    form.append('file', new Blob(['question\nQ\n']), 'two.csv');
    const two = await admin.request('POST', `/datasets/${datasetId}/import`, { body: form, headers: { 'Accept-Language': 'zh-CN' } });
    expect(two.status).toBe(400);
    expect(two.text).toContain('无法读取上传内容');
    const logged = app.logs.slice(before);
    expect(logged.filter((l) => l.includes('"level":"error"'))).toEqual([]);
    expect(logged.filter((l) => l.includes('request.upload_unreadable'))).toHaveLength(2);
    expect(count()).toBe(0);
  });

  it('refuses a file of unknown type and an upload without a CSRF token', async () => {
    const res = await admin.upload(`/datasets/${datasetId}/import`, 'data.xml', '<x/>');
    expect(res.status).toBe(422);
    expect(res.text).toContain('Unknown file format');
    admin.csrf = 'forged';
    expect((await admin.upload(`/datasets/${datasetId}/import`, 'a.jsonl', '{"question":"Q"}')).status).toBe(403);
    expect(count()).toBe(0);
  });
});

describe('export', () => {
  beforeEach(async () => {
    await admin.upload(`/datasets/${datasetId}/import`, 'results.csv', PANDAS_CSV);
    const first = app.ctx.samples.queries.batchAfter({ datasetId }, 0, 1)[0]!;
    app.ctx.samples.transition(null, first.id, 1, 'submit');
    app.ctx.samples.transition(null, first.id, 2, 'approve');
  });

  it('exports approved samples as Ragas JSONL', async () => {
    const res = await admin.get(`/datasets/${datasetId}/export/download?format=ragas-jsonl&status=approved`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('attachment');
    const lines = res.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([{ user_input: '张伟是哪个部门的？', reference: '张伟是教研部的成员', reference_contexts: ['张伟 教研部工程师', 'it\'s "quoted"'] }]);
  });

  it('exports all samples as CSV whose list cells are JSON arrays, and the export imports back', async () => {
    const res = await admin.get(`/datasets/${datasetId}/export/download?format=ragas-csv&status=all`);
    expect(res.text.split('\n')[0]).toBe('user_input,reference,reference_contexts');
    const again = await admin.post('/datasets', { name: 'Round trip', language: 'zh', description: '', domain: '' });
    const otherId = Number(again.headers.get('location')!.split('/').pop());
    await admin.get(`/datasets/${otherId}/import`);
    expect((await admin.upload(`/datasets/${otherId}/import`, 'export.csv', res.text)).status).toBe(200);
    const back = app.ctx.samples.queries.batchAfter({ datasetId: otherId }, 0, 10);
    expect(back.map((r) => [r.question, r.ground_truth, JSON.parse(r.reference_contexts)])).toEqual(
      app.ctx.samples.queries.batchAfter({ datasetId }, 0, 10).map((r) => [r.question, r.ground_truth, JSON.parse(r.reference_contexts)]));
  });
});
