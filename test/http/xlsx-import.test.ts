// XLSX import and export over HTTP: a workbook accepts what a CSV file does (Ragas columns, list
// cells as JSON or Python literals, human.<criterion> labels, score columns), the first sheet or a
// named one, all or nothing with the sheet row in errors; the XLSX export imports back unchanged.
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';
import { XlsxWriter, type CellValue } from '../../server/xlsx/write.ts';
import { xlsxPart } from '../xlsx/parts.ts';

let app: TestApp;
let admin: Client;
let datasetId: number;

beforeEach(async () => {
  app = await startTestApp();
  admin = await setupAdmin(app);
  datasetId = app.ctx.datasets.create(null, { name: 'Sheets', description: '', language: 'zh', domain: '' }).id;
  await admin.get(`/datasets/${datasetId}/import`);
});
afterEach(async () => { await app.close(); });

async function workbook(sheets: { name: string; rows: CellValue[][] }[]): Promise<Buffer> {
  const file = path.join(app.dir, `wb-${Math.random().toString(36).slice(2)}.xlsx`);
  const w = new XlsxWriter(fs.createWriteStream(file), { mtime: new Date() });
  for (const s of sheets) {
    await w.startSheet({ name: s.name, columns: s.rows[0]!.map((h) => ({ header: String(h), style: 'text' as const })) });
    for (const r of s.rows.slice(1)) await w.row(r);
    await w.endSheet();
  }
  await w.finish();
  return fs.readFileSync(file);
}

const RAGAS: CellValue[][] = [
  ['user_input', 'retrieved_contexts', 'response', 'reference', 'reference_contexts', 'system', 'tags', 'human.correct', 'faithfulness'],
  ['张伟是哪个部门的？', "['牛顿发现了万有引力', '张伟 教研部工程师，他最近在负责课程研发']", '张伟是教研部的', '张伟是教研部的成员', '["张伟 教研部工程师", "it\'s \\"quoted\\""]', 'rag-v1', 'hr，人员', '正确', 1],
  ['Who approves leave?', '[]', 'Your manager.', 'The direct manager approves leave.', null, 'rag-v1', null, 'no', 0.25],
  [null, null, null, null, null, null, null, null, null],
  ['=1+1 looks like a formula', null, '-2 is not a formula either', '@me', null, null, null, null, null],
];

describe('XLSX import', () => {
  it('imports Ragas columns, Python and JSON list cells, labels and scores from the first sheet', async () => {
    const res = await admin.upload(`/datasets/${datasetId}/import`, 'results.xlsx', await workbook([{ name: 'Results', rows: RAGAS }]), { run: 'ragas' });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(res.text).toContain('Imported 3 rows: 3 new samples');
    const rows = app.ctx.samples.queries.batchAfter({ datasetId }, 0, 10);
    expect(rows.map((r) => r.question)).toEqual(['张伟是哪个部门的？', 'Who approves leave?', '=1+1 looks like a formula']);
    expect(JSON.parse(rows[0]!.reference_contexts)).toEqual(['张伟 教研部工程师', 'it\'s "quoted"']);
    expect(JSON.parse(rows[0]!.tags)).toEqual(['hr', '人员']);
    expect(rows[2]!.ground_truth).toBe('@me');
    const response = app.ctx.responses.forSample(rows[0]!.id)[0]!;
    expect(JSON.parse(response.retrieved_contexts)).toEqual(['牛顿发现了万有引力', '张伟 教研部工程师，他最近在负责课程研发']);
    expect(app.ctx.labels.mine(response.id, app.ctx.users.queries.byEmail('admin@example.com')!.id)!.labels[0]!.value).toBe('1');
    const run = app.ctx.runner.queries.byName(datasetId, 'ragas', 'faithfulness')!;
    expect(app.ctx.runner.queries.summary(run.id)).toMatchObject({ scored: 2, mean: 0.625 });
  });

  it('reads the sheet named in the form, and names the sheets when there is none by that name', async () => {
    const book = await workbook([{ name: 'Notes', rows: [['note'], ['not data']] }, { name: '评测集', rows: [['question', 'ground_truth'], ['Q1', 'A1']] }]);
    const missing = await admin.upload(`/datasets/${datasetId}/import`, 'book.xlsx', book, { sheet: 'Data' });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain("the workbook has no sheet named 'Data'; its sheets: 'Notes', '评测集'");
    const first = await admin.upload(`/datasets/${datasetId}/import`, 'book.xlsx', book);
    expect(first.text).toContain('no question column');
    const named = await admin.upload(`/datasets/${datasetId}/import`, 'book.xlsx', book, { sheet: '评测集' });
    expect(named.status).toBe(200);
    expect(app.ctx.samples.queries.batchAfter({ datasetId }, 0, 10).map((r) => r.question)).toEqual(['Q1']);
  });

  it('imports nothing when a row is bad, and names the row as the spreadsheet numbers it', async () => {
    const rows: CellValue[][] = [['question', 'answer', 'contexts'], ['Q1', 'A', '[]'], [null, null, null], ['Q3', 'A', "['unterminated"], ['', 'no question', null]];
    const res = await admin.upload(`/datasets/${datasetId}/import`, 'bad.xlsx', await workbook([{ name: 'S', rows }]));
    expect(res.status).toBe(422);
    expect(res.text).toContain("row 4: column 'contexts' is not a list");
    expect(res.text).toContain("row 5: column 'question' is empty");
    expect(app.ctx.samples.queries.batchAfter({ datasetId }, 0, 10)).toHaveLength(0);
  });

  it('says what to do with a file that is not a workbook, in Chinese too', async () => {
    const res = await admin.upload(`/datasets/${datasetId}/import`, 'renamed.xlsx', 'question,answer\nQ,A\n');
    expect(res.status).toBe(422);
    expect(res.text).toContain('cannot read the workbook');
    await admin.post('/locale', { locale: 'zh', back: `/datasets/${datasetId}/import` });
    await admin.get(`/datasets/${datasetId}/import`);
    expect((await admin.upload(`/datasets/${datasetId}/import`, 'renamed.xlsx', 'question,answer\nQ,A\n')).text).toContain('无法读取该工作簿');
  });
});

describe('XLSX export', () => {
  it('exports typed cells with a frozen header and imports back unchanged: Chinese, 20,000-character cells (the limit of a ground truth), lists, empty cells', async () => {
    const long = '长'.repeat(20_000);
    const rows: CellValue[][] = [['question', 'ground_truth', 'reference_contexts'], ['张伟是哪个部门的？', long, '["a", "b\'s"]'], ['+1 = 2', null, null]];
    await admin.upload(`/datasets/${datasetId}/import`, 'in.xlsx', await workbook([{ name: 'S', rows }]));
    const res = await fetch(`${app.url}/datasets/${datasetId}/export/download?format=xlsx&status=all`, { headers: { Cookie: admin.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('spreadsheetml.sheet');
    const file = path.join(app.dir, 'out.xlsx');
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const sheet = await xlsxPart(file, 'xl/worksheets/sheet1.xml');
    expect(sheet).toContain('state="frozen"');
    expect(sheet).not.toMatch(/<f[ >]/);
    const other = app.ctx.datasets.create(null, { name: 'Back', description: '', language: 'zh', domain: '' }).id;
    await admin.get(`/datasets/${other}/import`);
    const back = await admin.upload(`/datasets/${other}/import`, 'out.xlsx', fs.readFileSync(file));
    expect(back.status).toBe(200);
    const got = app.ctx.samples.queries.batchAfter({ datasetId: other }, 0, 10);
    expect(got.map((r) => [r.question, r.ground_truth, JSON.parse(r.reference_contexts)])).toEqual([['张伟是哪个部门的？', long, ['a', "b's"]], ['+1 = 2', '', []]]);
  });

  it('refuses, before sending anything, an export with a text longer than a cell holds', async () => {
    // An answer may be longer (server/limits.ts) than the 32,767 characters a spreadsheet cell holds.
    const res0 = await admin.upload(`/datasets/${datasetId}/import`, 'long.jsonl', JSON.stringify({ question: 'Q', answer: 'x'.repeat(40_000) }));
    expect(res0.status).toBe(200);
    const res = await admin.get(`/datasets/${datasetId}/export/download?format=xlsx&status=all&responses=1`);
    expect(res.status).toBe(422);
    expect(res.text).toContain('has 40000');
  });

  it('refuses, before sending anything, an export of more records than a sheet has rows', async () => {
    // 1,048,576 rows in a sheet, one of them the header: one sample more than fits, written straight into the
    // table from another thread (the seconds it takes must not hold the server's event loop and its sockets).
    await new Promise((resolve, reject) => {
      const insert = new Worker(`const { workerData: w } = require('node:worker_threads');
        new (require('better-sqlite3'))(w.file).prepare(\`INSERT INTO sample (dataset_id, question_key, question, ground_truth, reference_contexts, tags)
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1048576) SELECT ?, 'k' || i, 'q' || i, '', '[]', '[]' FROM n\`).run(w.datasetId);`,
      { eval: true, workerData: { file: path.join(app.dir, 'test.db'), datasetId } });
      insert.on('error', reject).on('exit', resolve);
    });
    const res = await admin.get(`/datasets/${datasetId}/export/download?format=xlsx&status=all`, { 'Accept-Language': 'zh' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('电子表格在表头之下最多容纳 1,048,575 行');
    app.ctx.db.prepare('DELETE FROM sample WHERE dataset_id = ? AND id = (SELECT max(id) FROM sample WHERE dataset_id = ?)').run(datasetId, datasetId);
    const fits = await admin.get(`/datasets/${datasetId}/export/download?format=xlsx&status=all&responses=1`);
    expect(fits.status).toBe(200); // no responses: a sheet with its header alone
  });
});
