import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import type pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { setPassword } from '../../lib/accounts/users.js';
import { hashPassword } from '../../lib/auth/passwords.js';
import { createOperator, type Operator } from './fixtures.js';

export const CHROMIUM = '/usr/bin/chromium';
/** The skip reason of a browser test (false when Chromium is there). */
export const chromiumMissing = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium); the browser test needs it`;

/** Where each run's screenshots go, outside the repository, for a person to look at. */
export const SCREENS_DIR = process.env.LOGBOOK_SCREENS_DIR ?? join(tmpdir(), 'logbook-screens');

const CHROMIUM_OPTIONS = {
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

/** Set by test/run.js to the endpoint of the one Chromium that every browser test of a run shares. */
export const SHARED_BROWSER_ENV = 'LOGBOOK_TEST_BROWSER_WS';

/**
 * One Chromium for a whole test run (test/run.js starts it when the run has browser tests):
 * launching one per test file cost each file seconds of both cores. Its endpoint goes to the
 * test files in SHARED_BROWSER_ENV; each file keeps to contexts of its own.
 */
export async function launchBrowserServer(): Promise<{ wsEndpoint(): string; close(): Promise<void> }> {
  const { chromium } = await import('playwright-core');
  return chromium.launchServer(CHROMIUM_OPTIONS);
}

/**
 * The run's shared Chromium (SHARED_BROWSER_ENV), else one of this test file's own; either way
 * let go of at the test's end (a shared one is only disconnected from, with the contexts made here).
 */
export async function launchBrowser(t: Test): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const shared = process.env[SHARED_BROWSER_ENV];
  const browser = shared ? await chromium.connect(shared) : await chromium.launch(CHROMIUM_OPTIONS);
  t.teardown(() => browser.close());
  return browser;
}

/** A page that records script errors and CSP violations into `errors`. */
export async function watchedPage(browser: Browser, errors: string[]): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error' && /Content Security Policy/.test(message.text())) errors.push(message.text()); });
  return page;
}

/** Screenshots of the page as it is at desktop (1280×800) and phone (390×844) width; the desktop size is restored. */
export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS_DIR, { recursive: true });
  for (const [width, height, suffix] of [[390, 844, 'phone'], [1280, 800, 'desktop']] as const) {
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(150);
    await page.screenshot({ path: join(SCREENS_DIR, `${name}-${suffix}.png`), fullPage: true });
  }
}

export const PASSWORD = 'sixty-nine dB over';

/** An operator (location, token) who can also sign in to the app with PASSWORD. */
export async function appOperator(db: pg.Pool, callsign?: string): Promise<Operator & { username: string }> {
  const op = await createOperator(db, { callsign });
  await setPassword(db, op.userId, await hashPassword(PASSWORD));
  const { rows } = await db.query<{ username: string }>('SELECT username FROM users WHERE id = $1', [op.userId]);
  return { ...op, username: rows[0]!.username };
}

/** Signs in through the form and waits for the app's navigation. */
export async function signIn(page: Page, username: string, password = PASSWORD): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}
