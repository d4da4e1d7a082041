// Two admins editing the same thing at once, in a real browser, in English and Chinese: the later
// save is refused (409) on the Users page, the Judge page, the Metrics page's prompt editor, a
// criterion and a sample; the
// refusal says what the other admin saved, is where the person who saved is looking, keeps what they
// typed (except an API key, which is never shown again, and the form says so), and saving again then
// works. Each refused page is checked with axe; every step is taken from the keyboard. The admin whose
// save is refused works in a context that bypasses the CSP (axe is an injected script); the other
// admin's context enforces it. Screenshots land in screenshots/.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers.ts';
import { translator, type T } from '../../server/i18n/index.ts';
import { redactUrl } from '../../server/redact.ts';
import { axeViolations, renderedFonts, launchBrowser, logIn, newContext, screenshot, SCREENSHOT_DIR, stopAtFirstFailure, watchErrors } from './browser.ts';

/** Whether the element is inside the window as the page is shown (not scrolled away above or below). */
async function inView(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
  });
}

/** The text of the element that has the keyboard focus. */
async function focused(page: Page): Promise<string> {
  return page.evaluate(() => document.activeElement?.textContent ?? '');
}

/** Presses a control with the keyboard: focus, then Enter (a button) or Space (a checkbox, a summary). */
async function press(locator: Locator, key: 'Enter' | 'Space' = 'Enter'): Promise<void> {
  await locator.focus();
  await locator.press(key);
}

for (const lang of ['en', 'zh'] as const) {
  const t: T = translator(lang);
  const locale = lang === 'en' ? 'en-US' : 'zh-CN';
  const ADA = { email: `ada.${lang}@example.com`, name: 'Ada', password: 'correct horse battery' };
  const BO = { email: `bo.${lang}@example.com`, name: 'Bo', password: 'another long password' };
  const CY = { email: `cy.${lang}@example.com`, name: 'Cy', password: 'yet another long password' };

  describe(`two admins editing the same thing in a browser (${lang})`, () => {
    let app: TestApp;
    let browser: Browser;
    /** Ada: her save comes second and is refused. Her context bypasses the CSP, for axe. */
    let ada: Page;
    /** Bo: saves first. */
    let bo: Page;
    let datasetId = 0;
    let cyId = 0;
    let criterionId = 0;
    let sampleId = 0;
    const errors: string[] = [];
    const violations: string[] = [];

    beforeAll(async () => {
      app = await startTestApp();
      const first = await app.ctx.users.createFirstAdmin(ADA);
      await app.ctx.users.createUser(first.id, { ...BO, role: 'admin' });
      cyId = (await app.ctx.users.createUser(first.id, { ...CY, role: 'expert' })).id;
      datasetId = app.ctx.datasets.create(first.id, { name: lang === 'en' ? 'HR answers' : '人事问答', description: '', language: lang, domain: '' }).id;
      criterionId = app.ctx.criteria.create(first.id, datasetId, { name: 'correct', kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null,
        guidelines: lang === 'en' ? 'Is the answer correct?' : '回答是否正确？' }).id;
      sampleId = app.ctx.samples.create(first.id, datasetId, { question: lang === 'en' ? 'Which department is Zhang Wei in?' : '张伟是哪个部门的？',
        ground_truth: lang === 'en' ? 'Research and teaching.' : '教研部。', reference_contexts: [], tags: [], source: '', notes: '' }).id;
      browser = await launchBrowser();
      const adaContext = await browser.newContext({ locale, bypassCSP: true, viewport: { width: 1280, height: 900 } });
      adaContext.setDefaultTimeout(15_000);
      ada = await adaContext.newPage();
      bo = await (await newContext(browser, { locale })).newPage();
      for (const page of [ada, bo]) watchErrors(page, errors);
      await logIn(ada, app.url, ADA, t);
      await logIn(bo, app.url, BO, t);
    });
    afterAll(async () => {
      await browser?.close();
      await app?.close();
    });
    stopAtFirstFailure(`conflicts-${lang}`, () => [ada, bo], () => app.logs);

    it('Users page: a row another admin changed is refused above the table and shown as it is now', async () => {
      await ada.goto(app.url + '/admin/users');
      await bo.goto(app.url + '/admin/users');
      // Bo makes Cy an admin.
      await bo.getByLabel(t('users.role_of', { email: CY.email })).selectOption('admin');
      await press(bo.getByRole('button', { name: t('users.save_for', { email: CY.email }) }));
      await bo.getByRole('status').filter({ hasText: t('flash.saved') }).waitFor();
      // Ada, from her page as it was (Cy an expert there), disables Cy.
      await press(ada.locator(`#disabled-${cyId}`), 'Space');
      await press(ada.getByRole('button', { name: t('users.save_for', { email: CY.email }) }));
      const alert = ada.getByRole('alert').filter({ hasText: t('users.err_conflict', { email: CY.email, role: t('role.admin'), access: t('users.enabled') }) });
      await alert.waitFor();
      expect(await inView(alert)).toBe(true);
      expect(await focused(ada)).toBe(await alert.textContent()); // read out first; Tab goes on to the table
      expect(await ada.locator('tr.flagged').textContent()).toContain(CY.email);
      expect(app.ctx.users.queries.byId(cyId)).toMatchObject({ role: 'admin', disabled: 0 });
      expect(await ada.getByLabel(t('users.role_of', { email: CY.email })).inputValue()).toBe('admin'); // the row as it is now
      expect(await ada.locator(`#disabled-${cyId}`).isChecked()).toBe(false);
      violations.push(...await axeViolations(ada, 'Users page, refused'));
      await screenshot(ada, `conflict-users-${lang}`);
      // Knowing what Bo did, Ada disables Cy again: saved.
      await press(ada.locator(`#disabled-${cyId}`), 'Space');
      await press(ada.getByRole('button', { name: t('users.save_for', { email: CY.email }) }));
      await ada.getByRole('status').filter({ hasText: t('flash.saved') }).waitFor();
      expect(app.ctx.users.queries.byId(cyId)).toMatchObject({ role: 'admin', disabled: 1 });
    });

    it('Judge page: a save over settings saved meanwhile is refused, naming them, keeping what was typed but the key', async () => {
      await ada.goto(app.url + '/settings/judge');
      await bo.goto(app.url + '/settings/judge');
      const boUrl = 'https://proxy:hunter2@dashscope.example.com/compatible-mode/v1';
      await bo.getByLabel(t('judge.base_url')).fill(boUrl);
      await bo.getByLabel(t('judge.chat_model')).fill('qwen-plus');
      await press(bo.getByRole('button', { name: t('action.save'), exact: true }));
      await bo.getByRole('status').filter({ hasText: t('flash.saved') }).waitFor();

      await ada.getByLabel(t('judge.base_url')).fill('https://api.openai.example.com/v1');
      await ada.getByLabel(t('judge.api_key')).fill('sk-ada-typed-this-key-0123456789');
      await ada.getByLabel(t('judge.chat_model')).fill('gpt-4o-mini');
      await press(ada.getByRole('button', { name: t('action.save'), exact: true }));
      const alert = ada.getByRole('alert').filter({ hasText: t('judge.err_conflict', { model: 'qwen-plus', url: redactUrl(boUrl) }) });
      await alert.waitFor();
      expect(await inView(alert)).toBe(true);
      expect(await focused(ada)).toBe(await alert.textContent());
      expect(await ada.content()).not.toContain('hunter2');
      expect(await ada.content()).not.toContain('sk-ada-typed');
      expect(await ada.getByLabel(t('judge.chat_model')).inputValue()).toBe('gpt-4o-mini');
      expect(await ada.getByLabel(t('judge.base_url')).inputValue()).toBe('https://api.openai.example.com/v1');
      // The key field is empty: it says so, so that saving again does not keep the stored key unnoticed.
      expect(await ada.getByLabel(t('judge.api_key')).inputValue()).toBe('');
      await ada.getByRole('alert').filter({ hasText: t('judge.key_retype') }).waitFor();
      expect(app.ctx.judgeSettings.public().chat_model).toBe('qwen-plus');
      violations.push(...await axeViolations(ada, 'Judge page, refused'));
      await screenshot(ada, `conflict-judge-${lang}`);
      await ada.getByLabel(t('judge.api_key')).fill('sk-ada-typed-this-key-0123456789');
      await press(ada.getByRole('button', { name: t('action.save'), exact: true }));
      await ada.getByRole('status').filter({ hasText: t('flash.saved') }).waitFor();
      expect(app.ctx.judgeSettings.public()).toMatchObject({ chat_model: 'gpt-4o-mini', api_key_set: true });
    });

    it('Metrics page: a prompt version saved over one saved meanwhile is refused where the editor is, the text kept', async () => {
      const open = async (page: Page) => {
        await page.goto(`${app.url}/datasets/${datasetId}/metrics`);
        await press(page.locator('#m-faithfulness summary'));
        return page.locator('#i-faithfulness-nli');
      };
      const boText = await open(bo);
      const adaText = await open(ada);
      await boText.fill(lang === 'en' ? 'Judge each statement against the context (Bo).' : '逐条判断陈述是否能由上下文推出（Bo）。');
      await press(bo.locator('form').filter({ has: boText }).getByRole('button', { name: t('metrics.save_version') }));
      await bo.getByRole('status').filter({ hasText: t('metrics.version_saved', { n: 1 }) }).waitFor();

      const mine = lang === 'en' ? 'Judge each statement; quote the sentence of the context that supports it (Ada).' : '逐条判断陈述，并引用支持它的上下文句子（Ada）。';
      await adaText.fill(mine);
      await press(ada.locator('form').filter({ has: adaText }).getByRole('button', { name: t('metrics.save_version') }));
      const alert = ada.getByRole('alert').filter({ hasText: t('metrics.err_version_conflict', { n: 1, who: BO.email }) });
      await alert.waitFor();
      // The page opens where the refused editor is, not at its top, far above it.
      expect(await inView(alert)).toBe(true);
      expect(await focused(ada)).toBe(await alert.textContent());
      expect(await ada.locator('#i-faithfulness-nli').inputValue()).toBe(mine);
      expect(app.ctx.prompts.versions(datasetId, 'faithfulness', 'nli')).toHaveLength(1);
      violations.push(...await axeViolations(ada, 'Metrics page, prompt refused'));
      await ada.screenshot({ path: path.join(SCREENSHOT_DIR, `conflict-prompt-window-${lang}.png`) }); // what Ada sees
      await screenshot(ada, `conflict-prompt-${lang}`);
      await press(ada.locator('form').filter({ has: ada.locator('#i-faithfulness-nli') }).getByRole('button', { name: t('metrics.save_version') }));
      await ada.getByRole('status').filter({ hasText: t('metrics.version_saved', { n: 2 }) }).waitFor();
      expect(app.ctx.prompts.versions(datasetId, 'faithfulness', 'nli')).toHaveLength(2);
    });

    it('Criteria page: an edit over one saved meanwhile is refused in that criterion\'s form, quoting what was typed', async () => {
      await ada.goto(`${app.url}/datasets/${datasetId}/criteria`);
      await bo.goto(`${app.url}/datasets/${datasetId}/criteria`);
      const guidelines = (page: Page) => page.locator(`#gl-${criterionId}`);
      const save = (page: Page) => page.locator(`form[action="/criteria/${criterionId}"]`).getByRole('button', { name: t('action.save') });
      await guidelines(bo).fill(lang === 'en' ? 'Correct and complete, as the handbook says.' : '正确且完整，以员工手册为准。');
      await press(save(bo));
      await bo.getByRole('status').filter({ hasText: t('flash.saved') }).waitFor();
      const mine = lang === 'en' ? 'Correct, and it names the department.' : '正确，并说出部门名称。';
      await guidelines(ada).fill(mine);
      await press(save(ada));
      const alert = ada.locator(`form[action="/criteria/${criterionId}"]`).getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toBe(t('err.criterion_conflict', { name: 'correct', guidelines: mine }));
      expect(await inView(alert)).toBe(true);
      expect(await focused(ada)).toBe(await alert.textContent());
      expect(await guidelines(ada).inputValue()).toBe(app.ctx.criteria.get(criterionId)!.guidelines); // what Bo saved
      // The quotes around the name are drawn by a Latin face in English (a CJK one draws them full-width)
      // and by a Chinese face in Chinese.
      const faces = await renderedFonts(ada, `form[action="/criteria/${criterionId}"] [role=alert]`);
      expect(faces.length).toBeGreaterThan(0);
      for (const face of faces) expect(face, faces.join(', ')).toMatch(lang === 'en' ? /^(?!.*CJK)/ : /CJK/);
      violations.push(...await axeViolations(ada, 'Criteria page, refused'));
      await screenshot(ada, `conflict-criterion-${lang}`);
      await guidelines(ada).fill(mine);
      await press(save(ada));
      await ada.getByRole('status').filter({ hasText: t('flash.saved') }).waitFor();
      expect(app.ctx.criteria.get(criterionId)!.guidelines).toBe(mine);
    });

    it('Sample page: an edit over one saved meanwhile is refused, showing theirs and keeping mine in the form', async () => {
      await ada.goto(`${app.url}/samples/${sampleId}`);
      await bo.goto(`${app.url}/samples/${sampleId}`);
      const boTruth = lang === 'en' ? 'The research and teaching department (教研部).' : '教研部（研究与教学）。';
      await bo.getByLabel(t('field.ground_truth')).fill(boTruth);
      await press(bo.locator('#sample-form').getByRole('button', { name: t('action.save') }));
      await bo.getByRole('status').filter({ hasText: t('flash.saved') }).waitFor();
      const myQuestion = lang === 'en' ? 'Which department does Zhang Wei work in?' : '张伟在哪个部门工作？';
      await ada.getByLabel(t('field.question')).fill(myQuestion);
      await press(ada.locator('#sample-form').getByRole('button', { name: t('action.save') }));
      const alert = ada.locator('#sample-form').getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain(t('err.conflict'));
      expect(await alert.textContent()).toContain(boTruth);
      expect(await inView(alert)).toBe(true);
      expect(await focused(ada)).toBe(await alert.textContent());
      expect(await ada.getByLabel(t('field.question')).inputValue()).toBe(myQuestion);
      expect(app.ctx.samples.get(sampleId)!.ground_truth).toBe(boTruth);
      violations.push(...await axeViolations(ada, 'Sample page, refused'));
      await screenshot(ada, `conflict-sample-${lang}`);
      await press(ada.locator('#sample-form').getByRole('button', { name: t('action.save') }));
      await ada.getByRole('status').filter({ hasText: t('flash.saved') }).waitFor();
      expect(app.ctx.samples.get(sampleId)!.question).toBe(myQuestion);
    });

    it('has no axe violations on the refused pages and no script or CSP errors', () => {
      expect(violations).toEqual([]);
      // The browser logs each refusal's status (409) as a failed resource: those five are the refusals this test made.
      const refusals = errors.filter((e) => e.includes('status of 409 (Conflict)'));
      expect(refusals).toHaveLength(5);
      expect(errors.filter((e) => !refusals.includes(e))).toEqual([]);
    });
  });
}
