// The first hour of a real team, in a real browser, once in English and once in Chinese (issue #11):
// the admin sets goldset up and loads the example, invites an expert, who writes a question that the
// admin approves from the review inbox; the expert labels with the keyboard (overlap 2 with the
// example experts), walks back through their history with B and forward with N; the admin
// adjudicates a disagreement without a page load, sets up the judge against the fake OpenAI server,
// runs it (the scores table follows the live progress), opens a trace, the calibration report with
// its suggested pair and best threshold, the judge audit, the prompt lab, the export, the audit log.
// Every main page is checked with axe-core (zero violations) in a context that bypasses the CSP
// (axe is injected as a script, which the app's CSP forbids); screenshots land in screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { translator, type T } from '../../server/i18n/index.ts';
import { axeViolations, layoutProblems, launchBrowser, renderedFonts, newContext, screenshot, screenshotLive, stopAtFirstFailure } from './browser.ts';

for (const lang of ['en', 'zh'] as const) {
  const t: T = translator(lang);
  const locale = lang === 'zh' ? 'zh-CN' : 'en-US';
  const ADMIN = { email: `ada-${lang}@example.com`, name: lang === 'zh' ? '管理员阿达' : 'Ada Admin', password: 'correct horse battery' };
  const EXPERT = { email: `mei-${lang}@example.com`, name: lang === 'zh' ? '陈美' : 'Mei Chen', password: 'another long password' };
  const example = lang === 'zh' ? '新人入职答疑（示例）' : 'HR onboarding (example)';

  describe(`the first hour, ${lang}`, () => {
    let app: TestApp;
    let fake: FakeOpenAI;
    let browser: Browser;
    let adminContext: BrowserContext;
    let axeContext: BrowserContext;
    let admin: Page;
    let expert: Page;
    let axePage: Page;
    let datasetId = 0;
    const errors: string[] = [];
    const violations: string[] = [];
    const shot = (page: Page, name: string) => screenshot(page, `firsthour-${lang}-${name}`);
    const live = (page: Page, name: string) => screenshotLive(page, `firsthour-${lang}-${name}`);

    function watch(page: Page): void {
      page.on('pageerror', (e) => errors.push(`pageerror on ${page.url()}: ${e.message}`));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(`console on ${page.url()}: ${m.text()}`); });
    }

    /** Opens the page in the axe context (the admin's session, CSP bypassed) and records every violation (and broken layout). */
    async function axe(path: string): Promise<void> {
      await axePage.goto(app.url + path);
      violations.push(...await axeViolations(axePage, path), ...await layoutProblems(axePage, path));
    }

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      app = await startTestApp({}, { labelThread: true }); // as server/main.ts runs it
      browser = await launchBrowser();
      adminContext = await newContext(browser, { locale, width: 1440, height: 900 });
      admin = await adminContext.newPage();
      watch(admin);
    });

    stopAtFirstFailure(`firsthour-${lang}`, () => [admin, ...(expert ? [expert] : [])], () => app.logs);

    afterAll(async () => {
      await browser?.close();
      await app?.close();
      await fake?.close();
    });

    it('sets goldset up and loads the example, which says what waits for whom', async () => {
      await admin.goto(app.url + '/');
      await admin.waitForURL('**/setup');
      await admin.getByLabel(t('field.email')).fill(ADMIN.email);
      await admin.getByLabel(t('field.name')).fill(ADMIN.name);
      await admin.getByLabel(t('field.password')).fill(ADMIN.password);
      await admin.getByRole('button', { name: t('setup.submit') }).click();
      await admin.waitForURL('**/datasets');
      await admin.getByRole('button', { name: t('datasets.load_example') }).click();
      await admin.waitForURL(/\/datasets\/\d+$/);
      await admin.goto(app.url + '/datasets');
      await admin.getByRole('link', { name: example }).click();
      datasetId = Number(new URL(admin.url()).pathname.split('/').pop());
      await admin.getByRole('heading', { level: 2, name: t('fh.waiting_title') }).waitFor();
      await admin.getByText(t('fh.wait_disagreements')).waitFor();
      await shot(admin, '01-dataset');
      // The axe context shares the admin's session: its cookies, a page whose CSP is not enforced.
      axeContext = await browser.newContext({ locale, bypassCSP: true, viewport: { width: 1440, height: 900 } });
      await axeContext.addCookies(await adminContext.cookies());
      axePage = await axeContext.newPage();
      await axe('/datasets');
      await axe(`/datasets/${datasetId}`);
      await axe(`/datasets/${datasetId}/criteria`);
      await shot(axePage, '01b-criteria'); // the example's binary criteria answer in the dataset's language
      expect(await axePage.locator('#f-options').getAttribute('placeholder')).toBe(t('hint.options_example')); // the new criterion's example options, in the page's language
      await axe(`/datasets/${datasetId}/agreement`);
    });

    it('invites an expert, who writes a question that the admin approves from the review inbox', async () => {
      await admin.goto(app.url + '/admin/users');
      const invite = admin.getByRole('region', { name: t('users.invite') });
      await invite.getByLabel(t('field.email')).fill(EXPERT.email);
      await invite.getByLabel(t('field.name')).fill(EXPERT.name);
      await invite.getByRole('button', { name: t('users.invite_submit') }).click();
      const link = await admin.getByLabel(t('users.invite_link')).inputValue();
      await axe('/admin/users');
      const expertContext = await newContext(browser, { locale, width: 1440, height: 900 });
      expert = await expertContext.newPage();
      watch(expert);
      await expert.goto(link);
      await expert.getByLabel(t('field.password')).fill(EXPERT.password);
      await expert.getByRole('button', { name: t('invite.submit') }).click();
      await expert.waitForURL('**/datasets');
      await expert.goto(`${app.url}/datasets/${datasetId}`);
      await expert.getByRole('textbox', { name: t('field.question'), exact: true }).fill(lang === 'zh' ? '新员工可以申请哪些补贴？' : 'Which allowances can a new employee claim?');
      await expert.getByRole('textbox', { name: t('field.ground_truth'), exact: true }).fill(lang === 'zh' ? '交通补贴和餐补，入职满一个月后在 OA 申请。' : 'Transport and meal allowances, claimed in the OA system after the first month.');
      await expert.keyboard.press('Control+Enter');
      await expert.getByRole('status').filter({ hasText: t('samples.added', { id: 41 }).split('#')[0]! }).first().waitFor();
      const sampleId = app.ctx.db.prepare('SELECT max(id) FROM sample WHERE dataset_id = ?').pluck().get(datasetId) as number;
      await expert.goto(`${app.url}/samples/${sampleId}`);
      await expert.getByRole('button', { name: t('samples.submit_review') }).click();
      await expert.getByRole('status').filter({ hasText: t('flash.submit') }).waitFor();

      await admin.goto(`${app.url}/datasets/${datasetId}/inbox`);
      await admin.getByRole('heading', { level: 1, name: t('fh.inbox_title') }).waitFor();
      await shot(admin, '02-inbox');
      await axe(`/datasets/${datasetId}/inbox`);
      await admin.getByRole('row').filter({ hasText: lang === 'zh' ? '新员工可以申请哪些补贴？' : 'Which allowances' }).getByRole('button', { name: t('samples.approve') }).click();
      await admin.getByRole('status').filter({ hasText: t('flash.approve') }).waitFor();
      expect(app.ctx.samples.get(sampleId)!.status).toBe('approved');
    });

    it('the expert labels with the keyboard, then walks the history back with B and forward with N', async () => {
      await expert.goto(`${app.url}/datasets/${datasetId}/label`);
      await expert.getByRole('button', { name: new RegExp(t('label.start')) }).click();
      await expert.locator('#workspace fieldset.criterion.current').waitFor();
      const first = Number(await expert.locator('#workspace').getAttribute('data-response'));
      await live(expert, '03-workspace');
      await axe(`/responses/${first}/label`);
      // 1 = the first option of "correct", Shift+1 = context 1 relevant, Enter = submit and next.
      await expert.keyboard.press('1');
      await expert.keyboard.press('Shift+Digit1');
      await expert.keyboard.press('Enter');
      await expert.waitForFunction((id) => document.querySelector('#workspace')?.getAttribute('data-response') !== String(id), first);
      const second = Number(await expert.locator('#workspace').getAttribute('data-response'));
      await expert.keyboard.press('2');
      await expert.keyboard.press('Enter');
      await expert.waitForFunction((id) => document.querySelector('#workspace')?.getAttribute('data-response') !== String(id), second);
      await expert.keyboard.press('b');
      await expert.locator(`#workspace[data-response="${second}"]`).waitFor();
      await expert.keyboard.press('b');
      await expert.locator(`#workspace[data-response="${first}"]`).waitFor();
      await expert.waitForURL(`**/responses/${first}/label`);
      expect(await expert.locator('#workspace input[type=radio][value="1"]').first().isChecked()).toBe(true);
      await expert.keyboard.press('n');
      await expert.locator(`#workspace[data-response="${second}"]`).waitFor();
      const mine = app.ctx.users.queries.byEmail(EXPERT.email)!.id;
      expect(app.ctx.labels.mine(first, mine)!.annotation.state).toBe('submitted');
      expect(app.ctx.labels.mine(second, mine)!.annotation.state).toBe('submitted');
      await expert.goto(`${app.url}/datasets/${datasetId}/label/history`);
      await expert.getByRole('heading', { level: 1, name: t('fh.history_title') }).waitFor();
      await shot(expert, '04-history');
      // Chinese layouts at 1024 px as well as 1440.
      if (lang === 'zh') {
        await expert.setViewportSize({ width: 1024, height: 800 });
        await expert.goto(`${app.url}/responses/${first}/label`);
        await expert.locator('#workspace fieldset.criterion').first().waitFor();
        await shot(expert, '04b-workspace-1024');
        await expert.setViewportSize({ width: 1440, height: 900 });
      }
    });

    it('the admin adjudicates an expert disagreement without a page load, and goes on to the next one', async () => {
      await admin.goto(`${app.url}/datasets/${datasetId}/disagreements`);
      await admin.getByRole('heading', { level: 1, name: t('disagree.title') }).waitFor();
      await axe(`/datasets/${datasetId}/disagreements`);
      await admin.locator('main table a').first().click();
      await admin.waitForURL(/\/responses\/\d+/);
      const row = admin.locator('tr.disagree').first();
      const rowId = await row.getAttribute('id');
      await row.getByLabel(t('response.gold')).selectOption({ index: 1 });
      await row.getByLabel(t('field.reason')).fill(lang === 'zh' ? '上下文写明了审批层级。' : 'The context states the approval levels.');
      const url = admin.url();
      await row.getByRole('button', { name: t('response.set_gold') }).click();
      await admin.locator(`tr[id="${rowId}"]`).getByText(t('flash.adjudicated')).waitFor();
      expect(admin.url()).toBe(url);
      await shot(admin, '05-adjudicated');
      await axe(new URL(url).pathname);
      await admin.getByRole('link', { name: t('fh.next_disagreement') }).click();
      await admin.waitForURL((u) => u.href !== url);
    });

    it('sets up the judge against the fake server (chat and embeddings tested), runs it, and the scores table follows the live progress', async () => {
      await admin.goto(app.url + '/settings/judge');
      // A provider fills in its address and says its note, in the page's language; "other" says none.
      const provider = admin.getByLabel(t('judge.preset'));
      await provider.selectOption({ label: t('judge.preset_ollama') });
      expect(await admin.locator('#f-preset-note').textContent()).toBe(t('judge.preset_note_ollama'));
      expect(await admin.locator('#f-preset-note').isVisible()).toBe(true);
      expect(await admin.getByLabel(t('judge.base_url')).inputValue()).toBe('http://localhost:11434/v1');
      await provider.selectOption('custom');
      expect(await admin.locator('#f-preset-note').isVisible()).toBe(false);
      await admin.getByLabel(t('judge.structured')).selectOption('json_schema');
      await admin.getByLabel(t('judge.base_url')).fill(fake.baseURL);
      await admin.getByLabel(t('judge.api_key')).fill('sk-test');
      await admin.getByLabel(t('judge.chat_model')).fill('fake-chat');
      await admin.getByLabel(t('judge.embedding_model')).fill('fake-embed');
      await admin.getByRole('button', { name: t('judge.test') }).click();
      await admin.locator('#connection-result').getByText(t('fh.conn_embeddings')).waitFor();
      await live(admin, '06-judge-settings');
      await admin.getByRole('button', { name: t('action.save') }).click();
      await admin.getByRole('status').filter({ hasText: t('flash.saved') }).waitFor();
      await axe('/settings/judge');

      await admin.goto(`${app.url}/datasets/${datasetId}/runs`);
      await admin.getByText(t('fh.plan_title')).waitFor();
      await shot(admin, '07-runs');
      await axe(`/datasets/${datasetId}/runs`);
      fake.setLatency(60);
      await admin.getByLabel(t('runs.metric'), { exact: true }).selectOption('faithfulness');
      await admin.getByRole('button', { name: t('runs.start') }).click();
      await admin.waitForURL(/\/runs\/\d+$/);
      const runId = Number(new URL(admin.url()).pathname.split('/').pop());
      // No reload: the table appears when the live progress reports Done.
      await admin.locator('#run-progress').getByText(t('runs.status_done')).waitFor({ timeout: 30_000 });
      await admin.locator('#scores tbody tr').first().waitFor({ timeout: 10_000 });
      expect(await admin.locator('#scores tbody tr').count()).toBeGreaterThan(10);
      await live(admin, '08-run-done');
      await axe(`/runs/${runId}`);
      await admin.locator('#scores tbody a').first().click();
      await admin.waitForURL(/\/scores\/\d+$/);
      await shot(admin, '09-trace');
      // How the score was computed, in the page's language.
      expect(await admin.locator('p.computation').textContent()).toMatch(lang === 'zh' ? /^\d+ 条陈述中有 \d+ 条得到参考资料支持 → / : /^\d+ of \d+ statements? supported by the contexts → /);
      // Said as sentences, in the page's face, not a code face (a monospaced CJK face sets them twice as wide).
      expect((await renderedFonts(admin, 'p.computation')).filter((face) => /mono/i.test(face))).toEqual([]);
      await axe(new URL(admin.url()).pathname);
    });

    it('opens the calibration report at a pair that fits, moves to the best threshold, and audits the judge', async () => {
      await admin.goto(`${app.url}/datasets/${datasetId}/calibration`);
      await admin.locator('#report').waitFor();
      const runName = await admin.locator('#f-run option:checked').textContent();
      expect(runName).not.toContain('context_precision');
      await shot(admin, '10-calibration');
      await axe(new URL(admin.url()).pathname);
      const best = admin.getByRole('link', { name: new RegExp(t('fh.use_best_threshold', { t: '' }).replace(/[()（）]/g, '').trim()) });
      if (await best.count()) {
        await best.click();
        await admin.locator('#report').waitFor();
      }
      if (lang === 'zh') {
        await admin.setViewportSize({ width: 1024, height: 800 });
        await shot(admin, '10b-calibration-1024');
        violations.push(...await layoutProblems(admin, 'calibration at 1024 px'));
        await admin.setViewportSize({ width: 1440, height: 900 });
      }
      await admin.getByRole('link', { name: t('calib.review') }).click();
      await admin.waitForURL(/\/runs\/\d+\/review/);
      await shot(admin, '11-judge-audit');
      await axe(new URL(admin.url()).pathname + new URL(admin.url()).search);
      // Each dataset draws its own calibration/held-out split (a random seed), so at the best
      // threshold its calibration part may hold no disagreement at all, and the page rightly says
      // so. Then the audit widens as a person would: every item, then other thresholds.
      const rows = admin.locator('main table tbody a');
      if (await rows.count() === 0) {
        await expect.poll(() => admin.locator('main .empty-row').count()).toBe(1);
        const thresholds = await admin.locator('#rf-threshold option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
        const current = await admin.locator('#rf-threshold').inputValue();
        for (const x of [current, ...thresholds.filter((v) => v !== current)]) {
          await admin.locator('#rf-part').selectOption('all');
          await admin.locator('#rf-threshold').selectOption(x);
          await Promise.all([
            admin.waitForURL((u) => u.searchParams.get('part') === 'all' && u.searchParams.get('threshold') === x),
            admin.getByRole('button', { name: t('action.filter') }).click(),
          ]);
          await admin.locator('main form.filters').waitFor();
          if (await rows.count() > 0) break;
        }
      }
      await rows.first().click();
      await admin.waitForURL(/\/review\/\d+/);
      await shot(admin, '12-judge-audit-item');
      await axe(new URL(admin.url()).pathname + new URL(admin.url()).search);
    });

    it('iterates the judge\'s prompt in the lab from the keyboard: a draft runs on the calibration part, the held-out part is checked once, a second look is asked for first, and two runs are compared', async () => {
      fake.setLatency(0);
      const lab = `${app.url}/datasets/${datasetId}/prompt-lab`;
      await admin.goto(lab);
      expect(await admin.locator('#f-metric').inputValue()).toBe('faithfulness'); // the metric the judge ran
      const press = async (target: ReturnType<Page['locator']>) => { await target.focus(); await admin.keyboard.press('Enter'); };
      const runDone = async () => {
        await admin.waitForURL(/\/runs\/\d+$/);
        await admin.locator('#run-progress').getByText(t('runs.status_done'), { exact: true }).first().waitFor({ timeout: 30_000 });
        return Number(new URL(admin.url()).pathname.split('/').pop());
      };
      // The draft: one more sentence typed at the end of the instruction, and a note.
      await admin.locator('#d-instruction').focus();
      await admin.keyboard.press('Control+End');
      await admin.keyboard.type(lang === 'zh' ? ' 数字和日期照原文保留。' : ' Keep numbers and dates exactly as written.');
      await admin.locator('#d-note').focus();
      await admin.keyboard.type(lang === 'zh' ? '保留数字' : 'keep numbers');
      await press(admin.getByRole('button', { name: t('lab.run_draft') }));
      const draftRun = await runDone();
      await admin.goto(lab);
      const draftRow = admin.locator('tr', { has: admin.locator(`a[href="/runs/${draftRun}"]`) });
      expect(await draftRow.textContent()).toContain(t('calib.part_calibration'));
      await shot(admin, '13a-prompt-lab-draft-run');

      // The held-out part, looked at once: the run says which look it is.
      await press(draftRow.getByRole('button', { name: t('lab.final_check') }));
      const firstLook = await runDone();
      await admin.getByRole('status').filter({ hasText: t('fh.look_note', { look: 1, total: 1, metric: 'faithfulness' }) }).waitFor();
      await admin.goto(lab);
      await admin.getByText(t('fh.looks_so_far', { n: 1, metric: 'faithfulness' })).waitFor();

      // A second look is asked for first, and going back spends nothing.
      await press(draftRow.getByRole('button', { name: t('lab.final_check') }));
      await admin.getByRole('heading', { level: 1, name: t('fh.look_again_title') }).waitFor();
      expect(await admin.getByRole('alert').textContent()).toBe(t('fh.look_again_warning', { n: 1, metric: 'faithfulness' }));
      await shot(admin, '13b-held-out-look-again');
      await axePage.goto(lab);
      await axePage.locator('tr', { has: axePage.locator(`a[href="/runs/${draftRun}"]`) }).getByRole('button', { name: t('lab.final_check') }).click();
      await axePage.getByRole('heading', { level: 1, name: t('fh.look_again_title') }).waitFor();
      violations.push(...await axeViolations(axePage, 'held-out look again'));
      const runsBefore = app.ctx.runner.queries.forDataset(datasetId).length;
      await press(admin.getByRole('link', { name: t('fh.look_again_cancel') }));
      await admin.getByRole('heading', { level: 1, name: t('lab.title') }).waitFor();
      expect(app.ctx.runner.queries.forDataset(datasetId).length).toBe(runsBefore);

      // Taken anyway, the second look is counted and its figures flagged as optimistic.
      await press(draftRow.getByRole('button', { name: t('lab.final_check') }));
      await press(admin.getByRole('button', { name: t('fh.look_again_confirm', { n: 2 }) }));
      await runDone();
      await admin.getByRole('status').filter({ hasText: t('fh.look_spent') }).waitFor();

      // The gain on unseen items: the first held-out look (B, the draft) against the run of the prompt
      // before it (A, over all items), on the held-out items both scored.
      await admin.goto(lab);
      const runs = app.ctx.runner.queries.forDataset(datasetId);
      const before = runs.find((r) => r.metric_key === 'faithfulness' && JSON.parse(r.selection).part === undefined)!;
      await admin.getByRole('radio', { name: `A: ${before.name}`, exact: true }).check();
      await admin.getByRole('radio', { name: `B: ${runs.find((r) => r.id === firstLook)!.name}`, exact: true }).check();
      await press(admin.getByRole('button', { name: t('lab.compare') }));
      await admin.waitForURL((u) => u.pathname.endsWith('/compare') && u.searchParams.get('a') === String(before.id) && u.searchParams.get('b') === String(firstLook));
      await admin.locator('.verdict').waitFor();
      await shot(admin, '13c-compare');
      await axe(new URL(admin.url()).pathname + new URL(admin.url()).search);
      // A calibration-part run against a held-out check shares no item: said so, with no verdict.
      await admin.goto(`${app.url}/datasets/${datasetId}/compare?a=${draftRun}&b=${firstLook}&criterion=${new URL(admin.url()).searchParams.get('criterion')}`);
      await admin.getByText(t('lab.nothing_shared')).waitFor();
      expect(await admin.locator('.verdict').count()).toBe(0);
      await shot(admin, '13d-compare-nothing-shared');
    });

    it('shows the prompt lab, the export and the audit log in words', async () => {
      await admin.goto(`${app.url}/datasets/${datasetId}/prompt-lab`);
      await admin.getByRole('heading', { level: 1, name: t('lab.title') }).waitFor();
      await shot(admin, '13-prompt-lab');
      await axe(`/datasets/${datasetId}/prompt-lab`);
      await admin.goto(`${app.url}/datasets/${datasetId}/export`);
      await shot(admin, '14-export');
      await axe(`/datasets/${datasetId}/export`);
      const download = admin.waitForEvent('download');
      await admin.getByRole('button', { name: t('export.submit') }).click();
      // The default for people: CSV safe to open in a spreadsheet (issue #10.15).
      expect((await download).suggestedFilename()).toMatch(/\.spreadsheet\.csv$/);
      await admin.goto(`${app.url}/audit`);
      await admin.getByText(t('audit.act.judge_setting.update')).first().waitFor();
      await shot(admin, '15-audit');
      await axe('/audit');
    });

    it('found zero accessibility violations on every page, and no script errors or CSP refusals', () => {
      expect(violations).toEqual([]);
      expect(errors).toEqual([]);
    });
  });
}
