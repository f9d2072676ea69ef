import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { SECRET, startTestWorker } from '../helpers/worker.js';
import { adifDocument } from '../upload/helpers.js';

const CHROMIUM = '/usr/bin/chromium';

function viewerInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('swagger-ui-dist/package.json');
    return true;
  } catch {
    return false;
  }
}

t.test('the browser app: pages and their security headers', async (t) => {
  const server = await startTestServer(t);
  for (const path of ['/', '/api-docs', '/app/app.js', '/app/app.css']) {
    const res = await server.request(path);
    t.equal(res.status, 200, path);
    const csp = res.headers.get('content-security-policy')!;
    t.match(csp, /frame-ancestors 'none'/, path);
    t.match(csp, /script-src 'self'(;|$)/, `${path}: no inline scripts`);
    t.equal(res.headers.get('x-frame-options'), 'DENY');
    t.equal(res.headers.get('x-content-type-options'), 'nosniff');
  }
  t.match((await server.request('/')).headers.get('content-type'), /text\/html/);
  t.match((await server.request('/app/app.js')).headers.get('content-type'), /javascript/);
  t.equal((await server.request('/app/secret.txt')).status, 404);
  t.equal((await server.request('/app/vendor/package.json')).status, 404, 'only the viewer\'s two files are served');
  const home = await server.request('/');
  t.notMatch(home.text, /https?:\/\//, 'nothing loaded from another origin');
});

const chromiumReason = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium); the browser test needs it`;

t.test('the browser app in headless Chromium', { skip: chromiumReason }, async (t) => {
  const worker = await startTestWorker();
  t.teardown(() => worker.close());
  const server = await startTestServer(t, {
    config: {
      worker: { url: `http://127.0.0.1:${worker.internalPort}`, secret: SECRET, public_url: `ws://127.0.0.1:${worker.wsPort}`, token_ttl_seconds: 600 },
      import_jobs: { spool_dir: mkdtempSync(join(tmpdir(), 'logbook-app-')) },
    },
  });
  const op = await createOperator(server.db.pool, { callsign: 'DL1APP' });
  await server.request('/api/v2/radio', { method: 'POST', token: op.token, json: { radio: 'IC-7300', frequency: 14074000, mode: 'USB', power: 50 } });

  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 375, height: 740 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error' && /Content Security Policy/.test(message.text())) errors.push(message.text()); });

  await page.goto(server.url + '/');
  await page.fill('#token', 'wl2_' + '0'.repeat(40));
  await page.click('#signin-form button[type=submit]');
  await page.waitForFunction(() => document.getElementById('signin-error')!.textContent !== '');
  t.match(await page.textContent('#signin-error'), /This token was refused/, 'a wrong token is refused');
  t.ok(await page.isVisible('#page-signin'));
  t.notOk(await page.isVisible('#nav'));

  await page.fill('#token', op.token);
  await page.click('#signin-form button[type=submit]');
  await page.waitForSelector('#page-upload', { state: 'visible' });
  t.match(await page.textContent('#who'), /DL1APP/);
  t.match(await page.textContent('#upload-station'), /Home/, 'station locations offered by name');

  await page.setInputFiles('#upload-file', { name: 'log.adi', mimeType: 'text/plain', buffer: Buffer.from(adifDocument(3) + '<CALL:4>K1ZZ<EOR>\n') });
  await page.click('#upload-start');
  await page.waitForSelector('#upload-summary', { state: 'visible', timeout: 15_000 });
  t.equal(await page.textContent('[data-count=imported]'), '3');
  t.equal(await page.textContent('[data-count=failed]'), '1');
  t.match(await page.textContent('#summary-messages'), /not imported: QSO_DATE is missing.*record 4/s, 'messages grouped by kind with their places');
  t.equal(await page.getAttribute('#process-bar', 'value'), '100');
  t.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'no sideways scrolling on a phone');

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(server.url + '/#live');
  await page.waitForFunction(() => document.getElementById('live-status')!.textContent === 'connected', undefined, { timeout: 10_000 });
  await page.waitForFunction(() => document.querySelectorAll('#live-qsos tr').length === 3, undefined, { timeout: 10_000 });
  t.match(await page.textContent('#live-qsos'), /K0A.*K1A.*K2A|K2A.*K1A.*K0A/s, 'the latest QSOs are there on open');
  await page.waitForSelector('#live-radios tr');
  t.match(await page.textContent('#live-radios'), /IC-7300.*14074000.*USB/s, 'the radio panel is filled on open');
  t.match(await page.textContent('#live-stations'), /Home/, 'locations chosen by name');

  const created = await server.request('/api/v2/qso', {
    method: 'POST', token: op.token,
    json: { station_profile_id: op.stationId, call: 'JA1APP', band: '40m', mode: 'CW', qso_date: '2026-11-02', time_on: '0815' },
  });
  t.equal(created.status, 201);
  const row = page.locator(`#live-qsos tr[data-qso-id="${created.body.data.id}"]`);
  await row.waitFor({ timeout: 10_000 });
  t.match(await row.innerText(), /JA1APP\s+40m\s+CW/);

  const imported = await server.request(`/api/v2/qso?station_profile_id=${op.stationId}`, {
    method: 'POST', token: op.token, body: adifDocument(2, 500), headers: { 'content-type': 'text/plain' },
  });
  t.equal(imported.status, 201);
  await page.waitForFunction(() => /2 QSOs imported into Home/.test(document.getElementById('live-events')!.textContent!), undefined, { timeout: 10_000 });
  // The import reloads the list: 3 uploaded + 1 created + 2 imported.
  await page.waitForFunction(() => document.querySelectorAll('#live-qsos tr').length === 6, undefined, { timeout: 10_000 });

  await page.reload();
  await page.waitForFunction(() => document.getElementById('live-status')!.textContent === 'connected', undefined, { timeout: 10_000 });
  const again = page.locator(`#live-qsos tr[data-qso-id="${created.body.data.id}"]`);
  await again.waitFor({ timeout: 10_000 });
  t.match(await again.innerText(), /JA1APP/, 'still there after a reload, signed in');

  await page.goto(server.url + '/api-docs');
  if (viewerInstalled()) {
    await page.waitForSelector('.swagger-ui .title', { timeout: 15_000 });
    t.match(await page.textContent('.swagger-ui .title'), /Logbook API/);
  } else {
    t.match(await page.textContent('body'), /swagger-ui-dist\) is not installed/);
  }
  t.same(errors, [], 'no script errors and no CSP violations');
});
