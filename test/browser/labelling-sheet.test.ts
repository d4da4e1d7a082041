// The offline labelling sheet in a real browser, in English and in Chinese: an expert opens the
// labelling page, follows the link to the spreadsheet, downloads their queue, fills it with a script
// (goldset's own XLSX library, as a colleague's script would), uploads it on the Import page as
// submitted labels, and sees them in the workspace. Screenshots land in screenshots/.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers.ts';
import { translator } from '../../server/i18n/index.ts';
import { SHEET_EXPERT, seedSheetDataset } from '../labelsheet/seed.ts';
import { fillSheet, readSheet, records } from '../labelsheet/sheet-helpers.ts';
import { SHEET_ADMIN } from '../labelsheet/seed.ts';
import { axeViolations, launchBrowser, newContext, screenshot, stopAtFirstFailure } from './browser.ts';

const CHINESE_EXPERT = { email: 'wang.fang@example.com', name: '王芳', password: 'yet another long password' };

describe('offline labelling sheet', () => {
  let app: TestApp;
  let browser: Browser;
  const pages: Page[] = [];
  const errors: string[] = [];
  let ids: { datasetId: number; adminId: number; expertId: number };
  let wangId = 0;

  beforeAll(async () => {
    app = await startTestApp();
    ids = await seedSheetDataset(app.ctx);
    wangId = (await app.ctx.users.createUser(null, { ...CHINESE_EXPERT, role: 'expert' })).id;
    app.ctx.labels.setAssignment(ids.adminId, ids.datasetId, app.ctx.datasets.get(ids.datasetId)!.version, 2, []); // two experts per item: both get every item
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });
  stopAtFirstFailure('labelling-sheet', () => pages, () => app.logs);

  for (const [locale, user, lang] of [['en-US', SHEET_EXPERT, 'en'], ['zh-CN', CHINESE_EXPERT, 'zh']] as const) {
    const t = translator(lang);
    it(`downloads, fills with a script and uploads a sheet, and shows the labels (${lang})`, async () => {
      const page = await (await newContext(browser, { locale })).newPage();
      pages.push(page);
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      await page.goto(`${app.url}/login`);
      await page.getByLabel(t('field.email')).fill(user.email);
      await page.getByLabel(t('field.password')).fill(user.password);
      await page.getByRole('button', { name: t('login.submit') }).click();
      await page.waitForURL('**/datasets');

      await page.goto(`${app.url}/datasets/${ids.datasetId}/label`);
      await page.getByRole('link', { name: t('sheet.link') }).click();
      await page.getByRole('heading', { name: t('sheet.title') }).waitFor();
      await screenshot(page, `labelling-sheet-download-${lang}`);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: t('sheet.download') }).click()]);
      const file = path.join(app.dir, `downloaded-${lang}.xlsx`);
      await download.saveAs(file);

      const sheet = await readSheet(file);
      expect(sheet.sheets[0]!.name).toBe(t('sheet.labels_sheet'));
      const rows = records(sheet);
      expect(rows).toHaveLength(3);
      const filled = path.join(app.dir, `filled-${lang}.xlsx`);
      const good = lang === 'en';
      await fillSheet(sheet, filled, (row) => {
        Object.assign(row, { correct: good ? 'Yes' : 'No', quality: good ? 5 : 2, tone: '礼貌 polite', relevant_1: 'Yes', rationale: good ? 'Checked against the handbook.' : '与员工手册不一致。' });
        if (row.context_2 !== null) row.relevant_2 = 'No';
      });

      await page.getByRole('link', { name: t('action.import') }).click();
      await page.getByLabel(t('import.file')).setInputFiles(filled);
      await page.getByLabel(t('sheet.as_submitted')).check();
      await screenshot(page, `labelling-sheet-upload-${lang}`);
      await page.getByRole('button', { name: t('import.submit') }).click();
      const result = page.locator('#import-result');
      await result.waitFor();
      expect(await result.textContent()).toContain(t('sheet.done', { saved: 3, state: t('sheet.state_submitted'), unchanged: 0, empty: 0 }));
      await screenshot(page, `labelling-sheet-uploaded-${lang}`);

      const userId = lang === 'en' ? ids.expertId : wangId;
      for (const responseId of [1, 2, 3]) expect(app.ctx.labels.mine(responseId, userId)!.annotation.state).toBe('submitted');
      await page.goto(`${app.url}/responses/1/label`);
      const ws = page.locator('#workspace[data-response="1"]');
      await ws.getByText(t('label.submitted'), { exact: true }).waitFor();
      const correct = app.ctx.criteria.queries.byName(ids.datasetId, 'correct')!;
      expect(await ws.locator(`fieldset[data-criterion="${correct.id}"] input:checked`).getAttribute('value')).toBe(good ? '1' : '0');
      expect(await ws.locator('textarea[name="rationale"]').inputValue()).toBe(good ? 'Checked against the handbook.' : '与员工手册不一致。');
      await screenshot(page, `labelling-sheet-labels-${lang}`);
      expect(errors).toEqual([]);
      fs.rmSync(file, { force: true });
    });
  }

  for (const [locale, lang] of [['en-US', 'en'], ['zh-CN', 'zh']] as const) {
    const t = translator(lang);
    it(`releases the approved samples from the releases page and compares with now; no axe violations on these pages (${lang})`, async () => {
      if (lang === 'en') app.ctx.db.prepare("UPDATE sample SET status = 'approved' WHERE dataset_id = ?").run(ids.datasetId);
      // axe is injected as a script, which the app's CSP forbids: this context bypasses the CSP.
      const context = await browser.newContext({ locale, bypassCSP: true, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      pages.push(page);
      await page.goto(`${app.url}/login`);
      await page.getByLabel(t('field.email')).fill(SHEET_ADMIN.email);
      await page.getByLabel(t('field.password')).fill(SHEET_ADMIN.password);
      await page.getByRole('button', { name: t('login.submit') }).click();
      await page.waitForURL('**/datasets');
      const violations: string[] = [];
      const axe = async () => { violations.push(...await axeViolations(page)); };
      await page.goto(`${app.url}/datasets/${ids.datasetId}/releases`);
      await page.getByLabel(t('release.tag')).fill(`2026-12-hr-${lang}`);
      await page.getByLabel(t('release.note')).fill(lang === 'en' ? 'First curated set for CI' : '第一版，供 CI 使用');
      await axe();
      await page.getByRole('button', { name: t('release.create', { n: 3 }) }).click();
      await page.waitForURL(`**/releases/2026-12-hr-${lang}`);
      const release = app.ctx.releases.byTag(ids.datasetId, `2026-12-hr-${lang}`)!;
      expect(await page.locator('#release-hash').textContent()).toBe(release.hash);
      await screenshot(page, `release-page-${lang}`);
      await axe();
      await page.goto(`${app.url}/datasets/${ids.datasetId}/releases`);
      await screenshot(page, `releases-${lang}`);
      await page.goto(`${app.url}/datasets/${ids.datasetId}/releases/2026-12-hr-${lang}`);
      await page.getByRole('button', { name: t('release.compare_submit') }).click();
      await page.locator('#diff-summary').waitFor();
      expect(await page.locator('#diff-summary').textContent()).toContain(t('diff.summary', { added: 0, removed: 0, changed: 0, unchanged: 3 }));
      await axe();
      for (const path of [`/datasets/${ids.datasetId}/labelling-sheet`, `/datasets/${ids.datasetId}/import`, `/datasets/${ids.datasetId}/export`]) {
        await page.goto(app.url + path);
        await axe();
      }
      expect(violations).toEqual([]);
      await context.close();
    });
  }
});
