import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub } from '../helpers/fixtures.js';
import { addClubMember } from '../../lib/accounts/clubs.js';
import { SECRET, startTestWorker } from '../helpers/worker.js';
import { adifDocument } from '../upload/helpers.js';
import { appOperator, chromiumMissing, launchBrowser, shoot, signIn, watchedPage } from '../helpers/browser.js';

t.test('the browser app: pages and their security headers', async (t) => {
  const server = await startTestServer(t);
  for (const path of ['/', '/api-docs', '/assets/app.js', '/assets/style.css', '/assets/countries-110m.json', '/assets/favicon.svg']) {
    const res = await server.request(path);
    t.equal(res.status, 200, path);
    const csp = res.headers.get('content-security-policy')!;
    t.match(csp, /frame-ancestors 'none'/, path);
    t.match(csp, /script-src 'self'(;|$)/, `${path}: no inline scripts`);
    t.equal(res.headers.get('x-frame-options'), 'DENY');
    t.equal(res.headers.get('x-content-type-options'), 'nosniff');
  }
  t.match((await server.request('/')).headers.get('content-type'), /text\/html/);
  t.match((await server.request('/assets/app.js')).headers.get('content-type'), /javascript/);
  t.match((await server.request('/assets/favicon.svg')).headers.get('content-type'), /image\/svg\+xml/);
  for (const path of ['/', '/api-docs']) t.match((await server.request(path)).text, /<link rel="icon" href="\/assets\/favicon.svg"/, `${path} names its icon (no request for a missing /favicon.ico)`);
  t.equal((await server.request('/assets/secret.txt')).status, 404);
  t.equal((await server.request('/assets/..%2Fpackage.json')).status, 404);
  t.equal((await server.request('/assets/vendor/package.json')).status, 404, 'only the viewer\'s two files are served');
  const home = await server.request('/');
  t.notMatch(home.text, /https?:\/\//, 'nothing loaded from another origin');
  t.notMatch(home.text, /<script>/, 'no inline script');
});

t.test('upload, live, tokens and a club switch in headless Chromium', { skip: chromiumMissing }, async (t) => {
  const worker = await startTestWorker();
  t.teardown(() => worker.close());
  const server = await startTestServer(t, {
    config: {
      worker: { url: `http://127.0.0.1:${worker.internalPort}`, secret: SECRET, public_url: `ws://127.0.0.1:${worker.wsPort}`, token_ttl_seconds: 600 },
      import_jobs: { spool_dir: mkdtempSync(join(tmpdir(), 'logbook-app-')) },
    },
  });
  const db = server.db.pool;
  const op = await appOperator(db, 'DL1APP');
  const club = await createClub(db, 'DL0APP');
  await addClubMember(db, club.clubId, op.userId, 9);
  await server.request('/api/v2/radio', { method: 'POST', token: op.token, json: { radio: 'IC-7300', frequency: 14074000, mode: 'USB', power: 50 } });

  const browser = await launchBrowser(t);
  const errors: string[] = [];
  const page = await watchedPage(browser, errors);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });

  await page.goto(server.url + '/');
  await signIn(page, op.username);
  t.match(await page.locator('#who').textContent(), /DL1APP/);

  // Upload, with its options.
  await page.getByRole('link', { name: 'Upload' }).click();
  t.match(await page.locator('#upload-station').textContent(), /Home/, 'station locations offered by name');
  t.match(await page.locator('label:has(#upload-unmatched)').textContent(), /As the download decides: .*LoTW and eQSL only report them/, 'the default policy explained beside its choice');
  await page.getByLabel('Records already in the log').selectOption('skip');
  await page.setInputFiles('#upload-file', { name: 'log.adi', mimeType: 'text/plain', buffer: Buffer.from(adifDocument(3) + '<CALL:4>K1ZZ<EOR>\n') });
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.locator('#upload-summary').waitFor({ timeout: 15_000 });
  t.equal(await page.textContent('[data-count=imported]'), '3');
  t.equal(await page.textContent('[data-count=failed]'), '1');
  t.match(await page.textContent('#summary-messages'), /not imported: QSO_DATE is missing.*record 4/s, 'messages grouped by kind with their places');
  t.equal(await page.getAttribute('#process-bar', 'value'), '100');
  await shoot(page, 'upload');

  // Live: names, not numbers; pushes arrive.
  await page.getByRole('link', { name: 'Live' }).click();
  await page.waitForFunction(() => document.getElementById('live-status')?.textContent === 'connected', undefined, { timeout: 10_000 });
  await page.waitForFunction(() => document.querySelectorAll('#live-qsos tr').length === 3, undefined, { timeout: 10_000 });
  const home = (await server.request(`/api/v2/station/${op.stationId}`, { token: op.token })).body.data.name;
  t.same(await page.locator('#live-qsos td:nth-child(5)').allTextContents(), [home, home, home], 'QSO rows name their location, never its number');
  await page.locator('#live-radios tr[id^=radio-]').waitFor();
  t.match(await page.textContent('#live-radios'), /IC-7300.*14\.074.*USB/s, 'the radio in MHz');
  const created = await server.request('/api/v2/qso', {
    method: 'POST', token: op.token,
    json: { station_profile_id: op.stationId, call: 'JA1APP', band: '40m', mode: 'CW', qso_date: '2026-11-02', time_on: '0815' },
  });
  const row = page.locator(`#live-qsos tr[data-qso-id="${created.body.data.id}"]`);
  await row.waitFor({ timeout: 10_000 });
  t.match(await row.innerText(), /JA1APP\s+40m\s+CW\s+Home/);
  await shoot(page, 'live');

  // Tokens: create, copy, use, revoke.
  await page.getByRole('link', { name: 'Tokens' }).click();
  await page.getByText('No keys yet.').waitFor();
  await page.getByLabel('Token name').fill('contest laptop');
  await page.getByRole('checkbox', { name: /qso:read/ }).check();
  await page.getByLabel('Expires').selectOption('30');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = page.locator('[data-secret]');
  await secret.waitFor();
  const token = (await secret.textContent())!;
  t.match(token, /^wl2_/, 'the new token is shown');
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied.').waitFor();
  t.equal(await page.evaluate(() => navigator.clipboard.readText()), token, 'Copy puts the value on the clipboard');
  await shoot(page, 'tokens');
  t.equal((await server.request('/api/v2/qso', { token })).status, 200, 'the new token works on the API');
  t.equal((await server.request('/api/v2/station', { token })).status, 403, 'within its scopes only');
  await page.getByRole('button', { name: 'Done' }).click();
  t.equal(await secret.count(), 0, 'the value is gone once closed');
  const listed = page.getByRole('row', { name: /contest laptop/ });
  t.match(await listed.innerText(), /qso:read/);
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Revoke contest laptop' }).click();
  await listed.waitFor({ state: 'detached' });
  t.equal((await server.request('/api/v2/qso', { token })).status, 401, 'the revoked token is refused at once');
  await page.getByRole('button', { name: 'New read-only key' }).click();
  await secret.waitFor();
  const key = (await secret.textContent())!;
  const check = await server.request(`/api/check_auth/${key}`);
  t.same([check.status, check.body.rights], [200, 'r'], 'the v1 key works, read-only');

  // Club switch: the club's locations, then back.
  await page.getByRole('link', { name: 'Stations' }).click();
  await page.getByLabel('Acting as').selectOption({ label: 'DL0APP (club)' });
  await page.getByRole('cell', { name: 'Club site', exact: true }).waitFor();
  t.match(await page.locator('#who').textContent(), /DL0APP/, 'acting for the club');
  t.equal(await page.getByRole('cell', { name: home, exact: true }).count(), 0, 'the own locations are not the club\'s');
  await shoot(page, 'stations-club');
  await page.getByLabel('Acting as').selectOption({ label: 'DL1APP (myself)' });
  await page.getByRole('cell', { name: home, exact: true }).waitFor();

  await page.goto(server.url + '/api-docs');
  await page.waitForSelector('.swagger-ui .title', { timeout: 30_000 });
  t.same(errors, [], 'no script errors and no CSP violations');
});

t.test('the live page says plainly that live updates are not configured', { skip: chromiumMissing }, async (t) => {
  const server = await startTestServer(t);
  const op = await appOperator(server.db.pool);
  const browser = await launchBrowser(t);
  const errors: string[] = [];
  const page = await watchedPage(browser, errors);
  await page.goto(server.url + '/#live');
  await signIn(page, op.username);
  await page.getByText('Live updates are not configured on this server.').waitFor();
  t.match(await page.locator('#live-status').textContent(), /logbook worker.*worker\.url.*worker\.secret and worker\.public_url/s, 'and how to turn them on');
  t.match(await page.locator('#live-radios').textContent(), /No radio has reported yet.*radio:write/, 'no radio yet, and how one reports');
  await shoot(page, 'live-not-configured');

  // The plain /live page, for holders of a token only: the same plain answer.
  await page.goto(server.url + '/live');
  await page.getByLabel('v2 token').fill(op.token);
  await page.getByLabel('topic').fill(`qsos_user.${op.userId}`);
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.locator('#status').filter({ hasText: 'not configured' }).waitFor();
  t.match(await page.locator('#status').textContent(), /logbook worker.*worker\.url/s, '/live says how to turn live updates on');
  t.same(errors, []);
});
