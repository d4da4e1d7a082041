// The calibration report in a real browser: an admin opens the report of an imported Ragas run against
// the experts' gold labels, moves the pass threshold with the keyboard and sees the figures and the
// pictures follow, opens the worst disagreement, records "Expert right" with a note, finds it under
// that verdict in the queue, and records the report as the metric's calibration; then the same report
// in Chinese. Screenshots land in screenshots/ for a human to look at.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers.ts';
import { translator } from '../../server/i18n/index.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import { launchBrowser, newContext, screenshot, screenshotLive, stopAtFirstFailure, watchErrors, logIn } from './browser.ts';

const en = translator('en');
const zh = translator('zh');

const ADMIN = { email: 'ada@example.com', name: 'Ada Admin', password: 'correct horse battery' };
const EXPERT = { email: 'li.wei@example.com', name: 'Li Wei', password: 'another long password' };
const DATASET = 'HR answers';
const N = 40;
const START = 0.5; // the report's default pass threshold
const STEPS = 5; // ArrowRight presses, 0.05 each
const MOVED = 0.75;

const TOPICS = [
  'How many days of annual leave do new employees get?',
  'Who approves a remote work request?',
  'How long is the probation period?',
  'Can unused leave be carried over to next year?',
  'When is the salary paid each month?',
  'How do I claim travel expenses?',
  'Is overtime paid or given as time off?',
  'Where do I report a security incident?',
];

// Judge scores spread evenly over 0.05..0.95; the experts pass an answer when its score is at least 0.5,
// except four answers the judge gets badly wrong. Item 1 is the worst: the experts pass it, the judge
// scores it 0.073.
const WRONG = new Set([1, 11, 27, 37]);
const ROWS = Array.from({ length: N }, (_, i) => {
  const score = Number((0.05 + (0.9 * i) / (N - 1)).toFixed(3));
  const pass = (score >= 0.5) !== WRONG.has(i);
  const topic = TOPICS[i % TOPICS.length]!;
  return {
    user_input: `${topic} (case ${i + 1})`,
    response: `Answer ${i + 1}: ${pass ? 'as the policy in the first context says.' : 'something the contexts do not support.'}`,
    retrieved_contexts: [`Policy text ${i + 1} about: ${topic.toLowerCase()}`, `Unrelated context ${i + 1}.`],
    reference: `Reference answer ${i + 1}.`,
    system: i % 2 === 0 ? 'rag-v1' : 'rag-v2',
    'human.correct': pass ? 'yes' : 'no',
    faithfulness: score,
  };
});
const WORST = 1;
const RATIONALE = 'The first context states exactly this; the judge must have missed it.';
const NOTE = 'The answer is supported by context 1: the judge is wrong here.';

/** Confusion counts, accuracy and Cohen's κ of the judge (pass when score >= t) against the experts. */
function expected(t: number) {
  let tp = 0, fn = 0, fp = 0, tn = 0;
  for (const r of ROWS) {
    const judge = r.faithfulness >= t - 1e-9;
    const gold = r['human.correct'] === 'yes';
    if (gold && judge) tp++; else if (gold) fn++; else if (judge) fp++; else tn++;
  }
  const n = tp + fn + fp + tn;
  const po = (tp + tn) / n;
  const pe = ((tp + fn) * (tp + fp) + (fp + tn) * (fn + tn)) / (n * n);
  return { cells: [tp, fn, fp, tn].map(String), accuracy: `${(100 * po).toFixed(1)}%`, kappa: ((po - pe) / (1 - pe)).toFixed(3) };
}

/** The admin, the expert whose labels are the gold ones, the dataset and the imported Ragas run. */
async function seed(app: TestApp): Promise<{ datasetId: number; ids: number[]; correct: Criterion; runId: number }> {
  const { ctx } = app;
  const admin = await ctx.users.createFirstAdmin(ADMIN);
  const expert = await ctx.users.createUser(admin.id, { ...EXPERT, role: 'expert' });
  const datasetId = ctx.datasets.create(admin.id, { name: DATASET, description: 'Answers of the HR assistant.', language: 'en', domain: 'HR' }).id;
  const file = path.join(app.dir, 'ragas.jsonl');
  fs.writeFileSync(file, ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const result = await ctx.imports.importFile(admin.id, datasetId, file, { format: 'jsonl', annotatorId: expert.id, runName: 'ragas' });
  expect(result.ok, JSON.stringify(result)).toBe(true);
  const ids = ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(datasetId) as number[];
  expect(ids).toHaveLength(N);
  const correct = ctx.criteria.queries.byName(datasetId, 'correct')!;
  expect(correct.kind).toBe('binary');
  const runId = ctx.runner.queries.byName(datasetId, 'ragas', 'faithfulness')!.id;
  // The import has no rationale column; the expert explains the worst item.
  ctx.db.prepare('UPDATE annotation SET rationale = ? WHERE response_id = ? AND annotator_id = ?').run(RATIONALE, ids[WORST], expert.id);
  return { datasetId, ids, correct, runId };
}

/** Collects uncaught script errors and console errors (CSP refusals and failed requests show up there). */
/** What the report shows: two figures, the confusion heatmap's counts, and where the threshold is drawn. */
async function readReport(page: Page, t: typeof en) {
  const report = page.locator('#report');
  const figure = (name: string) => report.locator('table.figures tbody tr')
    .filter({ has: page.getByRole('rowheader', { name, exact: true }) }).getByRole('cell').first();
  const heatmap = report.locator('svg.chart-confusion');
  const kappaChart = report.locator('svg.chart-kappa-threshold');
  const marker = kappaChart.locator('line.current-threshold');
  const axis = kappaChart.locator('g.axis-x > line');
  const num = (l: Locator, attr: string) => l.getAttribute(attr).then(Number);
  return {
    n: (await report.locator('#figures .sub').textContent())?.trim(),
    kappa: (await figure(t('calib.fig_cohen_kappa')).textContent())?.trim(),
    accuracy: (await figure(t('calib.fig_accuracy')).textContent())?.trim(),
    // The cells in reading order: expert pass → judge pass, judge fail; expert fail → judge pass, judge fail.
    cells: await heatmap.locator('g.cell > text:first-of-type').allTextContents(),
    marker: { x: await num(marker, 'x1'), title: await marker.locator('title').textContent(), axisFrom: await num(axis, 'x1'), axisTo: await num(axis, 'x2') },
    scatterLine: await num(report.locator('svg.chart-score-by-label g.threshold line'), 'y1'),
    reviewHref: await report.getByRole('link', { name: t('calib.review') }).getAttribute('href'),
  };
}

/** Waits until the report (the κ chart's marker) is the one for this threshold. */
async function reportShows(page: Page, threshold: number, timeout = 5_000): Promise<void> {
  const marker = page.locator('#report svg.chart-kappa-threshold line.current-threshold title');
  await page.waitForFunction(([sel, want]) => document.querySelector(sel)?.textContent?.endsWith(want) === true,
    ['#report svg.chart-kappa-threshold line.current-threshold title', `: ${threshold}`] as const, { timeout })
    .catch(async () => { throw new Error(`expected the report for threshold ${threshold}; the slider says ${await page.locator('#threshold-value').textContent()}, the report "${await marker.textContent()}"`); });
}

/** Clicks "Record as this metric's calibration" and waits for the report page it redirects to. */
async function recordCalibration(page: Page, t: typeof en): Promise<void> {
  const posted = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/calibration/record'));
  const shown = page.waitForResponse((r) => r.request().isNavigationRequest() && r.request().method() === 'GET' && r.url().includes('/calibration?'));
  await page.getByRole('button', { name: t('calib.record') }).click();
  expect((await posted).status()).toBe(303);
  expect((await shown).status()).toBe(200);
  await page.waitForLoadState('load');
}

describe('calibration report, threshold and disagreement review', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const pages: Page[] = [];
  const errors: string[] = [];
  let datasetId = 0;
  let ids: number[] = [];
  let correct: Criterion;
  let runId = 0;
  let reportUrl = '';

  async function personPage(locale: string): Promise<Page> {
    const p = await (await newContext(browser, { locale })).newPage();
    pages.push(p);
    watchErrors(p, errors);
    return p;
  }

  beforeAll(async () => {
    app = await startTestApp();
    ({ datasetId, ids, correct, runId } = await seed(app));
    browser = await launchBrowser();
    page = await personPage('en-US');
  });

  stopAtFirstFailure('calibration', () => pages, () => app.logs);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('opens the report from the dataset page and shows every item', async () => {
    const t = en;
    await logIn(page, app.url, ADMIN, t);
    await page.getByRole('link', { name: DATASET }).click();
    await page.waitForURL(`**/datasets/${datasetId}`);
    await page.getByRole('link', { name: t('calib.title'), exact: true }).click();
    await page.waitForURL(`**/datasets/${datasetId}/calibration`);
    await page.getByRole('heading', { level: 1, name: t('calib.title') }).waitFor();
    // The calibration part is the default: only some of the items.
    const part = page.getByLabel(t('calib.part'), { exact: true });
    expect(await part.inputValue()).toBe('calibration');
    expect(await page.locator('#report #figures .sub').textContent()).not.toBe(`n = ${N}`);

    const swapped = page.waitForResponse((r) => r.url().includes('/calibration?') && r.url().includes('part=all'));
    await part.selectOption({ label: t('calib.part_all') });
    expect((await swapped).status()).toBe(200);
    await page.locator('#report #figures .sub').getByText(`n = ${N}`, { exact: true }).waitFor();
    await page.waitForURL(/[?&]part=all/);

    const shown = await readReport(page, t);
    const want = expected(START);
    expect(shown.cells).toEqual(want.cells);
    expect(shown.accuracy).toBe(want.accuracy);
    expect(shown.kappa).toBe(want.kappa);
    expect(shown.marker.title).toBe(`${t('calib.current')}: ${START}`);
    expect(shown.marker.x).toBeCloseTo(shown.marker.axisFrom + START * (shown.marker.axisTo - shown.marker.axisFrom), 1);
    expect(await page.locator('#threshold-value').textContent()).toBe(START.toFixed(2));
    expect(await page.locator('#report [role=status]').count()).toBe(0); // 40 items: no "not yet meaningful" warning
    await screenshotLive(page, 'calibration-01-report-en');
  });

  it('moves the threshold with the keyboard, step by step; the figures and pictures follow', async () => {
    const t = en;
    const first = await readReport(page, t);
    const slider = page.getByRole('slider', { name: t('calib.threshold') });
    await slider.focus();
    let before = first;
    // One step at a time, looking at the report after each (pressing faster runs into a known bug, below).
    for (let step = 1; step <= STEPS; step++) {
      const threshold = Number((START + 0.05 * step).toFixed(2));
      await page.keyboard.press('ArrowRight');
      expect(await slider.inputValue()).toBe(String(threshold));
      // app.js shows the value at once; the report follows the request htmx sends.
      await page.locator('#threshold-value').getByText(threshold.toFixed(2), { exact: true }).waitFor({ timeout: 2_000 });
      await reportShows(page, threshold);
      const after = await readReport(page, t);
      const want = expected(threshold);
      expect(after.cells).toEqual(want.cells);
      expect(after.accuracy).toBe(want.accuracy);
      expect(after.kappa).toBe(want.kappa);
      expect(after.n).toBe(`n = ${N}`);
      // The κ chart's marker moves right by one step, the scatter's threshold line up.
      expect(after.marker.x - before.marker.x).toBeCloseTo(0.05 * (after.marker.axisTo - after.marker.axisFrom), 1);
      expect(after.scatterLine).toBeLessThan(before.scatterLine);
      expect(after.reviewHref).toContain(`threshold=${threshold}`);
      before = after;
    }
    const last = before;
    expect(last.cells).not.toEqual(first.cells);
    expect(last.accuracy).not.toBe(first.accuracy);
    expect(last.kappa).not.toBe(first.kappa);
    expect(last.marker.x).toBeGreaterThan(first.marker.x);
    await page.waitForURL(new RegExp(`[?&]threshold=${MOVED}(&|$)`));
    // The slider kept the keyboard focus through the swaps, and shows it.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-threshold');
    expect(await slider.evaluate((el) => el.matches(':focus-visible'))).toBe(true);
    await screenshotLive(page, 'calibration-02-report-threshold-moved');
    reportUrl = page.url();
  });

  it('opens the disagreements, worst first, and records "Expert right" with a note', async () => {
    const t = en;
    await page.locator('#report').getByRole('link', { name: t('calib.review') }).click();
    await page.waitForURL(`**/runs/${runId}/review?**`);
    await page.getByRole('heading', { level: 1, name: new RegExp(t('review.title')) }).waitFor();
    expect(await page.getByLabel(t('review.threshold'), { exact: true }).inputValue()).toBe(String(MOVED));
    expect(await page.getByLabel(t('review.part'), { exact: true }).inputValue()).toBe('all');

    // Exactly the items the judge gets wrong at this threshold, worst (largest gap) first.
    const disagreeing = ROWS.flatMap((r, i) => ((r.faithfulness >= MOVED) !== (r['human.correct'] === 'yes') ? [ids[i]!] : []));
    const rows = page.getByRole('table').locator('tbody tr');
    const listed = (await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.id.replace('item-', '')))));
    expect([...listed].sort((a, b) => a - b)).toEqual(disagreeing);
    expect(listed[0]).toBe(ids[WORST]);
    const gaps = (await rows.locator('td:nth-child(6)').allTextContents()).map(Number);
    expect(gaps).toEqual([...gaps].sort((a, b) => b - a));
    await page.getByRole('link', { name: `${t('review.filter_none')} (${disagreeing.length})` }).waitFor();
    await screenshot(page, 'calibration-04-review-queue');

    await rows.first().getByRole('link', { name: ROWS[WORST]!.user_input }).click();
    await page.waitForURL(`**/runs/${runId}/review/${ids[WORST]}?**`);
    await page.getByRole('heading', { level: 1, name: ROWS[WORST]!.user_input }).waitFor();
    await page.locator('dd.answer').getByText(ROWS[WORST]!.response, { exact: true }).waitFor();
    const labels = page.getByRole('region', { name: t('review.expert_labels') });
    await labels.getByText(EXPERT.email).waitFor();
    await labels.getByText(RATIONALE).waitFor();
    expect(await labels.locator('.rationale strong').first().textContent()).toBe('Yes');
    const goldJudge = page.getByRole('region', { name: t('review.gold_vs_judge') });
    await goldJudge.getByText(ROWS[WORST]!.faithfulness.toFixed(4)).waitFor();

    // Choose with a click, write the note with the keyboard, save with Ctrl+Enter from the note.
    await page.getByRole('radio', { name: t('review.verdict_expert_right') }).check();
    await page.getByLabel(t('review.note'), { exact: true }).focus();
    await page.keyboard.type(NOTE);
    await screenshotLive(page, 'calibration-05-review-item');
    await page.keyboard.press('Control+Enter');
    await page.getByRole('status').filter({ hasText: t('review.flash_saved') }).waitFor();
    const current = page.getByRole('region', { name: t('review.current_verdict') });
    await current.locator('.badge').getByText(t('review.verdict_expert_right'), { exact: true }).waitFor();
    await current.locator('p.rationale').getByText(NOTE, { exact: true }).waitFor();
    expect(await page.getByRole('radio', { name: t('review.verdict_expert_right') }).isChecked()).toBe(true);
    await screenshot(page, 'calibration-06-review-item-saved');

    const stored = app.ctx.calibration.verdict(runId, ids[WORST]!, correct.id);
    expect(stored?.verdict).toBe('expert_right');
    expect(stored?.note).toBe(NOTE);
    expect(stored?.reviewer_email).toBe(ADMIN.email);

    // Back in the queue it has left "Not reviewed" and is listed under "Expert right".
    await page.getByRole('link', { name: t('review.back') }).first().click();
    await page.waitForURL(`**/runs/${runId}/review?**`);
    await page.getByRole('link', { name: `${t('review.filter_none')} (${disagreeing.length - 1})` }).waitFor();
    expect(await page.locator(`#item-${ids[WORST]}`).count()).toBe(0);
    await page.getByLabel(t('review.verdict_filter'), { exact: true }).selectOption({ label: t('review.verdict_expert_right') });
    await page.getByRole('button', { name: t('action.filter') }).click();
    await page.waitForURL(/[?&]verdict=expert_right/);
    const mine = page.getByRole('table').locator('tbody tr');
    expect(await mine.count()).toBe(1);
    await mine.first().getByRole('link', { name: ROWS[WORST]!.user_input }).waitFor();
    await mine.first().locator('.badge').getByText(t('review.verdict_expert_right'), { exact: true }).waitFor();
    await page.getByRole('link', { name: `${t('review.verdict_expert_right')} (1)` }).waitFor();
  });

  it('records the report as the metric\'s calibration', async () => {
    const t = en;
    expect(app.ctx.calibration.latestFor(datasetId, 'faithfulness')).toBeUndefined();
    // The address htmx pushed brings the report back as it was left.
    await page.goto(reportUrl);
    expect(await page.getByRole('slider', { name: t('calib.threshold') }).inputValue()).toBe(String(MOVED));
    expect(await page.locator('#threshold-value').textContent()).toBe(MOVED.toFixed(2));
    expect(await page.getByLabel(t('calib.part'), { exact: true }).inputValue()).toBe('all');
    await recordCalibration(page, t);
    const latest = app.ctx.calibration.latestFor(datasetId, 'faithfulness');
    expect(latest).toMatchObject({ criterion: 'correct', run: 'ragas', part: 'all', strength_name: 'cohen_kappa' });
    expect(latest!.strength!.toFixed(3)).toBe(expected(MOVED).kappa);
    expect(JSON.parse(latest!.report)).toMatchObject({ n: N, threshold: MOVED });
    // After the redirect the report still shows the recorded state. (It should also say "Calibration
    // recorded.", but does not: a known bug, below.)
    expect(new URL(page.url()).search).toBe(new URL(reportUrl).search);
    expect(await page.locator('#report #figures .sub').textContent()).toBe(`n = ${N}`);
    await reportShows(page, MOVED);
  });

  it('shows the report in Chinese', async () => {
    const t = zh;
    const zhPage = await personPage('zh-CN');
    await logIn(zhPage, app.url, ADMIN, t);
    expect(await zhPage.locator('html').getAttribute('lang')).toBe('zh-CN');
    await zhPage.goto(reportUrl);
    await zhPage.getByRole('heading', { level: 1, name: t('calib.title') }).waitFor();
    const shown = await readReport(zhPage, t);
    expect(shown.accuracy).toBe(expected(MOVED).accuracy);
    expect(shown.cells).toEqual(expected(MOVED).cells);
    const heatmap = zhPage.locator('#report svg.chart-confusion');
    expect(await heatmap.getAttribute('aria-label')).toBe(t('calib.chart_confusion'));
    for (const label of [t('calib.expert_pass'), t('calib.expert_fail'), t('calib.judge_pass'), t('calib.judge_fail')]) {
      await heatmap.locator('text').getByText(label, { exact: true }).waitFor();
    }
    await zhPage.locator('#report svg.chart-kappa-threshold .legend').getByText(t('calib.current'), { exact: true }).waitFor();
    await zhPage.getByRole('link', { name: t('calib.review') }).waitFor();
    await screenshot(zhPage, 'calibration-03-report-zh');
    // The item under review, in Chinese: its contexts are marked by the browser with the question's terms.
    await zhPage.goto(`${app.url}/runs/${runId}/review/${ids[WORST]}`);
    await zhPage.getByRole('heading', { level: 1, name: ROWS[WORST]!.user_input }).waitFor();
    await zhPage.locator('.context-text mark').first().waitFor();
    await screenshot(zhPage, 'calibration-07-review-item-zh');
  });

  it('ran without script errors, CSP refusals or failed requests', () => {
    expect(errors.filter((e) => !KNOWN_CONSOLE_ERRORS.some((re) => re.test(e)))).toEqual([]);
  });
});

// Console errors of known, accepted causes; none at the moment.
const KNOWN_CONSOLE_ERRORS: RegExp[] = [];

// Bugs found while writing the test above, now fixed; each test states the behaviour a user needs.
describe('calibration report: behaviour that once was broken', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let datasetId = 0;
  let criterionId = 0;
  let runId = 0;
  const errors: string[] = [];
  const reportAt = (threshold: number) => `${app.url}/datasets/${datasetId}/calibration?criterion=${criterionId}&run=${runId}&part=all&threshold=${threshold}`;

  beforeAll(async () => {
    app = await startTestApp();
    const seeded = await seed(app);
    ({ datasetId, runId } = seeded);
    criterionId = seeded.correct.id;
    browser = await launchBrowser();
    page = await (await newContext(browser)).newPage();
    watchErrors(page, errors);
    await logIn(page, app.url, ADMIN, en);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  // views/pages/calibration.tsx: the filters form sends a request on `change`, which a range input fires
  // for every keyboard step, besides the delayed `input`. htmx 4's default sync ("queue first") queues one
  // request behind the one in flight and drops the others, the last one included; and the queued one was
  // targeted at the #report that the first response replaces (outerHTML), so its answer lands in a detached
  // element. The report stays at the first step (0.55) while the slider and its output say 0.75.
  // Fix: hx-sync="this:replace" on the form (a newer request aborts the one in flight; checked by setting
  // the attribute from the test: passes, no console errors). "queue last" does not help: it queues too.
  // The server is slowed down here (700 ms per report, like a large dataset) to make the race certain.
  it('the report follows the slider when the keys are faster than the server', async () => {
    await page.goto(reportAt(START));
    await reportShows(page, START);
    await page.route('**/calibration?**', async (route) => {
      if (route.request().isNavigationRequest()) return route.continue();
      await new Promise((resolve) => setTimeout(resolve, 700));
      await route.continue();
    });
    try {
      await page.getByRole('slider', { name: en('calib.threshold') }).focus();
      for (let i = 0; i < STEPS; i++) await page.keyboard.press('ArrowRight');
      await page.locator('#threshold-value').getByText(MOVED.toFixed(2), { exact: true }).waitFor({ timeout: 2_000 });
      await reportShows(page, MOVED, 6_000);
      expect(await page.locator('#report svg.chart-confusion g.cell > text:first-of-type').allTextContents()).toEqual(expected(MOVED).cells);
    } finally {
      await page.unrouteAll({ behavior: 'wait' });
    }
  });

  // server/calibration/routes.ts, GET /datasets/:id/calibration: pageContext(req) is called twice, first
  // in body() for the report and then for the page; the first call takes the session's flash, so the
  // page never says "Calibration recorded.". Fix: call pageContext(req) once in the handler and pass
  // that ctx to both ReportBody and CalibrationPage.
  it('says "Calibration recorded." after recording', async () => {
    await page.goto(reportAt(MOVED));
    await recordCalibration(page, en);
    expect(app.ctx.calibration.latestFor(datasetId, 'faithfulness')).toBeDefined();
    expect(await page.getByRole('status').filter({ hasText: en('calib.recorded') }).count()).toBe(1);
  });

  // views/layout.tsx + public/app.js: the language switch posts `back` = the address the page was loaded
  // with; after htmx has pushed a new address (other part, other threshold) switching the language goes
  // back to the old report. Fix: in app.js, before a select[data-autosubmit] submits its form, set the
  // form's `back` field (when it has one) to location.pathname + location.search.
  it('switching the language keeps the part and threshold chosen on the page', async () => {
    await page.goto(`${app.url}/datasets/${datasetId}/calibration`);
    await page.getByLabel(en('calib.part'), { exact: true }).selectOption('all');
    await page.waitForURL(/[?&]part=all/);
    await page.locator('#report #figures .sub').getByText(`n = ${N}`, { exact: true }).waitFor();
    await page.getByLabel(en('nav.language')).selectOption({ label: '简体中文' });
    await page.getByRole('heading', { level: 1, name: zh('calib.title') }).waitFor();
    expect(await page.getByLabel(zh('calib.part'), { exact: true }).inputValue()).toBe('all');
  });

  it('ran without script errors or CSP refusals', () => {
    expect(errors).toEqual([]);
  });
});
