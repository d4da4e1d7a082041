// Per-context calibration in a real browser: an expert labels the retrieved contexts of two answers with
// the keyboard (Shift+digit), the admin runs context_precision against the fake judge from the Runs page,
// opens the per-context report from the calibration page (figures over contexts, by rank, per answer),
// goes to the context disagreements, and records "Expert right" on one with a note; then an expert reads
// the report and the reviewed context in Chinese. Screenshots land in screenshots/ for a human to look at.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { translator } from '../../server/i18n/index.ts';
import { contextRows, GOLD, kindsOf, scriptJudge } from '../calibration/context-fixture.ts';
import { axeViolations, launchBrowser, newContext, screenshot, screenshotLive, stopAtFirstFailure, watchErrors, logIn } from './browser.ts';

const en = translator('en');
const zh = translator('zh');

const ADMIN = { email: 'ada@example.com', name: 'Ada Admin', password: 'correct horse battery' };
const LI = { email: 'li.wei@example.com', name: 'Li Wei', password: 'another long password' };
const WANG = { email: 'wang.fang@example.com', name: '王芳', password: 'yet another long password' };
const DATASET = 'Leave policy answers';
const N = 24;
/** The last two answers come without labels: Li labels them in the browser. */
const UNLABELLED = 2;
const NOTE = 'The footnote on working days is part of the answer: the judge should count it.';

describe('per-context calibration: label contexts, run context_precision, report, review', () => {
  let app: TestApp;
  let fake: FakeOpenAI;
  let browser: Browser;
  const pages: Page[] = [];
  const errors: string[] = [];
  let datasetId = 0;
  let ids: number[] = [];
  let runId = 0;
  let reviewed = { id: 0, rank: 0 };
  let axePage: Page;
  const violations: string[] = [];

  /** Opens the page in a context sharing the admin's session with the CSP bypassed (axe is an injected script) and records every violation. */
  async function axe(url: string): Promise<void> {
    await axePage.goto(app.url + url);
    violations.push(...await axeViolations(axePage, url));
  }

  async function personPage(locale: string): Promise<Page> {
    const page = await (await newContext(browser, { locale, height: 1000 })).newPage();
    pages.push(page);
    watchErrors(page, errors);
    return page;
  }

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    scriptJudge(fake);
    app = await startTestApp({ OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'k', GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' });
    const { ctx } = app;
    const admin = await ctx.users.createFirstAdmin(ADMIN);
    await ctx.users.createUser(admin.id, { ...LI, role: 'expert' });
    const wang = await ctx.users.createUser(admin.id, { ...WANG, role: 'expert' });
    datasetId = ctx.datasets.create(admin.id, { name: DATASET, description: 'Answers of the HR assistant about annual leave.', language: 'en', domain: 'HR' }).id;
    const rows = contextRows(N);
    const labelled = path.join(app.dir, 'labelled.jsonl');
    fs.writeFileSync(labelled, rows.slice(0, N - UNLABELLED).map((r) => JSON.stringify(r)).join('\n'));
    expect((await ctx.imports.importFile(admin.id, datasetId, labelled, { format: 'jsonl', annotatorId: wang.id })).ok).toBe(true);
    const rest = path.join(app.dir, 'rest.jsonl');
    fs.writeFileSync(rest, rows.slice(N - UNLABELLED).map(({ 'human.relevant': _, ...r }) => JSON.stringify(r)).join('\n'));
    expect((await ctx.imports.importFile(admin.id, datasetId, rest, { format: 'jsonl' })).ok).toBe(true);
    ctx.db.prepare('UPDATE annotation SET rationale = ? WHERE dataset_id = ?').run('Policy and footnote answer it; the 2019 rule is outdated.', datasetId);
    ids = ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(datasetId) as number[];
    browser = await launchBrowser();
  });

  stopAtFirstFailure('contexts', () => pages, () => app.logs);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await fake?.close();
  });

  it('an expert labels the retrieved contexts of two answers with Shift+digit', async () => {
    const page = await personPage('en-US');
    const t = en;
    await logIn(page, app.url, LI, t);
    await page.getByRole('link', { name: DATASET }).click();
    await page.waitForURL(`**/datasets/${datasetId}`);
    // Start labelling is a POST: it reserves the first item and redirects to it.
    await page.getByRole('button', { name: t('label.start') }).click();
    const criterion = app.ctx.criteria.queries.byName(datasetId, 'relevant')!;
    for (let k = 0; k < UNLABELLED; k++) {
      const i = N - UNLABELLED + k;
      const ws = page.locator(`#workspace[data-response="${ids[i]}"]`);
      await ws.waitFor();
      const relevant = kindsOf(i).flatMap((kind, rank) => (GOLD[kind] ? [rank + 1] : []));
      for (const key of relevant) {
        await page.keyboard.press(`Shift+Digit${key}`);
        await ws.locator(`input[data-context-key="${key}"]:checked`).waitFor();
      }
      expect(await ws.locator('input[data-context-key]:checked').count()).toBe(relevant.length);
      if (k === 0) await screenshotLive(page, 'contexts-01-labelling-en');
      await page.keyboard.press('Enter');
      await ws.waitFor({ state: 'detached' });
      const gold = app.ctx.contextCalibration.goldFor(criterion).get(ids[i]!);
      expect([0, 1, 2, 3].map((c) => gold?.[c])).toEqual(kindsOf(i).map((kind) => String(GOLD[kind])));
    }
  });

  it('the admin runs context_precision against the fake judge from the Runs page', async () => {
    const page = await personPage('en-US');
    const t = en;
    await logIn(page, app.url, ADMIN, t);
    await page.goto(`${app.url}/datasets/${datasetId}/runs`);
    await page.getByLabel(t('runs.metric'), { exact: true }).selectOption('context_precision');
    await page.getByLabel(t('runs.name'), { exact: true }).fill('verify v1');
    await page.getByRole('button', { name: t('runs.start') }).click();
    await page.waitForURL(/\/runs\/\d+$/);
    runId = Number(new URL(page.url()).pathname.split('/').pop());
    await expect.poll(() => app.ctx.runner.queries.byId(runId)?.status, { timeout: 20_000 }).toBe('done');
    const axeContext: BrowserContext = await browser.newContext({ locale: 'en-US', bypassCSP: true, viewport: { width: 1280, height: 900 } });
    await axeContext.addCookies(await page.context().cookies());
    axePage = await axeContext.newPage();
    expect(app.ctx.runner.queries.summary(runId)).toMatchObject({ scored: N, errored: 0 });
    await page.reload();
    await page.getByRole('link', { name: t('ctx.review') }).waitFor();
  });

  it('opens the per-context report from the calibration page: figures over contexts, by rank, per answer', async () => {
    const page = pages[1]!;
    const t = en;
    await page.goto(`${app.url}/datasets/${datasetId}/calibration`);
    await page.getByRole('link', { name: t('ctx.link') }).click();
    await page.waitForURL(`**/datasets/${datasetId}/calibration/contexts`);
    await page.getByRole('heading', { level: 1, name: t('ctx.title') }).waitFor();
    const swapped = page.waitForResponse((r) => r.url().includes('/calibration/contexts?') && r.url().includes('part=all'));
    await page.getByLabel(t('calib.part'), { exact: true }).selectOption('all');
    expect((await swapped).status()).toBe(200);
    const report = page.locator('#report');
    await report.getByText(t('ctx.n', { n: 4 * N, responses: N }), { exact: true }).waitFor();
    await report.getByText(t('ctx.ci_method')).waitFor();
    // One row per rank (the fixture retrieves four contexts), each with its n.
    const ranks = report.locator('table.by-rank tbody tr');
    expect(await ranks.count()).toBe(4);
    expect(await ranks.locator('td:nth-child(2)').allTextContents()).toEqual(['24', '24', '24', '24']);
    for (const chart of ['relevance-by-rank', 'agreement-by-rank', 'item-scatter', 'confusion']) expect(await report.locator(`svg.chart-${chart}`).count()).toBe(1);
    expect(await report.locator('svg.chart-item-scatter circle.point').count()).toBe(N);
    const { report: figures } = app.ctx.contextCalibration.report({ criterion: app.ctx.criteria.queries.byName(datasetId, 'relevant')!,
      run: app.ctx.runner.queries.byId(runId)!, part: 'all', holdoutSeed: app.ctx.datasets.get(datasetId)!.holdout_seed });
    const kappaRow = report.locator('table.figures').first().locator('tbody tr').filter({ has: page.getByRole('rowheader', { name: t('calib.fig_cohen_kappa'), exact: true }) });
    expect((await kappaRow.getByRole('cell').first().textContent())?.trim()).toBe(figures.cohen_kappa!.toFixed(3));
    await screenshotLive(page, 'contexts-02-report-en');
  });

  it('reviews a context disagreement and records "Expert right" with a note', async () => {
    const page = pages[1]!;
    const t = en;
    await page.locator('#report').getByRole('link', { name: t('ctx.review') }).click();
    await page.waitForURL(`**/runs/${runId}/review/contexts?**`);
    await page.getByRole('heading', { level: 1, name: new RegExp(t('ctxr.title')) }).waitFor();
    const toExperts = page.getByRole('link', { name: new RegExp(`^${t('ctxr.direction_experts_relevant')} \\(`) });
    await toExperts.click();
    await page.waitForURL(/direction=experts_relevant/);
    const rows = page.getByRole('table').locator('tbody tr');
    expect(await rows.count()).toBeGreaterThan(0);
    await rows.first().getByText('It does not give the number of days.').waitFor();
    await screenshot(page, 'contexts-03-queue-en');
    const id = (await rows.first().getAttribute('id'))!.split('-');
    reviewed = { id: Number(id[1]), rank: Number(id[2]) };
    await rows.first().getByRole('link').click();
    await page.waitForURL(`**/runs/${runId}/review/contexts/${reviewed.id}/${reviewed.rank}?**`);
    const here = page.getByRole('region', { name: t('ctxr.this_context', { rank: reviewed.rank }), exact: true });
    await here.locator('.judge-reason').getByText('It does not give the number of days.').waitFor();
    await page.getByRole('region', { name: t('review.expert_labels') }).getByText('the 2019 rule is outdated').waitFor();
    await page.getByRole('radio', { name: t('review.verdict_expert_right') }).check();
    await page.getByLabel(t('review.note'), { exact: true }).focus();
    await page.keyboard.type(NOTE);
    await screenshotLive(page, 'contexts-04-review-item-en');
    for (const url of [`/datasets/${datasetId}/calibration/contexts?part=all`, `/runs/${runId}/review/contexts`,
      `/runs/${runId}/review/contexts/${reviewed.id}/${reviewed.rank}`, `/datasets/${datasetId}/prompt-lab?metric=context_precision&step=verify`,
      `/datasets/${datasetId}/compare?a=${runId}&b=${runId}&criterion=${app.ctx.criteria.queries.byName(datasetId, 'relevant')!.id}`]) await axe(url);
    await page.keyboard.press('Control+Enter');
    await page.getByRole('status').filter({ hasText: t('review.flash_saved') }).waitFor();
    const current = page.getByRole('region', { name: t('review.current_verdict') });
    await current.locator('p.rationale').getByText(NOTE, { exact: true }).waitFor();
    const stored = app.ctx.db.prepare('SELECT verdict, note, version FROM context_verdict WHERE run_id = ? AND response_id = ? AND context_index = ?')
      .get(runId, reviewed.id, reviewed.rank - 1);
    expect(stored).toEqual({ verdict: 'expert_right', note: NOTE, version: 1 });
  });

  it('offers the experts\' context labels as examples of the verify step in the prompt lab', async () => {
    const page = pages[1]!;
    const t = en;
    await page.goto(`${app.url}/datasets/${datasetId}/prompt-lab?metric=context_precision&step=verify`);
    const candidates = page.getByRole('region', { name: t('labc.pick') });
    const first = candidates.getByRole('button', { name: new RegExp(`^${t('lab.add_from_label')}: `) }).first();
    await first.click();
    await page.waitForLoadState('load');
    const examples = JSON.parse(await page.getByLabel(t('metrics.examples'), { exact: true }).inputValue()) as { input: { context: string }; output: { verdict: number } }[];
    // The built-in prompt's two examples, and the expert's context after them.
    expect(examples).toHaveLength(3);
    expect(Object.keys(examples[2]!.input)).toEqual(['question', 'context', 'answer']);
    expect(Object.keys(examples[2]!.output)).toEqual(['reason', 'verdict']);
    await screenshot(page, 'contexts-07-prompt-lab-verify-en');
  });

  it('reads the report and the reviewed context in Chinese', async () => {
    const page = await personPage('zh-CN');
    const t = zh;
    await logIn(page, app.url, WANG, t);
    await page.goto(`${app.url}/datasets/${datasetId}/calibration/contexts?part=all`);
    await page.getByRole('heading', { level: 1, name: t('ctx.title') }).waitFor();
    await page.locator('#report').getByText(t('ctx.n', { n: 4 * N, responses: N }), { exact: true }).waitFor();
    await screenshot(page, 'contexts-05-report-zh');
    await page.goto(`${app.url}/runs/${runId}/review/contexts/${reviewed.id}/${reviewed.rank}`);
    await page.getByRole('region', { name: t('review.current_verdict') }).locator('p.rationale').getByText(NOTE).waitFor();
    await screenshot(page, 'contexts-06-review-item-zh');
    expect(errors).toEqual([]);
    expect(violations).toEqual([]);
  });
});
