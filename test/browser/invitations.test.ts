// Invitations in a browser: the link is shown once with a copy button (app.js; the CSP allows no
// inline script), a lost link is replaced with "New link" (the old one stops working), and the
// invitee joins with the new one. Also the judge settings with credentials in the base URL, redacted.
// Screenshots in English and Chinese land in screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { setupAdmin, startTestApp, ADMIN, type TestApp } from '../helpers.ts';
import { launchBrowser, logInThroughForm, newContext, screenshot, stopAtFirstFailure } from './browser.ts';

describe('invitations in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const errors: string[] = [];
  let firstLink = '';
  let secondLink = '';

  beforeAll(async () => {
    app = await startTestApp();
    await setupAdmin(app);
    browser = await launchBrowser();
    context = await newContext(browser, { locale: 'en-US' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await logInThroughForm(page, app.url, ADMIN);
  });
  afterAll(async () => { await browser?.close(); await app?.close(); });
  stopAtFirstFailure('invitations', () => [page], () => app.logs);

  it('shows the new link once, with a copy button that copies it', async () => {
    await page.goto(app.url + '/admin/users');
    await page.getByLabel('Email').fill('newcomer@example.com');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    const field = page.locator('#invite-link');
    firstLink = await field.inputValue();
    expect(firstLink).toMatch(/\/invite\/[\w-]{40,}$/);
    await page.getByRole('button', { name: 'Copy link' }).focus();
    // Its name changes to "Copied" for two seconds: found by what it copies from, not by its name.
    const copy = page.locator('button[data-copy="invite-link"]');
    await page.keyboard.press('Enter');
    await expect.poll(() => copy.textContent(), { timeout: 10_000 }).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(firstLink);
    await screenshot(page, 'invite-01-link-en');
  });

  it('replaces a lost link: the old one stops working, the new one lets the invitee join', async () => {
    await page.goto(app.url + '/admin/users');
    await page.getByRole('button', { name: 'New link for newcomer@example.com (the old one stops working)' }).click();
    secondLink = await page.locator('#invite-link').inputValue();
    expect(secondLink).not.toBe(firstLink);
    const invitee = await (await newContext(browser, { locale: 'en-US' })).newPage();
    await invitee.goto(firstLink);
    await expect.poll(() => invitee.textContent('body'), { timeout: 10_000 }).toContain('invalid, used or expired');
    await invitee.goto(secondLink);
    await invitee.getByLabel('Password').fill('a password of my own');
    await invitee.getByRole('button', { name: 'Set password and log in' }).click();
    await invitee.waitForURL('**/datasets');
    await invitee.context().close();
  });

  it('speaks Chinese: the link, the copy button and the new-link button', async () => {
    await page.goto(app.url + '/admin/users');
    await page.selectOption('#locale-select', 'zh');
    await page.waitForURL('**/admin/users');
    await page.getByLabel('邮箱').fill('xiaoli@example.com');
    await page.getByRole('button', { name: '生成邀请' }).click();
    await expect.poll(() => page.getByRole('button', { name: '复制链接' }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await page.getByRole('button', { name: '为 xiaoli@example.com 生成新链接（旧链接随即失效）' }).isVisible()).toBe(true);
    await screenshot(page, 'invite-02-link-zh');
  });

  it('shows credentials in the judge base URL as [redacted] and says the key stays with its address', async () => {
    app.ctx.judgeSettings.save(app.ctx.users.queries.byEmail(ADMIN.email)!.id, {
      preset: 'custom', base_url: 'https://judge:s3cret@llm.example.com/v1?api-key=abc123', api_key: 'sk-browser-test-key', clear_key: false,
      chat_model: 'qwen-plus', embedding_model: '', temperature: 0, timeout_ms: 60000, max_concurrency: 8, structured_output: 'json_schema',
      price_prompt: 0, price_completion: 0, version: app.ctx.judgeSettings.public().version,
    });
    await page.goto(app.url + '/settings/judge');
    const shown = await page.locator('#f-base_url').inputValue();
    expect(shown).not.toContain('s3cret');
    expect(shown).not.toContain('abc123');
    expect(shown).toContain('[redacted]');
    expect(await page.content()).not.toContain('sk-browser-test-key');
    await screenshot(page, 'judge-redacted-zh');
    expect(errors).toEqual([]);
  });
});
