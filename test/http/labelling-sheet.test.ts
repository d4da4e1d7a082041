// Offline labelling sheets over HTTP and the CLI: download, fill with a script, upload back as the
// expert's drafts or submissions, and every refusal (values not allowed, identity changed, the item
// or the labels changed since, another expert's or dataset's sheet), all or nothing. Also the
// sheets saved by openpyxl and LibreOffice (fixtures from test/xlsx/fixtures/make_fixtures.sh).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, startTestApp, type TestApp } from '../helpers.ts';
import { goldsetCli } from '../cli.ts';
import { SHEET_ADMIN, SHEET_EXPERT, seedSheetDataset } from '../labelsheet/seed.ts';
import { fillSheet, readSheet, records } from '../labelsheet/sheet-helpers.ts';
import { valueKey } from '../../server/labels/service.ts';
import { xlsxPart } from '../xlsx/parts.ts';

let app: TestApp;
let expert: Client;
let ids: { datasetId: number; adminId: number; expertId: number };
const FIXTURES = path.join(import.meta.dirname, '..', 'xlsx', 'fixtures');

async function login(user: { email: string; password: string }, lang = 'en'): Promise<Client> {
  const c = new Client(app.url, lang);
  await c.get('/login');
  const res = await c.post('/login', { email: user.email, password: user.password });
  if (res.status !== 303) throw new Error(`login failed: ${res.status}`);
  await c.get('/datasets');
  return c;
}

beforeEach(async () => {
  app = await startTestApp();
  ids = await seedSheetDataset(app.ctx);
  expert = await login(SHEET_EXPERT);
});
afterEach(async () => { await app.close(); });

async function download(c: Client, query = ''): Promise<string> {
  const res = await fetch(`${app.url}/datasets/${ids.datasetId}/labelling-sheet/download${query}`, { headers: { Cookie: c.cookie } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('spreadsheetml');
  const file = path.join(app.dir, `sheet-${Math.random().toString(36).slice(2)}.xlsx`);
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

async function upload(c: Client, file: string, labelsAs: 'draft' | 'submitted' = 'submitted') {
  await c.get(`/datasets/${ids.datasetId}/import`);
  return c.upload(`/datasets/${ids.datasetId}/import`, 'sheet.xlsx', fs.readFileSync(file), { labels_as: labelsAs });
}

const criterion = (name: string) => app.ctx.criteria.queries.byName(ids.datasetId, name)!;
const mine = (responseId: number, userId = ids.expertId) => app.ctx.labels.mine(responseId, userId);
const valueOf = (responseId: number, name: string, context = -1) =>
  mine(responseId)?.labels.find((l) => l.criterion_id === criterion(name).id && l.context_index === context)?.value;

/** A filled sheet: the three items labelled as fill_labelling.py labels them. */
const FILL: Record<number, Record<string, string | number>> = {
  0: { correct: 'Yes', quality: 4, tone: '礼貌 polite', relevant_1: 'No', relevant_2: 'Yes', rationale: '张伟在教研部，第二段上下文可以证明。' },
  1: { correct: 'No', quality: 2, tone: '生硬 curt', relevant_1: 'Yes', relevant_2: 'No', rationale: '15 days is what the policy says, but it is not prorated' },
  2: { correct: 'No', quality: 1, tone: '礼貌 polite', relevant_1: 'Yes', rationale: '试用期是三个月，不是六个月。' },
};

async function filled(file: string, extra: (row: Record<string, unknown>, i: number) => void = () => {}): Promise<string> {
  const out = file.replace(/\.xlsx$/, '-filled.xlsx');
  await fillSheet(await readSheet(file), out, (row, i) => { Object.assign(row, FILL[i] ?? {}); extra(row, i); });
  return out;
}

function expectFilledLabels(state: 'draft' | 'submitted') {
  expect(mine(1)!.annotation.state).toBe(state);
  expect([valueOf(1, 'correct'), valueOf(1, 'quality'), valueOf(1, 'tone'), valueOf(1, 'relevant', 0), valueOf(1, 'relevant', 1)]).toEqual(['1', '4', 'polite', '0', '1']);
  expect(mine(1)!.annotation.rationale).toBe('张伟在教研部，第二段上下文可以证明。');
  expect([valueOf(2, 'correct'), valueOf(2, 'quality'), valueOf(2, 'tone')]).toEqual(['0', '2', 'curt']);
  expect([valueOf(3, 'correct'), valueOf(3, 'relevant', 0), valueOf(3, 'relevant', 1)]).toEqual(['0', '1', undefined]);
}

describe('labelling sheet download', () => {
  it('has the columns the issue names, drop-downs of the values as goldset shows them, and locked identity columns', async () => {
    const file = await download(expert);
    const data = await readSheet(file);
    expect(data.sheets.map((s) => s.name)).toEqual(['Labels', 'goldset']);
    expect(data.sheets[0]!.rows[0]).toEqual(['question', 'ground_truth', 'answer', 'context_1', 'context_2', 'correct', 'quality', 'tone',
      'relevant_1', 'relevant_2', 'rationale', 'response_id', 'sample_version', 'label_version', 'check']);
    const rows = records(data);
    expect(rows.map((r) => r.question)).toEqual(['张伟是哪个部门的？', 'How many days of annual leave do new employees get?', '试用期是多久？']);
    expect(rows[1]!.answer).toBe('=15 days (prorated)');
    expect(rows[2]!.context_2).toBeNull();
    expect(rows.map((r) => [r.response_id, r.sample_version, r.label_version])).toEqual([[1, 1, 0], [2, 1, 0], [3, 1, 0]]);
    const xml = await xlsxPart(file, 'xl/worksheets/sheet1.xml');
    expect(xml).toContain('<sheetProtection sheet="1"');
    expect(xml).toContain('sqref="F2:F4"><formula1>_gs_list_1</formula1>');
    expect(xml).not.toMatch(/<f[ >]/);
    // The drop-downs' values: correct, quality (numbers), tone (the options' labels), relevant_1, relevant_2.
    expect((await readHidden(file)).slice(0, 2)).toEqual([['是', 1, '礼貌 polite', '是', '是'], ['否', 2, '生硬 curt', '否', '否']]);
  });

  it('holds the expert\'s own draft and never another expert\'s labels', async () => {
    const other = await app.ctx.users.createUser(null, { email: 'wang.fang@example.com', name: '王芳', password: 'a long enough password', role: 'expert' });
    app.ctx.labels.setAssignment(ids.adminId, ids.datasetId, app.ctx.datasets.get(ids.datasetId)!.version, 2, []); // two experts per item: item 1 stays in Li Wei's queue
    const criteria = app.ctx.criteria.forDataset(ids.datasetId);
    const values = new Map([[valueKey(criterion('correct').id, -1), '0']]);
    app.ctx.labels.submit(app.ctx.users.queries.byId(other.id)!, { id: 1, dataset_id: ids.datasetId }, criteria,
      { values: new Map([...values, [valueKey(criterion('quality').id, -1), '2'], [valueKey(criterion('tone').id, -1), 'curt']]), rationale: 'WANG FANG SECRET', corrected_answer: '' }, null);
    app.ctx.labels.saveDraft(app.ctx.users.queries.byId(ids.expertId)!, { id: 2, dataset_id: ids.datasetId }, criteria,
      { values: new Map([[valueKey(criterion('tone').id, -1), 'polite']]), rationale: 'my draft', corrected_answer: '' });
    const rows = records(await readSheet(await download(expert)));
    expect(JSON.stringify(rows)).not.toContain('WANG FANG SECRET');
    expect(rows.find((r) => r.response_id === 1)!.correct).toBeNull();
    expect(rows.find((r) => r.response_id === 2)).toMatchObject({ tone: '礼貌 polite', rationale: 'my draft' });
  });

  it('lets an admin make the sheet for an expert, and refuses experts who may not label', async () => {
    const admin = await login(SHEET_ADMIN);
    const data = await readSheet(await download(admin, `?annotator=${ids.expertId}`));
    expect(data.sheets[1]!.rows.find((r) => r[0] === 'annotator')![1]).toBe(SHEET_EXPERT.email);
    app.ctx.labels.setAssignment(ids.adminId, ids.datasetId, app.ctx.datasets.get(ids.datasetId)!.version, 1, [{ userId: ids.adminId, label: true, adjudicate: false }]);
    const res = await fetch(`${app.url}/datasets/${ids.datasetId}/labelling-sheet/download`, { headers: { Cookie: expert.cookie } });
    expect(res.status).toBe(403);
  });
});

describe('labelling sheet upload', () => {
  it('stores the filled sheet as the expert\'s submitted labels', async () => {
    const res = await upload(expert, await filled(await download(expert)), 'submitted');
    expect(res.status).toBe(200);
    expect(res.text).toContain('saved the labels of 3 items as submitted');
    expectFilledLabels('submitted');
    expect(app.ctx.audit.page({}).some((e) => e.entity_type === 'labelling_sheet' && e.action === 'upload')).toBe(true);
  });

  it('stores them as drafts when asked, and a second upload of the same sheet changes nothing', async () => {
    const file = await filled(await download(expert));
    expect((await upload(expert, file, 'draft')).text).toContain('saved the labels of 3 items as drafts');
    expectFilledLabels('draft');
    const again = await upload(expert, file, 'draft');
    expect(again.text).toContain('saved the labels of 0 items as drafts; 3 unchanged');
  });

  it('refuses values a criterion does not allow, naming the sheet row and column, and saves nothing', async () => {
    const file = await filled(await download(expert), (row, i) => { if (i === 1) row.quality = 7; if (i === 2) row.tone = 'rude'; });
    const res = await upload(expert, file);
    expect(res.status).toBe(422);
    expect(res.text).toContain('Row 3, column quality: &quot;7&quot; is not allowed; pick one of: 1, 2, 3, 4, 5.');
    expect(res.text).toContain('Row 4, column tone: &quot;rude&quot; is not allowed; pick one of: 礼貌 polite, 生硬 curt.');
    expect(mine(1)).toBeNull();
  });

  it('refuses a sheet whose identity columns were changed', async () => {
    const res = await upload(expert, await filled(await download(expert), (row, i) => { if (i === 0) row.response_id = 2; }));
    expect(res.status).toBe(422);
    expect(res.text).toContain('Row 2: the grey identity columns were changed.');
    expect(mine(2)).toBeNull();
  });

  it('refuses rows whose item was edited since the sheet was made', async () => {
    const file = await filled(await download(expert));
    const sample = app.ctx.samples.queries.batchAfter({ datasetId: ids.datasetId }, 0, 1)[0]!;
    app.ctx.samples.update(ids.adminId, sample.id, sample.version, { question: sample.question, ground_truth: '张伟是教研部的工程师。',
      reference_contexts: [], tags: [], source: '', notes: '' });
    const res = await upload(expert, file);
    expect(res.status).toBe(422);
    expect(res.text).toContain('Row 2: the question or ground truth was edited since the sheet was made; download a new sheet.');
    expect(mine(2)).toBeNull();
  });

  it('refuses rows whose labels were submitted elsewhere since the sheet was made', async () => {
    const file = await filled(await download(expert));
    app.ctx.labels.submit(app.ctx.users.queries.byId(ids.expertId)!, { id: 3, dataset_id: ids.datasetId }, app.ctx.criteria.forDataset(ids.datasetId),
      { values: new Map([[valueKey(criterion('correct').id, -1), '1'], [valueKey(criterion('quality').id, -1), '5'], [valueKey(criterion('tone').id, -1), 'polite']]),
        rationale: 'in the web', corrected_answer: '' }, null);
    const res = await upload(expert, file);
    expect(res.status).toBe(422);
    expect(res.text).toContain('Row 4: the labels of this item were changed since the sheet was made');
    expect(mine(3)!.annotation.rationale).toBe('in the web');
    expect(mine(1)).toBeNull();
  });

  it('refuses another expert\'s sheet and another dataset\'s', async () => {
    const file = await filled(await download(expert));
    await app.ctx.users.createUser(null, { email: 'wang.fang@example.com', name: '王芳', password: 'a long enough password', role: 'expert' });
    const other = await login({ email: 'wang.fang@example.com', password: 'a long enough password' });
    expect((await upload(other, file)).text).toContain('This sheet was made for li.wei@example.com; upload it as that expert.');
    const second = app.ctx.datasets.create(ids.adminId, { name: 'Other', description: '', language: 'en', domain: '' });
    await expert.get(`/datasets/${second.id}/import`);
    const res = await expert.upload(`/datasets/${second.id}/import`, 'sheet.xlsx', fs.readFileSync(file), { labels_as: 'submitted' });
    expect(res.text).toContain('This sheet was made for another dataset (客服问答 / Support answers).');
    expect(mine(1)).toBeNull();
  });

  it('refuses a value for a context the answer does not have, and a submission with a criterion left empty', async () => {
    const file = await filled(await download(expert), (row, i) => { if (i === 2) row.relevant_2 = 'Yes'; if (i === 1) row.tone = null; });
    const res = await upload(expert, file);
    expect(res.text).toContain('Row 4, column relevant_2: this answer has only 1 context.');
    const second = await filled(await download(expert), (row, i) => { if (i === 1) row.tone = null; });
    const missing = await upload(expert, second);
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('Row 3: to submit, every criterion needs a value (tone has none).');
    expect(mine(1)).toBeNull();
  });

  for (const program of ['openpyxl', 'libreoffice']) {
    it(`accepts the sheet filled and saved by ${program}`, async () => {
      const file = path.join(FIXTURES, `labelling-${program}.xlsx`);
      const xml = await xlsxPart(file, 'xl/worksheets/sheet1.xml');
      expect(xml).toMatch(/<sheetProtection [^>]*sheet="(1|true)"/);
      expect((xml.match(/<dataValidation /g) ?? []).length).toBe(5);
      expect(await xlsxPart(file, 'xl/styles.xml')).toMatch(/<protection locked="(0|false)"/);
      const res = await upload(expert, file, 'submitted');
      expect(res.text).toContain('saved the labels of 3 items as submitted');
      expectFilledLabels('submitted');
    });
  }
});

describe('labelling sheet CLI', () => {
  it('writes an expert\'s sheet and imports it back with --submit', async () => {
    const run = async (...args: string[]) => (await goldsetCli(args, { env: { GOLDSET_DB: path.join(app.dir, 'test.db'), GOLDSET_LOG_LEVEL: 'silent' } })).json();
    const file = path.join(app.dir, 'cli-sheet.xlsx');
    expect(await run('labelling-sheet', '--dataset', '客服问答 / Support answers', '--annotator', SHEET_EXPERT.email, '--out', file, '--json')).toMatchObject({ items: 3 });
    const out = await run('import', await filled(file), '--dataset', '客服问答 / Support answers', '--annotator', SHEET_EXPERT.email, '--submit', '--json');
    expect(out).toMatchObject({ ok: true, labelling_sheet: true, saved: 3, state: 'submitted' });
    expectFilledLabels('submitted');
  });
});

async function readHidden(file: string) {
  const { Workbook } = await import('../../server/xlsx/read.ts');
  const book = await Workbook.open(file);
  const rows: unknown[][] = [];
  for await (const batch of book.rows(book.sheets.find((s) => s.hidden)!)) for (const r of batch) rows.push(r.cells);
  book.close();
  return rows;
}

