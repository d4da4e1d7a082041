// The labelling flow in a real browser: an expert labels three items with the keyboard only (digits,
// Shift+digit, R, Escape, Enter, S, ?), a second expert working in Chinese disagrees on one of them,
// and the admin adjudicates the disagreement. Screenshots land in screenshots/ for a human to look at.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers.ts';
import { translator } from '../../server/i18n/index.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import { launchBrowser, newContext, screenshot, screenshotLive, stopAtFirstFailure, watchErrors, logIn } from './browser.ts';

const en = translator('en');
const zh = translator('zh');

const ADMIN = { email: 'ada@example.com', name: 'Ada Admin', password: 'correct horse battery' };
const EXPERT_A = { email: 'li.wei@example.com', name: 'Li Wei', password: 'another long password' };
const EXPERT_B = { email: 'wang.fang@example.com', name: '王芳', password: 'yet another long password' };
const DATASET = '客服问答 / Support answers';

// Imported in this order, so response ids ascend with it; the queue hands out the lowest id first.
const ROWS = [
  { user_input: '张伟是哪个部门的？', retrieved_contexts: ['牛顿发现了万有引力', '张伟 教研部工程师，他最近在负责课程研发'],
    response: '张伟是教研部的。', reference: '张伟是教研部的成员。', system: 'rag-v1' },
  { user_input: 'How many days of annual leave do new employees get?',
    retrieved_contexts: ['New employees receive 15 working days of annual leave in their first year, prorated from the start date.',
      'The cafeteria on the second floor is open from 8am to 6pm on working days.'],
    response: 'New employees get 15 working days of annual leave, prorated in the first year.',
    reference: '15 working days in the first year, prorated from the start date.', system: 'rag-v1' },
  { user_input: '试用期是多久？', retrieved_contexts: ['年假从入职第二年开始计算。', '试用期为三个月，表现优秀者可申请提前转正。'],
    response: '试用期为六个月。', reference: '试用期为三个月。', system: 'rag-v2' },
  { user_input: 'Who approves a remote work request?',
    retrieved_contexts: ['Remote work requests are approved by the direct manager; HR is notified through the HR portal.',
      'Expense reports are approved by the finance team within five working days.'],
    response: 'Your direct manager approves it, and HR is informed via the portal.',
    reference: 'The direct manager; HR is notified through the HR portal.', system: 'rag-v2' },
];

/** What expert A chooses on an item, as keys: option keys are 1-based, contexts too. */
interface Choice { correct: 1 | 2; quality: 1 | 2 | 3 | 4 | 5; context: 1 | 2; rationale: string }

/** Waits until the element with this id has keyboard focus (polling, no fixed sleeps). */
async function expectFocus(page: Page, id: string | null): Promise<void> {
  try {
    await page.waitForFunction((want) => (want === null ? document.activeElement === document.body : document.activeElement?.id === want), id, { timeout: 5_000 });
  } catch {
    const actual = await page.evaluate(() => `${document.activeElement?.tagName}#${document.activeElement?.id}`);
    throw new Error(`expected focus on ${id === null ? 'the page body' : `#${id}`}, but it is on ${actual}`);
  }
}

/** Collects uncaught script errors and console errors (CSP refusals and failed requests show up there). */
/** The workspace shows this item and app.js has made its first criterion the current one. */
async function workspaceReady(page: Page, responseId: number, firstCriterion: number): Promise<void> {
  await page.locator(`#workspace[data-response="${responseId}"] fieldset.criterion.current[data-criterion="${firstCriterion}"]`).waitFor();
  await page.waitForFunction((p) => location.pathname === p, `/responses/${responseId}/label`, { timeout: 5_000 })
    .catch(async () => { throw new Error(`expected the URL /responses/${responseId}/label, got ${new URL(page.url()).pathname}`); });
}

function progressText(t: typeof en, done: number, total: number, mine: number): string {
  return t('label.progress_text', { done, total, pct: Math.round((100 * done) / total), mine });
}

async function expectProgress(page: Page, t: typeof en, done: number, total: number, mine: number): Promise<void> {
  const want = progressText(t, done, total, mine);
  const text = page.locator('#workspace .ws-progress .sub');
  await page.locator('#workspace .ws-progress').getByText(want, { exact: true }).waitFor({ timeout: 5_000 })
    .catch(async () => { throw new Error(`expected progress "${want}", got "${await text.textContent()}"`); });
  expect(await page.locator('#workspace progress').getAttribute('value')).toBe(String(done));
  expect(await page.locator('#workspace progress').getAttribute('max')).toBe(String(total));
}

describe('labelling with the keyboard, disagreement and adjudication', () => {
  let app: TestApp;
  let browser: Browser;
  const pages: Page[] = [];
  const errors: string[] = [];
  let datasetId = 0;
  let ids: number[] = [];
  let users: { admin: number; a: number; b: number };
  let crit: { correct: Criterion; quality: Criterion; relevant: Criterion };
  let expertA: Page;
  let expectedA: Map<number, Choice>;

  async function personPage(locale: string): Promise<Page> {
    const page = await (await newContext(browser, { locale })).newPage();
    pages.push(page);
    watchErrors(page, errors);
    return page;
  }

  /** The stored label values of one expert on one item, as [criterion, context index, value] sorted. */
  function stored(responseId: number, userId: number) {
    const mine = app.ctx.labels.mine(responseId, userId);
    return {
      state: mine?.annotation.state,
      rationale: mine?.annotation.rationale,
      values: (mine?.labels ?? []).map((l) => [l.criterion_id, l.context_index, l.value]).sort((x, y) => String(x).localeCompare(String(y))),
    };
  }

  function expected(choice: Choice) {
    return {
      state: 'submitted',
      rationale: choice.rationale,
      values: [
        [crit.correct.id, -1, choice.correct === 1 ? '1' : '0'],
        [crit.quality.id, -1, String(choice.quality)],
        [crit.relevant.id, 0, choice.context === 1 ? '1' : '0'],
        [crit.relevant.id, 1, choice.context === 2 ? '1' : '0'],
      ].sort((x, y) => String(x).localeCompare(String(y))),
    };
  }

  /** Labels the item on screen with keys only, then submits it with Enter and waits for the next one. */
  async function labelWithKeys(page: Page, responseId: number, choice: Choice, next: number, after?: (page: Page) => Promise<void>) {
    const ws = page.locator(`#workspace[data-response="${responseId}"]`);
    const field = (c: Criterion) => ws.locator(`fieldset.criterion[data-criterion="${c.id}"]`);

    await page.keyboard.press(String(choice.correct));
    await field(crit.correct).locator(`input[data-key="${choice.correct}"]:checked`).waitFor();
    await field(crit.quality).and(page.locator('.current')).waitFor(); // the digit moved on to the next criterion
    await page.keyboard.press(String(choice.quality));
    await field(crit.quality).locator(`input[data-key="${choice.quality}"]:checked`).waitFor();
    await page.keyboard.press(`Shift+Digit${choice.context}`);
    await ws.locator(`input[data-context-key="${choice.context}"]:checked`).waitFor();
    expect(await ws.locator('input[data-context-key]:checked').count()).toBe(1);

    await page.keyboard.press('r');
    await expectFocus(page, 'f-rationale');
    await page.keyboard.type(choice.rationale);
    expect(await page.locator('#f-rationale').inputValue()).toBe(choice.rationale); // the "r" did not land in the text
    await page.keyboard.press('Escape');
    await expectFocus(page, null);
    if (after) await after(page);

    await page.keyboard.press('Enter');
    await workspaceReady(page, next, crit.correct.id);
    expect(await page.locator('#workspace').getByRole('heading', { level: 1, name: ROWS[ids.indexOf(next)]!.user_input }).count()).toBe(1);
  }

  beforeAll(async () => {
    app = await startTestApp({}, { labelThread: true }); // as server/main.ts runs it
    const { ctx } = app;
    const admin = await ctx.users.createFirstAdmin(ADMIN);
    const a = await ctx.users.createUser(admin.id, { ...EXPERT_A, role: 'expert' });
    const b = await ctx.users.createUser(admin.id, { ...EXPERT_B, role: 'expert' });
    users = { admin: admin.id, a: a.id, b: b.id };
    const dataset = ctx.datasets.create(admin.id, { name: DATASET, description: 'Answers of the support bot, checked by HR experts.', language: 'zh', domain: 'HR' });
    datasetId = dataset.id;

    const file = path.join(app.dir, 'responses.jsonl');
    fs.writeFileSync(file, ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const result = await ctx.imports.importFile(admin.id, datasetId, file, { format: 'jsonl' });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    ids = ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(datasetId) as number[];
    expect(ids).toHaveLength(ROWS.length);

    const base = { scale_min: null, scale_max: null };
    crit = {
      correct: ctx.criteria.create(admin.id, datasetId, { ...base, name: 'correct', kind: 'binary', target: 'response',
        options: [{ value: 'correct', label: 'Correct' }, { value: 'wrong', label: 'Wrong' }],
        guidelines: 'Is the answer factually right according to the reference? Partly right counts as wrong.' }),
      quality: ctx.criteria.create(admin.id, datasetId, { name: 'quality', kind: 'ordinal', target: 'response', options: [], scale_min: 1, scale_max: 5,
        guidelines: '1 = useless, 3 = usable with edits, 5 = could be sent as is.' }),
      relevant: ctx.criteria.create(admin.id, datasetId, { ...base, name: 'relevant', kind: 'binary', target: 'context', options: [],
        guidelines: 'Does the context help answer the question?' }),
    };
    ctx.labels.setAssignment(admin.id, datasetId, ctx.datasets.get(datasetId)!.version, 2, [
      { userId: a.id, label: true, adjudicate: false },
      { userId: b.id, label: true, adjudicate: false },
      { userId: admin.id, label: false, adjudicate: true },
    ]);

    browser = await launchBrowser();
    expertA = await personPage('en-US');
  });

  stopAtFirstFailure('labelling', () => pages, () => app.logs);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('expert A labels three items with the keyboard only, skipping one', async () => {
    const page = expertA;
    const t = en;
    const [r1, r2, r3, r4] = ids as [number, number, number, number];
    const total = ROWS.length * 2;
    expectedA = new Map<number, Choice>([
      [r1, { correct: 1, quality: 4, context: 2, rationale: 'Context 2 says 教研部; the answer matches the reference.' }],
      [r2, { correct: 1, quality: 5, context: 1, rationale: 'Matches the policy in context 1, including the proration.' }],
      [r4, { correct: 1, quality: 3, context: 1, rationale: 'Right, though it could name the HR portal.' }],
    ]);

    await logIn(page, app.url, EXPERT_A, t);
    await page.getByRole('link', { name: DATASET }).click();
    await page.waitForURL(`**/datasets/${datasetId}`);
    // Start labelling is a POST (reserving an item is a state change): it redirects to the item it reserved.
    await page.getByRole('button', { name: t('label.start') }).click();
    await page.waitForURL(`**/responses/${r1}/label`);
    await page.locator(`#workspace[data-response="${r1}"] fieldset.criterion.current[data-criterion="${crit.correct.id}"]`).waitFor();
    await expectProgress(page, t, 0, total, 0);
    // The question's terms are highlighted in the context that holds the answer, not in the other one.
    const contextItems = page.locator('#workspace .contexts > li');
    expect(await contextItems.nth(1).locator('mark').allTextContents()).toContain('张伟');
    expect(await contextItems.nth(0).locator('mark').count()).toBe(0);

    // "?" opens the list of keys; Escape closes it again.
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: t('label.keys') });
    await dialog.waitFor();
    await dialog.getByText(t('label.key_submit')).waitFor();
    await screenshotLive(page, 'labelling-03-keys-dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await expectFocus(page, null);

    await labelWithKeys(page, r1, expectedA.get(r1)!, r2, async (p) => {
      await p.locator('#draft-status').getByText(t('label.draft_saved')).waitFor();
      await screenshotLive(p, 'labelling-01-workspace-en');
    });
    await expectProgress(page, t, 1, total, 1);
    expect(stored(r1, users.a)).toEqual(expected(expectedA.get(r1)!));
    // The next item came in by an htmx swap: its contexts are marked too, by its own question's terms.
    await contextItems.nth(0).locator('mark', { hasText: 'annual' }).waitFor();
    expect(await contextItems.nth(0).locator('mark').allTextContents()).toEqual(expect.arrayContaining(['employees', 'working', 'days', 'annual', 'leave']));
    expect(await contextItems.nth(1).locator('mark').allTextContents()).toEqual(['working', 'days']);

    await labelWithKeys(page, r2, expectedA.get(r2)!, r3);
    await expectProgress(page, t, 2, total, 2);
    expect(stored(r2, users.a)).toEqual(expected(expectedA.get(r2)!));

    // S skips the Chinese item without saving anything; the queue moves on to the last one.
    await page.keyboard.press('s');
    await workspaceReady(page, r4, crit.correct.id);
    await expectProgress(page, t, 2, total, 2);
    // Being shown an item reserves it (an empty draft); skipping leaves nothing submitted and no values.
    const skipped = app.ctx.labels.mine(r3, users.a);
    expect(skipped === null || (skipped.annotation.state === 'draft' && skipped.labels.length === 0)).toBe(true);
    await screenshotLive(page, 'labelling-02-workspace-en-english-item');

    await labelWithKeys(page, r4, expectedA.get(r4)!, r3);
    await expectProgress(page, t, 3, total, 3);
    expect(stored(r4, users.a)).toEqual(expected(expectedA.get(r4)!));
    // Back to the skipped item, untouched.
    expect(await page.locator('#workspace input:checked').count()).toBe(0);
  });

  it('expert B, working in Chinese, labels the first item differently', async () => {
    const page = await personPage('zh-CN');
    const t = zh;
    const [r1, , r3] = ids as [number, number, number];
    await logIn(page, app.url, EXPERT_B, t);
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    await page.goto(`${app.url}/responses/${r1}/label`);
    await page.locator(`#workspace[data-response="${r1}"] fieldset.criterion.current[data-criterion="${crit.correct.id}"]`).waitFor();
    await page.getByRole('button', { name: new RegExp(t('label.submit')) }).waitFor();
    await expectProgress(page, t, 3, ROWS.length * 2, 0);

    const choiceB: Choice = { correct: 2, quality: 4, context: 2, rationale: '只回答了部门，没有说明他是工程师，判为错误。' };
    await labelWithKeys(page, r1, choiceB, r3, async (p) => {
      await p.locator('#draft-status').getByText(t('label.draft_saved')).waitFor();
      await screenshotLive(p, 'labelling-04-workspace-zh');
    });
    await expectProgress(page, t, 4, ROWS.length * 2, 1);
    expect(stored(r1, users.b)).toEqual(expected(choiceB));
  });

  it('the admin sees the disagreement and sets the gold value', async () => {
    const page = await personPage('en-US');
    const t = en;
    const r1 = ids[0]!;
    await logIn(page, app.url, ADMIN, t);
    await page.getByRole('link', { name: DATASET }).click();
    await page.waitForURL(`**/datasets/${datasetId}`);
    await page.getByRole('link', { name: t('disagree.title') }).click();
    await page.waitForURL(`**/datasets/${datasetId}/disagreements`);
    await page.getByRole('heading', { level: 1, name: t('disagree.title') }).waitFor();

    // Exactly one open disagreement: "correct" on the first item, Correct against Wrong.
    const rows = page.getByRole('table').locator('tbody tr');
    expect(await rows.count()).toBe(1);
    const row = rows.first();
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('correct');
    expect((await row.locator('.tag').allTextContents()).sort()).toEqual(['Correct', 'Wrong']);
    await screenshot(page, 'labelling-05-disagreements');

    await row.getByRole('link', { name: ROWS[0]!.user_input }).click();
    await page.waitForURL(new RegExp(`/responses/${r1}#c-${crit.correct.id}--1$`));
    await page.getByRole('heading', { level: 1, name: ROWS[0]!.user_input }).waitFor();
    const slot = page.locator(`#c-${crit.correct.id}--1`);
    const values = slot.getByRole('cell').nth(1);
    await values.getByText(`Correct ${EXPERT_A.email}`).waitFor();
    await values.getByText(`Wrong ${EXPERT_B.email}`).waitFor();
    const rationales = page.getByRole('region', { name: t('response.rationales') });
    await rationales.getByText(expectedA.get(r1)!.rationale).waitFor();
    await rationales.getByText('只回答了部门，没有说明他是工程师，判为错误。').waitFor();

    const reason = 'Context 2 gives 教研部 and the question asks only for the department.';
    await slot.getByLabel(t('response.gold')).selectOption({ label: 'Correct' });
    await slot.getByLabel(t('field.reason')).fill(reason);
    await slot.getByRole('button', { name: t('response.set_gold') }).click();
    await page.getByRole('status').filter({ hasText: t('flash.adjudicated') }).waitFor();
    const gold = page.locator(`#c-${crit.correct.id}--1`).getByRole('cell').nth(2);
    expect(await gold.locator('strong').textContent()).toBe('Correct');
    await gold.getByText(`${t('response.adjudicated_by', { who: ADMIN.email })}${reason}`).waitFor();
    await screenshot(page, 'labelling-06-response-gold');

    expect(app.ctx.labels.gold(crit.correct, r1, -1)).toBe('1');
    expect(app.ctx.labels.gold(crit.quality, r1, -1)).toBe('4'); // unanimous, no adjudication needed
    expect(app.ctx.labels.adjudications(r1)).toMatchObject([{ criterion_id: crit.correct.id, context_index: -1, value: '1', reason }]);

    await page.goto(`${app.url}/datasets/${datasetId}/disagreements`);
    await page.getByText(t('disagree.none')).waitFor();

    await page.goto(`${app.url}/datasets/${datasetId}/criteria`);
    await page.getByRole('heading', { level: 1, name: t('criteria.title') }).waitFor();
    await screenshot(page, 'labelling-07-criteria');

    await page.goto(`${app.url}/datasets/${datasetId}/agreement`);
    await page.getByRole('heading', { level: 1, name: t('agreement.title') }).waitFor();
    await page.getByRole('heading', { level: 2, name: /^correct/ }).waitFor();
    await screenshot(page, 'labelling-08-agreement');
  });

  it('still holds exactly what expert A chose, after every autosave has settled', () => {
    // Drafts autosave on a delay; none may have overwritten a submitted label later on.
    for (const [rid, choice] of expectedA) expect(stored(rid, users.a)).toEqual(expected(choice));
  });

  it('ran without script errors, CSP refusals or failed requests', () => {
    expect(errors.filter((e) => !KNOWN_CONSOLE_ERRORS.some((re) => re.test(e)))).toEqual([]);
  });
});

// Console errors of known, accepted causes; none at the moment.
const KNOWN_CONSOLE_ERRORS: RegExp[] = [];

// Workspace bugs found while writing the test above, now fixed; these keep them from coming back.
describe('workspace behaviour that once was broken', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let ids: number[] = [];
  let correct: Criterion;
  let quality: Criterion;

  beforeAll(async () => {
    app = await startTestApp({}, { labelThread: true }); // as server/main.ts runs it
    const { ctx } = app;
    const admin = await ctx.users.createFirstAdmin(ADMIN);
    const dataset = ctx.datasets.create(admin.id, { name: 'Bugs', description: '', language: 'en', domain: '' });
    const file = path.join(app.dir, 'responses.jsonl');
    fs.writeFileSync(file, ROWS.slice(1).map((r) => JSON.stringify(r)).join('\n') + '\n');
    const result = await ctx.imports.importFile(admin.id, dataset.id, file, { format: 'jsonl' });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    ids = ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(dataset.id) as number[];
    correct = ctx.criteria.create(admin.id, dataset.id, { name: 'correct', kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null, guidelines: '' });
    quality = ctx.criteria.create(admin.id, dataset.id, { name: 'quality', kind: 'ordinal', target: 'response', options: [], scale_min: 1, scale_max: 5, guidelines: '' });
    browser = await launchBrowser();
    page = await (await newContext(browser)).newPage();
    await logIn(page, app.url, ADMIN, en);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const field = (c: Criterion) => page.locator(`#workspace fieldset.criterion[data-criterion="${c.id}"]`);

  // public/app.js: `htmx:after:swap` calls resetWorkspace() after *every* swap, including the autosave
  // that swaps "Draft saved" into #draft-status, so the current criterion jumps back to the first one
  // and the next digit silently changes the wrong criterion.
  it('an autosave leaves the current criterion where it was', async () => {
    await page.goto(`${app.url}/responses/${ids[0]}/label`);
    await field(correct).and(page.locator('.current')).waitFor();
    const autosaved = page.evaluate(() => new Promise<void>((resolve) => document.addEventListener('htmx:after:swap', () => resolve(), { once: true })));
    await page.keyboard.press('1'); // correct: Yes; quality becomes current
    await page.keyboard.press('3'); // quality: 3; stays current, it is the last criterion
    await autosaved;
    await page.keyboard.press('2'); // meant for quality
    await field(quality).locator('input[data-key="2"]:checked').or(field(correct).locator('input[data-key="2"]:checked')).waitFor();
    expect(await field(correct).locator('input:checked').getAttribute('value')).toBe('1');
    expect(await field(quality).locator('input:checked').getAttribute('value')).toBe('2');
  });

  // public/app.js: the workspace keydown handler does not stand aside while the keys dialog is open,
  // so Enter on its focused "Close" button submits the (unfinished) item instead and gets a 422.
  it('Enter on the keys dialog closes it and submits nothing', async () => {
    await page.goto(`${app.url}/responses/${ids[1]}/label`);
    await field(correct).and(page.locator('.current')).waitFor();
    await page.locator('#workspace').evaluate((ws) => { ws.dataset.original = 'yes'; });
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: en('label.keys') });
    await dialog.waitFor();
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.locator('#workspace[data-original="yes"]').count()).toBe(1);
    expect(await page.locator('#workspace [role=alert]').count()).toBe(0);
  });

  // views/pages/label.tsx + server/labels/routes.ts: the form's hidden `version` is rendered once, but
  // every autosave bumps the annotation's version, so submitting an item that already had a draft,
  // after changing anything in it, is refused as a conflict (409) with "You saved this item in another window".
  // public/app.js: a save that gets no answer (the connection broke, the server restarting) used to
  // change nothing on the page and say nothing; the expert could not tell it from a save.
  it('says so when a save gets no answer, keeps the choice, and saves on the next try', async () => {
    const rid = ids[0]!;
    await page.goto(`${app.url}/responses/${rid}/label`);
    await field(correct).and(page.locator('.current')).waitFor();
    await page.keyboard.press('1');
    await field(quality).and(page.locator('.current')).waitFor();
    await page.keyboard.press('4');
    await page.locator('#draft-status').getByText(en('label.draft_saved')).waitFor();
    // The autosave of the last choice has landed (the status says "saved" from the first one already):
    // an autosave answered after the failed save would, rightly, take the notice away again.
    await expect.poll(() => app.ctx.db.prepare(`SELECT l.value FROM label l JOIN annotation a ON a.id = l.annotation_id
      WHERE a.response_id = ? AND l.criterion_id = ?`).pluck().get(rid, quality.id), { timeout: 10_000 }).toBe('4');
    const save = `**/responses/${rid}/label`;
    await page.route(save, (route) => (route.request().method() === 'POST' ? route.abort('connectionreset') : route.continue()));
    await page.keyboard.press('Enter');
    const notice = page.getByRole('alert').filter({ hasText: en('err.request_failed') });
    await notice.waitFor();
    expect(await page.locator('#workspace').getAttribute('data-response')).toBe(String(rid));
    expect(await field(correct).locator('input[value="1"]').isChecked()).toBe(true);
    expect(await field(quality).locator('input[value="4"]').isChecked()).toBe(true);
    expect(app.ctx.db.prepare('SELECT state FROM annotation WHERE response_id = ?').pluck().get(rid)).toBe('draft');
    await screenshotLive(page, 'label-request-failed-en');
    // An autosave answered after the failed save leaves the notice: the save itself still was not made.
    await page.locator('#f-rationale').fill('typed after the failed save');
    await expect.poll(() => app.ctx.db.prepare('SELECT rationale FROM annotation WHERE response_id = ?').pluck().get(rid), { timeout: 10_000 })
      .toBe('typed after the failed save');
    await page.locator('#draft-status').getByText(en('label.draft_saved')).waitFor();
    expect(await notice.isVisible()).toBe(true);
    await page.unroute(save);
    await page.getByRole('button', { name: en('label.submit') }).focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((r) => document.getElementById('workspace')?.getAttribute('data-response') !== r, String(rid));
    await notice.waitFor({ state: 'hidden' });
    expect(app.ctx.db.prepare('SELECT state FROM annotation WHERE response_id = ?').pluck().get(rid)).toBe('submitted');
  });

  it('an item resumed from a draft submits after a further autosave', async () => {
    const rid = ids[2]!;
    await page.goto(`${app.url}/responses/${rid}/label`);
    await field(correct).and(page.locator('.current')).waitFor();
    await page.keyboard.press('1');
    await page.locator('#draft-status').getByText(en('label.draft_saved')).waitFor();
    await page.reload(); // come back to the item later
    await field(quality).and(page.locator('.current')).waitFor();
    await page.keyboard.press('4');
    await page.locator('#draft-status').getByText(en('label.draft_saved')).waitFor();
    await page.keyboard.press('Enter');
    await page.waitForFunction((r) => {
      const ws = document.getElementById('workspace');
      return ws !== null && (ws.getAttribute('data-response') !== r || ws.querySelector('[role=alert]') !== null);
    }, String(rid));
    expect(await page.locator('#workspace [role=alert]').allTextContents()).toEqual([]);
    expect(app.ctx.db.prepare('SELECT state FROM annotation WHERE response_id = ?').pluck().get(rid)).toBe('submitted');
  });
});
