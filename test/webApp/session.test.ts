import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { PASSWORD, appOperator, chromiumMissing, launchBrowser, shoot, signIn, watchedPage } from '../helpers/browser.js';

/**
 * Idle expiry after 6 s, and an account throttled after 3 wrong passwords within 15 s (each
 * sign-in's scrypt takes seconds on a loaded machine: a shorter window could pass between them).
 */
const IDLE_MINUTES = 0.1;
const ACCOUNT_LIMIT = { requests: 3, window: 15 };

t.test('sign-in throttling, idle expiry, sign-out and a password change in headless Chromium', { skip: chromiumMissing }, async (t) => {
  const server = await startTestServer(t, {
    config: { session_idle_minutes: IDLE_MINUTES, sign_in_limits: { account: ACCOUNT_LIMIT, address: { requests: 50, window: 60 } } },
  });
  const op = await appOperator(server.db.pool, 'DL1SES');
  const browser = await launchBrowser(t);
  const errors: string[] = [];
  const page = await watchedPage(browser, errors);
  const alert = page.getByRole('alert');
  const attempt = async (username: string, password: string) => {
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    const answered = page.waitForResponse((r) => r.url().endsWith('/app/session') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await answered;
    // The previous message went when the form was sent; this one comes with the answer.
    await alert.waitFor();
    return (await alert.textContent()) ?? '';
  };

  // Another user's browser, left idle from now on while the throttle is tried (both take seconds of waiting).
  const idler = await watchedPage(browser, errors);
  const sleeper = await appOperator(server.db.pool, 'DL2SES');
  await idler.goto(server.url + '/');
  await signIn(idler, sleeper.username);
  await idler.locator('p.count').waitFor();
  const idleSince = Date.now();

  await page.goto(server.url + '/');
  await shoot(page, 'signin');
  t.match(await attempt(op.username, 'not the password'), /^Wrong username or password\.$/, 'a wrong password: one message for both fields');
  await shoot(page, 'signin-error');
  t.equal(await page.getByLabel('Password').inputValue(), '', 'the wrong password is cleared');
  t.match(await attempt('nobody-at-all', PASSWORD), /^Wrong username or password\.$/, 'an unknown user: the same message');
  t.match(await attempt(op.username, 'still not it'), /^Wrong username or password\.$/);
  t.match(await attempt(op.username, 'third guess'), /^Wrong username or password\.$/);
  const throttled = await attempt(op.username, PASSWORD);
  t.match(throttled, /^Too many failed sign-ins\. Try again in \d+ seconds\.$/, 'throttled, even with the right password');
  t.notMatch(throttled, /password is|user(name)? is|unknown/i, 'the throttle says nothing of which field was wrong');
  const wait = Number(/in (\d+) seconds/.exec(throttled)![1]);
  t.ok(wait <= ACCOUNT_LIMIT.window, 'and waits no longer than the window');
  await shoot(page, 'signin-throttled');
  // The owner is back in once the window has passed.
  await page.waitForTimeout(wait * 1000 + 500);
  await signIn(page, op.username);
  t.match(await page.locator('#who').textContent(), /DL1SES/, 'the right password works again after the window');

  // Idle: nothing done for longer than the idle time, then a page: back to sign-in, saying why.
  await idler.waitForTimeout(Math.max(0, IDLE_MINUTES * 60_000 + 1500 - (Date.now() - idleSince)));
  await idler.getByRole('link', { name: 'Statistics' }).click();
  const ended = idler.getByRole('status').filter({ hasText: 'Your session has ended' });
  await ended.waitFor();
  t.match(await ended.textContent(), /unused for too long.*Sign in again/, 'the sign-in page says the session ended and why');
  t.equal(await idler.getByRole('button', { name: 'Sign out' }).count(), 0);
  await shoot(idler, 'signin-expired');

  // A password change ends the other browser's session too.
  const other = await watchedPage(browser, errors);
  await other.goto(server.url + '/');
  await signIn(other, op.username);
  const otherToken = await other.evaluate(() => fetch('/app/session').then((r) => r.json()).then((s) => s.api_token as string));
  t.equal((await server.request('/api/v2/station', { token: otherToken })).status, 200);
  await page.getByRole('link', { name: 'Password' }).click();
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByLabel('New password', { exact: true }).fill('a brand new password');
  await page.getByLabel('New password again').fill('a brand new password');
  await shoot(page, 'account');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByRole('status').filter({ hasText: 'Your password has been changed' }).waitFor();
  t.equal((await server.request('/api/v2/station', { token: otherToken })).status, 401, 'the other session\'s API token is refused at once');
  t.equal((await server.request('/api/v2/station', { token: op.token })).status, 200, 'API tokens made by hand live on');
  await other.getByRole('link', { name: 'Statistics' }).click();
  await other.getByRole('status').filter({ hasText: 'Your session has ended' }).waitFor();
  t.pass('the other browser is sent to sign-in, saying why');
  t.equal((await attempt(op.username, PASSWORD)), 'Wrong username or password.', 'the old password is refused');
  await signIn(page, op.username, 'a brand new password');

  // Sign-out, also after a reload.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  t.equal(await page.getByRole('status').count(), 0, 'a sign-out is no surprise: no message');
  await page.reload();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  t.equal((await page.evaluate(() => fetch('/app/session').then((r) => r.status))), 401, 'signed out, also after a reload');
  t.same(errors, [], 'no script errors and no CSP violations');
});
