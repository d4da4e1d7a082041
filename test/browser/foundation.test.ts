// The foundation walked through in a real browser, the way a team would on day one: first-run
// setup, log out and in, a dataset, three questions typed with the keyboard only, search, an edit
// with its history, review by a second (invited) expert, a Ragas export that reads back, and the
// Chinese interface. Screenshots land in screenshots/ for a human to look at.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers.ts';
import { launchBrowser, logInThroughForm, newContext, screenshot, stopAtFirstFailure, watchErrors } from './browser.ts';

const ADMIN = { email: 'ada@example.com', name: 'Ada Admin', password: 'correct horse battery' };
const EXPERT = { email: 'li.wei@example.com', name: 'Li Wei', password: 'another long password' };
const QUESTIONS = [
  { question: 'How many days of annual leave do new employees get?', ground_truth: '15 working days in the first year, prorated from the start date.' },
  { question: '试用期是多久？', ground_truth: '试用期为三个月。' },
  { question: 'Who approves a remote work request?', ground_truth: 'The direct manager; HR is notified through the HR portal.' },
];
const EDITED_GROUND_TRUTH = '试用期为三个月，表现优秀者可申请提前转正。';

/** Waits until the element with this id has keyboard focus (polling, no fixed sleeps). */
async function expectFocus(page: Page, id: string): Promise<void> {
  try {
    await page.waitForFunction((want) => document.activeElement?.id === want, id, { timeout: 5_000 });
  } catch {
    const actual = await page.evaluate(() => `${document.activeElement?.tagName}#${document.activeElement?.id}`);
    throw new Error(`expected focus on #${id}, but it is on ${actual}`);
  }
}

/** The list's count line ("3 samples"); tolerant of a future "1 sample". */
function samplesCount(n: number): RegExp {
  return new RegExp(`^${n} samples?$`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('goldset in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  let adminContext: BrowserContext;
  let expertContext: BrowserContext;
  let page: Page;
  const errors: string[] = [];
  let datasetUrl = '';
  let sampleUrl = '';

  beforeAll(async () => {
    app = await startTestApp();
    browser = await launchBrowser();
    adminContext = await newContext(browser, { locale: 'en-US' });
    page = await adminContext.newPage();
    watchErrors(page, errors);
  });

  stopAtFirstFailure('foundation', () => [page], () => app.logs);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('sets up the first administrator, logs out and in again', async () => {
    await page.goto(app.url + '/');
    await page.waitForURL('**/setup');
    await page.getByRole('heading', { level: 1, name: 'Welcome to goldset' }).waitFor();
    await screenshot(page, '01-setup');

    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Name').fill(ADMIN.name);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await page.waitForURL('**/datasets');
    await page.getByRole('heading', { level: 1, name: 'Datasets' }).waitFor();
    expect(await page.locator('.whoami').textContent()).toContain(ADMIN.name);

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL('**/login');
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/datasets');
    await page.getByRole('heading', { level: 1, name: 'Datasets' }).waitFor();

    // Keyboard users start at the skip link, then walk the header; the focus must be visible there.
    await page.keyboard.press('Tab');
    await page.getByRole('link', { name: 'Skip to content' }).evaluate((a) => { if (a !== document.activeElement) throw new Error('skip link not focused'); });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.getByRole('link', { name: 'Datasets' }).first().evaluate((a) => { if (a !== document.activeElement) throw new Error('nav link not focused'); });
    await screenshot(page, '08-header-focus');
  });

  it('creates a dataset', async () => {
    const form = page.getByRole('region', { name: 'New dataset' });
    await form.getByLabel('Name').fill('HR onboarding');
    await form.getByLabel('Language').selectOption('zh');
    await form.getByLabel('Domain').fill('HR');
    await form.getByLabel('Description').fill('Questions new hires ask in their first month.');
    await form.getByRole('button', { name: 'Create dataset' }).click();
    await page.waitForURL(/\/datasets\/\d+$/);
    datasetUrl = page.url();
    await page.getByRole('heading', { level: 1, name: /HR onboarding/ }).waitFor();
  });

  it('adds three questions with the keyboard only', async () => {
    const list = page.locator('#sample-list');
    await page.getByLabel('Question', { exact: true }).click();
    for (const [i, s] of QUESTIONS.entries()) {
      await expectFocus(page, 'f-question');
      await page.keyboard.type(s.question);
      await page.keyboard.press('Tab');
      await expectFocus(page, 'f-ground_truth');
      await page.keyboard.type(s.ground_truth);
      await page.keyboard.press('Control+Enter');

      // The form comes back empty with a confirmation, the list refreshes on `samples-changed`.
      await page.locator('#quick-add').getByRole('status').filter({ hasText: /Added sample #\d+/ }).waitFor();
      await list.getByRole('row').filter({ hasText: s.question }).waitFor();
      await list.getByText(samplesCount(i + 1)).waitFor();
      await expectFocus(page, 'f-question');
      expect(await page.locator('#f-question').inputValue()).toBe('');
      expect(await page.locator('#f-ground_truth').inputValue()).toBe('');
    }
    expect(await list.locator('tbody tr').count()).toBe(3);
    const stored = app.ctx.samples.queries.list({ datasetId: Number(datasetUrl.split('/').pop()) }, { limit: 10, offset: 0 });
    expect(stored.rows.map((r) => r.question).sort()).toEqual(QUESTIONS.map((q) => q.question).sort());
    await screenshot(page, '03-dataset-en');

    await page.setViewportSize({ width: 800, height: 900 });
    await screenshot(page, '04-dataset-narrow-800');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('filters the list from the search box reached with "/"', async () => {
    // A person leaves the quick-add form (clicks elsewhere) before using the hotkey.
    await page.getByRole('heading', { level: 2, name: 'Samples' }).click();
    await page.keyboard.press('/');
    await expectFocus(page, 'f-q');
    await page.keyboard.type('试用期');
    // Enter submits the search form. (Filtering while typing is broken today: see the known bugs below.)
    await page.keyboard.press('Enter');
    const list = page.locator('#sample-list');
    await list.getByText(samplesCount(1)).waitFor();
    await page.waitForURL(/[?&]q=%E8%AF%95%E7%94%A8%E6%9C%9F/);
    expect(await list.locator('tbody tr').count()).toBe(1);
    await list.getByRole('row').filter({ hasText: QUESTIONS[1]!.question }).waitFor();
  });

  it('edits a sample, shows the diff in its history, submits it for review', async () => {
    await page.locator('#sample-list').getByRole('link', { name: QUESTIONS[1]!.question }).click();
    await page.waitForURL(/\/samples\/\d+$/);
    sampleUrl = page.url();
    const groundTruth = page.getByLabel('Ground truth');
    expect(await groundTruth.inputValue()).toBe(QUESTIONS[1]!.ground_truth);
    await groundTruth.fill(EDITED_GROUND_TRUTH);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const history = page.getByRole('region', { name: 'History' });
    await history.locator('ins').filter({ hasText: '表现优秀者可申请提前转正' }).waitFor();
    expect(await history.getByText(/Version 2 · ada@example\.com/).count()).toBe(1);
    await screenshot(page, '05-sample-history');

    await page.getByRole('button', { name: 'Submit for review' }).click();
    await page.getByRole('status').filter({ hasText: 'Submitted for review.' }).waitFor();
    const review = page.getByRole('region', { name: 'Review' });
    await review.getByText('In review').waitFor();
    await review.getByText('Another expert must approve a sample you wrote.').waitFor();
    expect(await review.getByRole('button', { name: 'Approve' }).count()).toBe(0);
  });

  it('invites a second expert, who approves the sample', async () => {
    await page.getByRole('link', { name: 'Users' }).click();
    await page.waitForURL('**/admin/users');
    const invite = page.getByRole('region', { name: 'Invite a user' });
    await invite.getByLabel('Email').fill(EXPERT.email);
    await invite.getByLabel('Name').fill(EXPERT.name);
    await invite.getByLabel('Role').selectOption({ label: 'Expert' });
    await invite.getByRole('button', { name: 'Create invitation' }).click();
    const linkBox = page.getByLabel('Invitation link');
    await linkBox.waitFor();
    const link = await linkBox.inputValue();
    expect(link).toMatch(new RegExp(`^${app.url}/invite/\\S+$`));
    await page.getByRole('row').filter({ hasText: EXPERT.email }).getByText('Invited').waitFor();
    await screenshot(page, '06-users');

    expertContext = await newContext(browser, { locale: 'en-US' });
    const expert = await expertContext.newPage();
    watchErrors(expert, errors);
    await expert.goto(link);
    await expert.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
    await expert.getByText(EXPERT.email).waitFor();
    await expert.getByLabel('Password').fill(EXPERT.password);
    await expert.getByRole('button', { name: 'Set password and log in' }).click();
    await expert.waitForURL('**/datasets');
    expect(await expert.locator('.whoami').textContent()).toContain('Expert');

    await expert.goto(sampleUrl);
    await expert.getByRole('button', { name: 'Approve' }).click();
    await expert.getByRole('status').filter({ hasText: 'Approved.' }).waitFor();
    const review = expert.getByRole('region', { name: 'Review' });
    await review.getByText('Approved', { exact: true }).waitFor();
    await review.getByText(new RegExp(`^${escapeRegExp(EXPERT.email)} · \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$`)).waitFor();
    const row = app.ctx.samples.get(Number(sampleUrl.split('/').pop()));
    expect(row?.status).toBe('approved');
    await expertContext.close();
  });

  it('exports the approved sample as Ragas JSONL that reads back', async () => {
    await page.goto(datasetUrl);
    await page.getByRole('link', { name: 'Export' }).click();
    await page.getByRole('heading', { level: 1, name: 'Export' }).waitFor();
    await page.getByLabel(/Ragas JSONL/).check();
    await page.getByLabel('Approved only').check();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.jsonl$/);
    const text = fs.readFileSync(await download.path(), 'utf8');
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(record.user_input).toBe(QUESTIONS[1]!.question);
    expect(record.reference).toBe(EDITED_GROUND_TRUTH);

    await page.getByRole('link', { name: 'Datasets' }).first().click();
    await page.getByRole('row').filter({ hasText: 'HR onboarding' }).getByText('1 approved, 0 in review, of 3').waitFor();
    await screenshot(page, '02-datasets');
  });

  it('switches the interface to Chinese from the header', async () => {
    await page.goto(datasetUrl);
    await page.getByLabel('Language').selectOption({ label: '简体中文' });
    await page.getByRole('heading', { level: 2, name: '样本' }).waitFor();
    await page.getByRole('heading', { level: 2, name: /添加问题/ }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    await screenshot(page, '07-dataset-zh');
  });

  it('ran without script errors, CSP refusals or missing resources (other than the known bugs)', () => {
    expect(errors.filter((e) => !KNOWN_CONSOLE_ERRORS.some((re) => re.test(e)))).toEqual([]);
  });
});

// Console errors of known, accepted causes; none at the moment.
const KNOWN_CONSOLE_ERRORS: RegExp[] = [];

// Behaviour that once was broken: live filtering, focus staying in the search box, the review meter.
describe('search and review meter', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let datasetUrl = '';

  beforeAll(async () => {
    app = await startTestApp();
    const admin = await app.ctx.users.createFirstAdmin({ email: ADMIN.email, name: ADMIN.name, password: ADMIN.password });
    const dataset = app.ctx.datasets.create(admin.id, { name: 'Search', description: '', language: 'en', domain: '' });
    for (const s of QUESTIONS) {
      app.ctx.samples.create(admin.id, dataset.id, { ...s, reference_contexts: [], tags: [], source: '', notes: '' });
    }
    datasetUrl = `${app.url}/datasets/${dataset.id}`;
    browser = await launchBrowser();
    page = await (await newContext(browser)).newPage();
    await logInThroughForm(page, app.url, ADMIN);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  // views/pages/dataset.tsx FilterBar: htmx 4 reads `from:find input` as from:"find" plus a stray
  // `input` flag, so no listener is attached; it needs `from:"find input"` (quoted).
  it('the sample list filters while typing in the search box, without Enter', async () => {
    await page.goto(datasetUrl);
    await page.getByRole('searchbox').click();
    await page.keyboard.type('remote');
    await page.locator('#sample-list').getByText(samplesCount(1)).waitFor({ timeout: 3_000 });
  });

  // public/app.js: the htmx:after:swap handler focuses [data-focus-after-swap] after *every* swap,
  // so refreshing the list moves the cursor from the search box into the quick-add question.
  it('filtering the list leaves the cursor in the search box', async () => {
    await page.goto(datasetUrl);
    await page.getByRole('searchbox').click();
    await page.keyboard.type('remote');
    await page.keyboard.press('Enter');
    await page.locator('#sample-list').getByText(samplesCount(1)).waitFor();
    await expectFocus(page, 'f-q');
  });

  // views/pages/datasets.tsx: the review meter sets its bar widths with style="", which the CSP
  // (style-src 'self') blocks, so the bar always looks empty.
  it('the review meter on the datasets list shows approved samples', async () => {
    const id = Number(datasetUrl.split('/').pop());
    const first = app.ctx.samples.queries.list({ datasetId: id }, { limit: 1, offset: 0 }).rows[0]!;
    app.ctx.db.prepare("UPDATE sample SET status = 'approved' WHERE id = ?").run(first.id);
    await page.goto(app.url + '/datasets');
    const box = await page.locator('.meter .meter-approved').first().boundingBox();
    expect(box?.width ?? 0).toBeGreaterThan(0);
  });
});

describe('uploading a file to import', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let datasetId = 0;

  beforeAll(async () => {
    app = await startTestApp();
    const admin = await app.ctx.users.createFirstAdmin({ email: ADMIN.email, name: ADMIN.name, password: ADMIN.password });
    datasetId = app.ctx.datasets.create(admin.id, { name: 'Upload', description: '', language: 'zh', domain: '' }).id;
    browser = await launchBrowser();
    page = await (await newContext(browser)).newPage();
    await logInThroughForm(page, app.url, ADMIN);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('uploads through the progress-reporting script and shows the result on the same page', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ user_input: `问题 ${i}：新员工第一天需要带什么材料？`, reference: `身份证和学历证书原件（${i}）。`.repeat(3) }));
    const file = `${app.dir}/upload.jsonl`;
    fs.writeFileSync(file, rows.join('\n'));
    await page.goto(`${app.url}/datasets/${datasetId}/import`);
    await page.getByLabel('File', { exact: true }).setInputFiles(file);
    const upload = page.waitForRequest((r) => r.url().endsWith(`/datasets/${datasetId}/import`) && r.method() === 'POST');
    await page.getByRole('button', { name: 'Import' }).click();
    const request = await upload;
    expect(request.headers()['x-csrf-token']).toBeTruthy(); // sent by the upload script (XMLHttpRequest), not a plain form post
    await page.getByText('Imported 3000 rows: 3000 new samples, 0 matched existing samples.').waitFor();
    expect(page.url()).toBe(`${app.url}/datasets/${datasetId}/import`);
    expect(app.ctx.samples.queries.list({ datasetId }, { limit: 1, offset: 0 }).total).toBe(3000);
    await screenshot(page, '09-import-done');
  });

  it('says in the page\'s language when an upload breaks off, and lets it be sent again', async () => {
    const file = `${app.dir}/broken.jsonl`;
    fs.writeFileSync(file, JSON.stringify({ user_input: 'Which documents on the first day?', reference: 'ID card.' }));
    const before = app.ctx.samples.queries.list({ datasetId }, { limit: 1, offset: 0 }).total;
    await page.goto(`${app.url}/datasets/${datasetId}/import`);
    await page.getByLabel('File', { exact: true }).setInputFiles(file);
    await page.route(`**/datasets/${datasetId}/import`, (route) => (route.request().method() === 'POST' ? route.abort('connectionreset') : route.continue()));
    await page.getByRole('button', { name: 'Import' }).click();
    await page.locator('.upload-status').getByText('The upload did not reach the server (the connection broke). Nothing was imported; choose the file and try again.').waitFor();
    expect(await page.getByRole('button', { name: 'Import' }).isEnabled()).toBe(true);
    await page.unroute(`**/datasets/${datasetId}/import`);
    expect(app.ctx.samples.queries.list({ datasetId }, { limit: 1, offset: 0 }).total).toBe(before);
  });
});
