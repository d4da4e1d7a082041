// The true score in a real browser: an eval engineer draws an estimation sample on the calibration
// page (keyboard only), an expert labels the sampled items from the front of the queue with the
// keyboard, and the calibration page then shows the three intervals (judge only, experts only,
// corrected) per system, the sample's progress and the planner; the same in Chinese, and the
// dataset overview's line. Screenshots land in screenshots/ for a human to look at.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers.ts';
import { translator } from '../../server/i18n/index.ts';
import { launchBrowser, logInThroughForm, newContext, screenshot, screenshotLive, stopAtFirstFailure, watchErrors } from './browser.ts';

const en = translator('en');
const zh = translator('zh');

const ADMIN = { email: 'ada@example.com', name: 'Ada Admin', password: 'correct horse battery' };
const EXPERT = { email: 'li.wei@example.com', name: 'Li Wei', password: 'another long password' };
const DATASET = 'HR answers';
const QUESTIONS = 30;
const SAMPLE = 10;

const TOPICS = [
  'How many days of annual leave do new employees get?',
  'Who approves a remote work request?',
  'How long is the probation period?',
  'Can unused leave be carried over to next year?',
  'When is the salary paid each month?',
  'How do I claim travel expenses?',
];

// The experts pass an answer unless its case number is a multiple of 3; the judge is lenient and
// passes every answer of rag-v2, and the good ones of rag-v1.
const pass = (k: number) => k % 3 !== 0;
const ROWS = Array.from({ length: QUESTIONS * 2 }, (_, i) => {
  const k = i + 1;
  const system = i % 2 === 0 ? 'rag-v1' : 'rag-v2';
  const topic = TOPICS[Math.floor(i / 2) % TOPICS.length]!;
  return {
    user_input: `${topic} (case ${Math.floor(i / 2) + 1})`,
    response: `Answer ${k}: ${pass(k) ? 'as the policy in the first context says.' : 'something the contexts do not support.'}`,
    retrieved_contexts: [`Policy text ${k} about: ${topic.toLowerCase()}`],
    reference: `Reference answer ${Math.floor(i / 2) + 1}.`,
    system,
    faithfulness: pass(k) ? 0.92 : system === 'rag-v2' ? 0.81 : 0.12,
  };
});

let app: TestApp;
let browser: Browser;
let admin: Page;
let expert: Page;
let datasetId: number;
let runId: number;
let criterionId: number;
const errors: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  const { ctx } = app;
  const a = await ctx.users.createFirstAdmin(ADMIN);
  await ctx.users.createUser(a.id, { ...EXPERT, role: 'expert' });
  datasetId = ctx.datasets.create(a.id, { name: DATASET, description: 'Answers of the HR assistant.', language: 'en', domain: 'HR' }).id;
  const file = path.join(app.dir, 'ragas.jsonl');
  fs.writeFileSync(file, ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const result = await ctx.imports.importFile(a.id, datasetId, file, { format: 'jsonl', runName: 'ragas' });
  expect(result.ok, JSON.stringify(result)).toBe(true);
  criterionId = ctx.criteria.create(a.id, datasetId, { name: 'correct', kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null,
    guidelines: 'Pass when the answer is what the policy says.' }).id;
  runId = ctx.runner.queries.byName(datasetId, 'ragas', 'faithfulness')!.id;
  browser = await launchBrowser();
  admin = await (await newContext(browser, { height: 1000 })).newPage();
  expert = await (await newContext(browser)).newPage();
  for (const p of [admin, expert]) watchErrors(p, errors);
  await logInThroughForm(admin, app.url, ADMIN);
  await logInThroughForm(expert, app.url, EXPERT);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('the true score, from drawing a sample to the three intervals', () => {
  stopAtFirstFailure('estimate', () => [admin, expert], () => app.logs);

  it('an eval engineer draws a sample from the keyboard', async () => {
    await admin.goto(`${app.url}/datasets/${datasetId}/calibration?criterion=${criterionId}&run=${runId}&part=all`);
    await admin.locator('#true-score').getByText(en('est.no_sample')).waitFor();
    await admin.getByLabel(en('est.size')).focus();
    await admin.keyboard.press('ControlOrMeta+a');
    await admin.keyboard.type(String(SAMPLE));
    await admin.keyboard.press('Tab');
    await admin.keyboard.type('42');
    await admin.keyboard.press('Enter');
    await admin.getByText(en('est.drawn', { n: SAMPLE, id: 1, seed: 42 })).waitFor();
    await admin.locator('#true-score').getByText(en('est.progress', { completed: 0, drawn: SAMPLE })).waitFor();
  });

  it('an expert labels the sampled items, first in the queue, with the keyboard', async () => {
    const sampled = app.ctx.estimates.queries.items.all(1).map((it) => it.response_id);
    expect(sampled).toHaveLength(SAMPLE);
    await expert.goto(`${app.url}/datasets/${datasetId}`);
    await expert.getByRole('button', { name: en('label.start') }).click();
    const seen: number[] = [];
    for (let k = 0; k < SAMPLE; k++) {
      const ws = expert.locator('#workspace[data-response]');
      await ws.waitFor();
      const id = Number(await ws.getAttribute('data-response'));
      seen.push(id);
      const n = Number(/Answer (\d+)/.exec((await ws.locator('.answer').first().textContent()) ?? '')![1]);
      const key = pass(n) ? '1' : '2';
      await expert.keyboard.press(key);
      await ws.locator(`input[data-key="${key}"]:checked`).waitFor();
      if (k === 0) await screenshotLive(expert, 'estimate-en-1-labelling-sampled-item');
      await expert.keyboard.press('Enter');
      await expert.locator(`#workspace:not([data-response="${id}"])`).waitFor();
    }
    expect(seen).toEqual(sampled);
  });

  it('the calibration page shows the three intervals per system, the sample complete and the planner', async () => {
    await admin.goto(`${app.url}/datasets/${datasetId}/calibration?criterion=${criterionId}&run=${runId}&part=all`);
    const section = admin.locator('#true-score');
    await section.getByText(en('est.progress', { completed: SAMPLE, drawn: SAMPLE })).waitFor();
    const chart = section.locator('svg.chart-intervals');
    await chart.waitFor();
    for (const kind of ['judge', 'gold', 'corrected']) expect(await chart.locator(`g.mark-${kind}`).count()).toBe(3);
    const rows = section.locator('table.estimate-table tbody tr');
    expect(await rows.count()).toBe(3);
    expect((await rows.first().getByRole('rowheader').textContent())?.trim()).toBe(en('est.all_systems'));
    // The judge alone claims 50 of 60 pass; the experts' truth is 40 of 60.
    expect(await rows.first().getByRole('cell').first().textContent()).toContain('0.833');
    await section.getByRole('heading', { name: en('est.planner_heading') }).waitFor();
    await section.getByRole('heading', { name: en('est.compare_heading') }).waitFor();
    await screenshotLive(admin, 'estimate-en-2-calibration-true-score');
    // Sixty items cannot give ±0.05; the planner is asked for ±0.15, from the keyboard.
    await section.getByLabel(en('est.half_width')).focus();
    await admin.keyboard.press('ControlOrMeta+a');
    await admin.keyboard.type('0.15');
    await admin.keyboard.press('Enter');
    await admin.waitForURL(/h=0\.15/);
    await section.getByRole('button', { name: /Draw the \d+ extra labels/ }).focus();
    await screenshotLive(admin, 'estimate-en-3-planner');
  });

  it('one click draws the extra labels the planner asks for', async () => {
    const before = app.ctx.estimates.queries.items.all(1).length;
    await admin.locator('#true-score').getByRole('button', { name: /Draw the \d+ extra labels/ }).press('Enter');
    await admin.getByText(/Added \d+ responses to sample #1/).waitFor();
    expect(app.ctx.estimates.queries.items.all(1).length).toBeGreaterThan(before);
    await admin.locator('#true-score .alert').first().waitFor(); // now more than 5 % is missing
  });

  it('the same in Chinese, and the dataset overview\'s line', async () => {
    await admin.getByLabel(en('nav.language')).selectOption({ label: '简体中文' });
    await admin.waitForURL('**/calibration**');
    const section = admin.locator('#true-score');
    await section.getByRole('heading', { name: zh('est.title') }).waitFor();
    expect(await section.locator('table.estimate-table thead').textContent()).toContain(zh('est.corrected'));
    await screenshot(admin, 'estimate-zh-1-calibration-true-score');
    await admin.goto(`${app.url}/datasets/${datasetId}`);
    expect(await admin.locator('.true-score-overview').textContent()).toContain(zh('est.title'));
    await screenshot(admin, 'estimate-zh-2-dataset-overview');
    expect(errors, errors.join('\n')).toEqual([]);
  });
});
