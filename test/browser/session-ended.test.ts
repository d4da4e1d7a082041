// An expert whose sign-in ends while an item is open (signed out in another tab, or dropped as an older
// session) loses nothing: save-and-next is refused into a notice, not into the workspace; what they
// chose and typed stays; once signed in again in another tab, the page takes the new sign-in and the
// same keys send it. In English and Chinese.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers.ts';
import { loadExampleData } from '../../server/datasets/example.ts';
import { translator } from '../../server/i18n/index.ts';
import { launchBrowser, logIn, newContext, screenshot } from './browser.ts';

const ADA = { email: 'ada@example.com', password: 'correct horse battery' };

describe('the sign-in ends while an item is open', () => {
  let app: TestApp;
  let browser: Browser;
  let datasetId: number;
  beforeAll(async () => {
    app = await startTestApp();
    browser = await launchBrowser();
    const admin = await app.ctx.users.createFirstAdmin({ ...ADA, name: 'Ada' });
    [datasetId] = (await loadExampleData(app.ctx, admin.id)) as [number];
  });
  afterAll(async () => { await browser.close(); await app.close(); });

  for (const locale of ['en', 'zh'] as const) {
    it(`keeps the choice and the rationale, and sends them once signed in again (${locale})`, async () => {
      const t = translator(locale);
      const context = await newContext(browser, { locale });
      const page = await context.newPage();
      await logIn(page, app.url, ADA, t);
      await page.goto(`${app.url}/datasets/${datasetId}/label`);
      await page.getByRole('button', { name: t('label.start') }).click();
      await page.waitForURL(/\/responses\/\d+\/label$/);
      const item = page.url();
      const rationale = `kept across sign-ins (${locale})`;

      app.ctx.db.exec('DELETE FROM session'); // signed out elsewhere
      await page.keyboard.press('1');
      await page.locator('#f-rationale').fill(rationale);
      await page.locator('#f-rationale').press('Control+Enter');
      const notice = page.locator('#session-notice');
      await notice.getByText(t('session.ended')).waitFor();
      expect(page.url()).toBe(item);
      expect(await page.locator('#f-rationale').inputValue()).toBe(rationale);
      expect(await page.locator('input[type=radio][data-key="1"]').isChecked()).toBe(true);
      expect(await notice.getByRole('link', { name: t('session.sign_in') }).getAttribute('target')).toBe('_blank');
      await screenshot(page, `session-ended-${locale}-1-refused`);
      expect(app.ctx.db.prepare('SELECT count(*) FROM annotation WHERE rationale = ?').pluck().get(rationale)).toBe(0);

      const other = await context.newPage(); // signs in again in another tab
      await logIn(other, app.url, ADA, t);
      await page.bringToFront();
      await page.evaluate(() => window.dispatchEvent(new Event('focus')));
      await notice.getByText(t('session.resumed')).waitFor();
      await screenshot(page, `session-ended-${locale}-2-resumed`);

      await page.locator('#f-rationale').press('Control+Enter');
      await page.waitForURL((u) => u.href !== item);
      await expect.poll(() => notice.textContent()).toBe('');
      expect(app.ctx.db.prepare("SELECT count(*) FROM annotation WHERE rationale = ? AND state = 'submitted'").pluck().get(rationale)).toBe(1);
      await context.close();
    }, 60_000);
  }

  for (const locale of ['en', 'zh'] as const) it(`stops asking for a run's progress while signed out, and goes on once signed in again; the notices stack (${locale})`, async () => {
    const t = translator(locale);
    const runId = app.ctx.runner.queries.insert({ dataset_id: datasetId, name: `going ${locale}`, metric_key: 'faithfulness', source: 'goldset', status: 'running',
      model: 'm', embedding_model: '', selection: '{}', concurrency: 1, n_total: 8, created_by: null, prompts: '{}' });
    const context = await newContext(browser, { locale });
    const page = await context.newPage();
    await logIn(page, app.url, ADA, t);
    let polls = 0;
    page.on('request', (r) => { if (r.url().endsWith(`/runs/${runId}/progress`)) polls++; });
    await page.goto(`${app.url}/runs/${runId}`);
    await expect.poll(() => polls, { timeout: 5_000 }).toBeGreaterThan(0);

    app.ctx.db.exec('DELETE FROM session');
    const notice = page.locator('#session-notice');
    await notice.getByText(t('session.ended_view')).waitFor(); // a read: nothing was lost
    const refused = polls;
    await page.waitForTimeout(3_500); // three more ticks of `every 1s`
    expect(polls).toBe(refused);

    // Both notices at once (a request that got no answer, and the sign-in): one above the other.
    await page.evaluate(() => { document.getElementById('request-failed')!.hidden = false; });
    const [a, b] = [await page.locator('#request-failed').boundingBox(), await notice.boundingBox()];
    expect(a!.y + a!.height).toBeLessThanOrEqual(b!.y);
    await screenshot(page, `session-ended-${locale}-3-both-notices`);

    const other = await context.newPage();
    await logIn(other, app.url, ADA, t);
    await page.bringToFront();
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await notice.getByText(t('session.resumed_view')).waitFor();
    await expect.poll(() => polls, { timeout: 5_000 }).toBeGreaterThan(refused);
    await context.close();
  }, 60_000);
});
