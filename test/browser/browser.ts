// Browser harness for the end-to-end tests: Debian's Chromium driven by playwright-core (never a
// downloaded browser), one context per person, and screenshots saved for a human to look at.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { beforeEach } from 'vitest';
import type { T } from '../../server/i18n/index.ts';

export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '..', '..', 'screenshots');

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
interface AxeViolation { id: string; help: string; nodes: { target: string[] }[] }

/**
 * axe-core's violations on the page as it is now (after a POST too), one line each, named by `where`.
 * axe is an injected script, which the app's CSP forbids: the page's context must bypass the CSP
 * (`browser.newContext({ bypassCSP: true })`, given a person's cookies).
 */
export async function axeViolations(page: Page, where: string = page.url()): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    const w = window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } };
    return (await w.axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return found.map((v) => `${where}: ${v.id} (${v.help}) at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * What a person would see as broken layout, one line each: a visible textarea whose value (or, when
 * empty, placeholder) is at most `maxLines` lines but does not show all of it without scrolling; a
 * cell of a table row that is not laid out as a cell (a `display` given to a td or th by a class breaks its row); a
 * page wider than the window (it scrolls sideways).
 */
export async function layoutProblems(page: Page, where: string = page.url(), maxLines = 8): Promise<string[]> {
  const found = await page.evaluate((max) => [
    ...Array.from(document.querySelectorAll('textarea'))
      .filter((box) => box.offsetParent !== null && (box.value || box.placeholder).split('\n').length <= max && box.scrollHeight > box.clientHeight + 1)
      .map((box) => `#${box.id || box.name} hides text (${box.scrollHeight}px of text in ${box.clientHeight}px)`),
    ...Array.from(document.querySelectorAll('td, th'))
      // A table restyled as a whole (rows as grids, cells as blocks) is a layout; one cell of a table row is a break.
      .filter((cell) => getComputedStyle(cell).display !== 'table-cell' && cell.parentElement !== null && getComputedStyle(cell.parentElement).display === 'table-row')
      .map((cell) => `a ${cell.tagName.toLowerCase()}${cell.className ? `.${cell.className}` : ''} is laid out as ${getComputedStyle(cell).display}, not as a table cell`),
    ...(document.documentElement.scrollWidth > window.innerWidth + 1
      ? [`the page is wider than the window (${document.documentElement.scrollWidth}px in ${window.innerWidth}px): it scrolls sideways`] : []),
  ], maxLines);
  return [...new Set(found)].map((c) => `${where}: ${c}`);
}

/**
 * The font families Chromium drew the text of the first element matching `selector` with (the
 * DevTools protocol's CSS.getPlatformFontsForNode): which face the stylesheet's stack actually found.
 */
export async function renderedFonts(page: Page, selector: string): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('DOM.enable');
    await cdp.send('CSS.enable');
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
    if (!nodeId) throw new Error(`no element matches ${selector}`);
    const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
    return fonts.map((f) => f.familyName);
  } finally {
    await cdp.detach();
  }
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/** A fresh browser profile (cookies, storage) for one person, speaking the given language. */
export async function newContext(browser: Browser, opts: { locale?: string; width?: number; height?: number } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({
    locale: opts.locale ?? 'en-US',
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 },
    acceptDownloads: true,
  });
  context.setDefaultTimeout(15_000);
  return context;
}

/** Saves a full-page PNG under screenshots/ (gitignored) and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Like screenshot(), but leaves the page as it was: Playwright hides the text caret by setting an
 * inline caret-color on every input and textarea and leaves an empty style="" behind, which htmx 4
 * copies onto the elements it swaps in, and the CSP (style-src 'self') reports that as an error.
 * Use this on pages the test goes on working in.
 */
export async function screenshotLive(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true, caret: 'initial' });
  return file;
}

/**
 * For a describe block whose steps build on each other: after the first failure the remaining steps
 * are skipped instead of piling up timeouts, and the failure leaves evidence — a screenshot of every
 * open page and the server's last warnings.
 */
export function stopAtFirstFailure(name: string, pages: () => Page[], logs: () => string[]): void {
  let failed = false;
  beforeEach(({ skip, onTestFailed, task }) => {
    if (failed) skip();
    onTestFailed(async () => {
      failed = true;
      for (const [i, p] of pages().entries()) await screenshot(p, `FAILED-${name}-${task.name.replace(/\W+/g, '-')}-${i}`).catch(() => {});
      console.error(logs().filter((l) => /"level":"(warn|error)"/.test(l)).slice(-10).join('\n'));
    });
  });
}

/** Logs in through the login form (English labels) and waits for the datasets page. */
export async function logInThroughForm(page: Page, baseUrl: string, user: { email: string; password: string }): Promise<void> {
  await page.goto(baseUrl + '/login');
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('**/datasets');
}

/** Logs in through the login form in the page's language (labels from `t`) and waits for the datasets page. */
export async function logIn(page: Page, baseUrl: string, user: { email: string; password: string }, t: T): Promise<void> {
  await page.goto(baseUrl + '/login');
  await page.getByLabel(t('field.email')).fill(user.email);
  await page.getByLabel(t('field.password')).fill(user.password);
  await page.getByRole('button', { name: t('login.submit') }).click();
  await page.waitForURL('**/datasets');
}

/** Collects uncaught script errors and console errors (CSP refusals show up there) into `errors`; a test fails when it is not empty. */
export function watchErrors(page: Page, errors: string[]): void {
  page.on('pageerror', (e) => errors.push(`pageerror on ${page.url()}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console on ${page.url()}: ${m.text()} (${m.location().url})`); });
}

