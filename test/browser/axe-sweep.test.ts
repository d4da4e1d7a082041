// The pages the flow tests do not check with axe, checked in English and in Chinese on the example
// datasets (samples in every review state, two experts' labels, a judge run, a release): dataset
// settings, assignment, a sample, a response, the labelling start page and history, the Metrics page,
// a judge audit item, releases, API tokens, the first-run setup, sign-in, invitation and error pages,
// and the per-context pages (contexts.test.ts checks those in English only). firsthour.test.ts checks
// the main flow's pages in both languages. Each must answer 200
// (an error page its own status) with zero violations. axe is an injected script, so these contexts
// bypass the CSP (see browser.ts). Each page is also checked for broken layout (text boxes hiding a short text, table cells not laid out as cells).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers.ts';
import { translator } from '../../server/i18n/index.ts';
import { loadExampleData } from '../../server/datasets/example.ts';
import { axeViolations, layoutProblems, launchBrowser, logIn } from './browser.ts';

const ADMIN = { email: 'ada@example.com', name: 'Ada Admin', password: 'correct horse battery' };

describe('axe on every page, in English and Chinese', () => {
  let app: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** The pages of the example dataset in each language, by name. */
  const pages: Record<'en' | 'zh', [string, string][]> = { en: [], zh: [] };

  beforeAll(async () => {
    app = await startTestApp();
    const { ctx } = app;
    const admin = await ctx.users.createFirstAdmin(ADMIN);
    const created = await loadExampleData(ctx, admin.id);
    browser = await launchBrowser();
    for (const datasetId of created) {
      const dataset = ctx.datasets.get(datasetId)!;
      const lang = dataset.language;
      const one = <T>(sql: string, ...params: unknown[]) => ctx.db.prepare(sql).pluck().get(...params) as T;
      const run = ctx.runner.queries.forDataset(datasetId)[0]!;
      const scored = one<number>('SELECT response_id FROM score WHERE run_id = ? ORDER BY response_id LIMIT 1', run.id);
      const sample = one<number>('SELECT id FROM sample WHERE dataset_id = ? ORDER BY id LIMIT 1', datasetId);
      const response = one<number>('SELECT id FROM response WHERE dataset_id = ? ORDER BY id LIMIT 1', datasetId);
      const relevant = ctx.criteria.queries.byName(datasetId, 'relevant')!.id;
      const tag = `first-${lang}`;
      ctx.releases.create({ id: admin.id, email: admin.email }, dataset, { tag, note: '', responses: true });
      const d = `/datasets/${datasetId}`;
      // The pages no flow test checks with axe in both languages (firsthour.test.ts checks the others in both).
      pages[lang] = [
        ['settings', `${d}/settings`], ['criteria', `${d}/criteria`], ['judge settings', '/settings/judge'], ['assignment', `${d}/assignment`], ['sample', `/samples/${sample}`], ['response', `/responses/${response}`],
        ['labelling start', `${d}/label`], ['labelling history', `${d}/label/history`], ['metrics', `${d}/metrics`],
        ['judge audit item', `/runs/${run.id}/review/${scored}`], ['releases', `${d}/releases`], ['release', `${d}/releases/${tag}`], ['tokens', '/tokens'],
        // The per-context pages (contexts.test.ts checks them with axe in English only).
        ['per-context calibration', `${d}/calibration/contexts?part=all`], ['context audit', `/runs/${run.id}/review/contexts`],
        ['context under review', `/runs/${run.id}/review/contexts/${scored}/1`], ['per-context comparison', `${d}/compare?a=${run.id}&b=${run.id}&criterion=${relevant}`],
      ];
    }
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await app?.close();
  });

  async function open(locale: string): Promise<Page> {
    const context = await browser.newContext({ locale, bypassCSP: true, viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    contexts.push(context);
    return context.newPage();
  }

  for (const lang of ['en', 'zh'] as const) {
    const locale = lang === 'en' ? 'en-US' : 'zh-CN';

    it(`has no violations on the pages an admin opens that the flow tests do not check (${lang})`, async () => {
      const page = await open(locale);
      await logIn(page, app.url, ADMIN, translator(lang));
      const found: string[] = [];
      for (const [name, url] of pages[lang]) {
        const res = await page.goto(app.url + url);
        expect(res?.status(), `${name} ${url}`).toBe(200);
        // Closed sections too: axe checks what is in them.
        await page.evaluate(() => { document.querySelectorAll('details').forEach((d) => { d.open = true; }); });
        found.push(...await axeViolations(page, `${name} (${url})`), ...await layoutProblems(page, `${name} (${url})`));
      }
      expect(found).toEqual([]);
    });

    it(`has no violations on the first-run setup, sign-in, invitation and error pages (${lang})`, async () => {
      const page = await open(locale);
      const found: string[] = [];
      const fresh = await startTestApp(); // no administrator yet: the setup page
      try {
        expect((await page.goto(`${fresh.url}/setup`))?.status()).toBe(200);
        found.push(...await axeViolations(page, 'first-run setup'));
      } finally {
        await fresh.close();
      }
      expect((await page.goto(`${app.url}/login`))?.status()).toBe(200);
      found.push(...await axeViolations(page, 'sign-in'));
      const adminId = app.ctx.users.queries.byEmail(ADMIN.email)!.id;
      const { token } = app.ctx.users.invite(adminId, { email: `invited.${lang}@example.com`, name: '', role: 'expert' });
      expect((await page.goto(`${app.url}/invite/${token}`))?.status()).toBe(200);
      found.push(...await axeViolations(page, 'invitation'));
      expect((await page.goto(`${app.url}/invite/not-a-real-invitation-token-0123456789abcdef`))?.status()).toBe(404);
      found.push(...await axeViolations(page, 'invitation not found'));
      await logIn(page, app.url, ADMIN, translator(lang));
      expect((await page.goto(`${app.url}/datasets/999999`))?.status()).toBe(404);
      found.push(...await axeViolations(page, 'dataset not found'));
      expect(found).toEqual([]);
    });
  }
});
