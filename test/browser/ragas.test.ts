// The Ragas round trip in a real browser: an admin imports Ragas's results (no system column, one
// extra score column named on the Import page) and sees them matched to the labelled answers; on the
// Metrics page sees which prompt versions each calibration is about, downloads the prompts for Ragas
// as a zip, and switches answer_relevancy to Ragas ≤0.3's rule; in the prompt lab adds the judge's own
// output as a few-shot example of a step labels cannot decide. Then the same pages in Chinese.
// Screenshots land in screenshots/ for a human to look at.
import fs from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { startTestApp, type TestApp } from '../helpers.ts';
import { translator } from '../../server/i18n/index.ts';
import { axeViolations, launchBrowser, newContext, screenshot, SCREENSHOT_DIR, stopAtFirstFailure, logIn } from './browser.ts';

const en = translator('en');
const zh = translator('zh');
const ADMIN = { email: 'ada@example.com', name: 'Ada Admin', password: 'correct horse battery' };
const N = 12;
const ROWS = Array.from({ length: N }, (_, i) => ({
  user_input: `张伟是哪个部门的？（第 ${i + 1} 问）`, response: i % 3 ? `张伟是教研部的工程师（${i + 1}）` : `张伟是人事部的（${i + 1}）`,
  reference: '张伟是教研部的成员', retrieved_contexts: ['张伟 教研部工程师，他最近在负责课程研发', `无关段落 ${i + 1}`],
  system: i % 2 ? 'rag-v1' : 'rag-v2', 'human.correct': i % 3 ? 'yes' : 'no',
}));

let fake: FakeOpenAI;
let app: TestApp;
let browser: Browser;
let datasetId: number;
const pages: Page[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAI();
  app = await startTestApp({ OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'k', GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' });
  const { ctx } = app;
  const admin = await ctx.users.createFirstAdmin(ADMIN);
  datasetId = ctx.datasets.create(admin.id, { name: 'HR 问答', description: '', language: 'zh', domain: 'HR' }).id;
  const file = path.join(app.dir, 'labels.jsonl');
  fs.writeFileSync(file, ROWS.map((r) => JSON.stringify(r)).join('\n'));
  expect((await ctx.imports.importFile(admin.id, datasetId, file, { format: 'jsonl', annotatorId: admin.id })).ok).toBe(true);
  // The judge scored the answers with the built-in prompts, and that run's report was recorded.
  const run = ctx.runner.create(admin.id, datasetId, { name: 'defaults', metricKey: 'faithfulness' });
  await ctx.runner.start(run.id);
  const input = { criterion: ctx.criteria.forDataset(datasetId)[0]!, run: ctx.runner.queries.byId(run.id)!, part: 'all' as const, holdoutSeed: 1 };
  const { report, pairs } = ctx.calibration.report({ ...input, resamples: 50 });
  ctx.calibration.record(admin.id, input, report, pairs.map((p) => p.id));
  browser = await launchBrowser();
});
afterAll(async () => { await browser?.close(); await app?.close(); await fake?.close(); });

/** What Ragas writes back: its own fields and score columns, no system, no human.* labels (pandas to_csv). */
function ragasResults(): string {
  const py = (xs: string[]) => `[${xs.map((x) => `'${x}'`).join(', ')}]`;
  const cell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return 'user_input,retrieved_contexts,response,reference,faithfulness,clarity\n'
    + ROWS.map((r, i) => [r.user_input, py(r.retrieved_contexts), r.response, r.reference, i % 3 ? '1.0' : '0.25', String(1 + (i % 5))].map(cell).join(',')).join('\n') + '\n';
}

describe('Ragas round trip in the browser', () => {
  let page: Page;
  stopAtFirstFailure('ragas', () => pages, () => app.logs);

  it('imports Ragas results without a system column, with another score column named on the page', async () => {
    const context = await newContext(browser);
    page = await context.newPage();
    pages.push(page);
    await logIn(page, app.url, ADMIN, en);
    await page.goto(`${app.url}/datasets/${datasetId}/import`);
    const file = path.join(app.dir, 'results.csv');
    fs.writeFileSync(file, ragasResults());
    await page.locator('#f-file').setInputFiles(file);
    await page.getByLabel(en('import.run_name')).fill('ragas-1');
    await page.getByLabel(en('ragas.import_score_columns')).fill('clarity');
    await page.getByLabel(en('ragas.import_score_columns')).press('Enter');
    await page.locator('#import-result').waitFor();
    await expect.poll(() => page.locator('#import-result').textContent()).toContain(en('ragas.import_matched_without_system', { n: N }));
    expect(await page.locator('#import-result').textContent()).toContain('clarity');
    expect(app.ctx.db.prepare('SELECT count(*) FROM response WHERE dataset_id = ?').pluck().get(datasetId)).toBe(N);
    await screenshot(page, 'ragas-import-en');
  });

  it('shows which prompt versions each calibration is about, and downloads the prompts for Ragas as a zip', async () => {
    await page.goto(`${app.url}/datasets/${datasetId}/metrics`);
    const faithfulness = page.locator('#m-faithfulness');
    await faithfulness.locator('summary').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => faithfulness.getAttribute('open')).not.toBeNull();
    const row = faithfulness.locator('.ragas-export tbody tr').first();
    expect(await row.textContent()).toContain('statements default · nli default');
    expect(await row.textContent()).toContain(en('ragas.cal_current_yes'));
    await faithfulness.getByLabel(en('ragas.export_version')).selectOption('0');
    const download = page.waitForEvent('download');
    await faithfulness.getByRole('button', { name: en('ragas.export_download') }).click();
    const zip = await download;
    expect(zip.suggestedFilename()).toBe('faithfulness-prompts-chinese.zip');
    const files = unzipSync(new Uint8Array(fs.readFileSync(await zip.path())));
    expect(Object.keys(files).sort()).toEqual(['faithfulness_n_l_i_statement_prompt_chinese.json', 'faithfulness_statement_generator_prompt_chinese.json', 'goldset-calibration.json']);
    await faithfulness.locator('.ragas-export').screenshot({ path: path.join(SCREENSHOT_DIR, 'ragas-metrics-export-en.png') });
    await screenshot(page, 'ragas-metrics-en');
  });

  it("switches answer_relevancy to Ragas ≤0.3's rule with the keyboard", async () => {
    const relevancy = page.locator('#m-answer_relevancy');
    await relevancy.locator('summary').click();
    const select = relevancy.getByLabel(en('ragas.setting_noncommittal'));
    await select.selectOption('any');
    await relevancy.getByRole('button', { name: en('ragas.settings_save') }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL('**/metrics#m-answer_relevancy');
    expect(await page.locator('body').textContent()).toContain(en('ragas.settings_saved'));
    expect(app.ctx.metricSettings.get(datasetId, 'answer_relevancy').settings).toEqual({ noncommittal: 'any' });
  });

  it("adds the judge's own output as an example of a step labels cannot decide", async () => {
    const criterion = app.ctx.criteria.forDataset(datasetId)[0]!;
    await page.goto(`${app.url}/datasets/${datasetId}/prompt-lab?metric=faithfulness&step=nli&criterion=${criterion.id}`);
    expect(await page.getByRole('button', { name: en('lab.add_from_label') }).count()).toBe(0);
    await page.getByRole('button', { name: en('lab.add_from_trace') }).first().click();
    await page.waitForLoadState('load');
    const examples = JSON.parse(await page.locator('#d-examples').inputValue()) as { input: { statements: string[] }; output: { statements: unknown[] }; response_id?: number }[];
    const added = examples.at(-1)!;
    expect(added.response_id).toEqual(expect.any(Number));
    expect(added.output.statements.length).toBe(added.input.statements.length);
    await screenshot(page, 'ragas-prompt-lab-en');
  });

  it('has no axe violations on the pages it touched, its sections open (axe in a context that bypasses the CSP, with the admin\'s session)', async () => {
    const axeContext = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
    await axeContext.addCookies(await page.context().cookies());
    const axePage = await axeContext.newPage();
    const violations: string[] = [];
    const criterion = app.ctx.criteria.forDataset(datasetId)[0]!;
    for (const url of [`/datasets/${datasetId}/metrics`, `/datasets/${datasetId}/import`, `/datasets/${datasetId}/export`,
      `/datasets/${datasetId}/prompt-lab?metric=faithfulness&step=nli&criterion=${criterion.id}`]) {
      await axePage.goto(app.url + url);
      await axePage.evaluate(() => { document.querySelectorAll("details").forEach((d) => { d.open = true; }); });
      violations.push(...await axeViolations(axePage, url));
    }
    await axeContext.close();
    expect(violations).toEqual([]);
  });

  it('reads the same in Chinese', async () => {
    const context = await newContext(browser, { locale: 'zh-CN' });
    const zhPage = await context.newPage();
    pages.push(zhPage);
    await logIn(zhPage, app.url, ADMIN, zh);
    await zhPage.goto(`${app.url}/datasets/${datasetId}/metrics`);
    const faithfulness = zhPage.locator('#m-faithfulness');
    await faithfulness.locator('summary').click();
    expect(await faithfulness.textContent()).toContain(zh('ragas.export_download'));
    await faithfulness.locator('.ragas-export').screenshot({ path: path.join(SCREENSHOT_DIR, 'ragas-metrics-export-zh.png') });
    await zhPage.locator('#m-answer_relevancy summary').click();
    await zhPage.locator('#m-answer_relevancy .metric-settings').screenshot({ path: path.join(SCREENSHOT_DIR, 'ragas-metric-settings-zh.png') });
    await screenshot(zhPage, 'ragas-metrics-zh');
    await zhPage.goto(`${app.url}/datasets/${datasetId}/import`);
    expect(await zhPage.getByLabel(zh('ragas.import_score_columns')).count()).toBe(1);
    await screenshot(zhPage, 'ragas-import-zh');
  });
});
