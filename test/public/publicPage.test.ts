import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOperator, type Operator } from '../helpers/fixtures.js';
import { insertQsos, utc } from '../helpers/qsoRows.js';
import { logbookBin } from '../helpers/bin.js';
import { chromiumMissing, launchBrowser, shoot, watchedPage } from '../helpers/browser.js';
import { connectClient, SECRET, spawnWorkerProcess, type Frame, type TestClient, type WorkerProcess } from '../helpers/worker.js';
import { v1Key } from '../v1/helpers.js';

// Issue 49: the public log's HTML page and its live pushes. The page is checked in Chromium,
// the pushes also by a socket of the test's own on the same public topic.

async function publish(server: TestServer, op: Operator, json: Record<string, unknown> = {}): Promise<{ id: number; slug: string }> {
  const res = await server.request('/api/v2/logbook', { method: 'POST', token: op.token, json: { name: `Pub ${Math.random()}`, station_ids: `${op.stationId}`, public: true, ...json } });
  t.equal(res.status, 201, res.text);
  return res.body.data;
}

const minutesAgo = (minutes: number): string => utc(new Date(Date.now() - minutes * 60_000));

/** A QSO through v1 api/qso, the way loggers send them, timed now. */
async function logV1(server: TestServer, key: string, stationId: number, call: string): Promise<void> {
  const now = new Date().toISOString();
  const adif = `<call:${call.length}>${call}<band:3>20m<mode:3>FT8<freq:6>14.074<qso_date:8>${now.slice(0, 10).replace(/-/g, '')}`
    + `<time_on:6>${now.slice(11, 19).replace(/:/g, '')}<gridsquare:4>JO22<operator:8>SECRETOP<name:10>Secret Nam<eor>`;
  const res = await server.request('/api/qso', { method: 'POST', json: { key, station_profile_id: String(stationId), type: 'adif', string: adif } });
  t.equal(res.status, 201, res.text);
}

/** An anonymous socket on the logbook's public topic (the page registered it). */
async function watch(worker: WorkerProcess, logbookId: number): Promise<TestClient> {
  const client = await connectClient(worker.wsPort, `public_log.${logbookId}`);
  client.auth('public');
  t.same(await client.next(), { type: 'auth_ok' });
  return client;
}

/** The next public_log push (skipping none: a push is all a public socket receives). */
async function nextPush(client: TestClient): Promise<{ text: string; log: Record<string, any> }> {
  const frame = await client.next(10_000);
  t.equal(frame.type, 'push');
  const payload = frame.payload as Frame;
  t.equal(payload.type, 'public_log');
  return { text: JSON.stringify(frame), log: payload.log as Record<string, any> };
}

/**
 * A TCP forwarder on a port of its own, to whichever worker is current: a restarted worker cannot
 * listen on its predecessor's ports at once (the sockets it closed linger in TIME_WAIT there), and
 * the API's config and the page keep the addresses they were given.
 */
async function forwarder(t: Test, target: number): Promise<{ port: number; to(port: number): void }> {
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) socket.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, to: (port) => { target = port; } };
}

const cells = (page: Page, column: string) => page.locator(`table.recent td.${column}`).allTextContents();

t.test('the page\'s headers, and the same 404 page for an unknown or unpublished slug', async (t) => {
  const server = await startTestServer(t);
  const op = await createOperator(server.db.pool, { callsign: 'EA8HDR' });
  const { id, slug } = await publish(server, op);
  const page = await server.request(`/public/${slug}`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  t.match(page.headers.get('content-security-policy'), /script-src 'self'(;|$)/, 'no inline scripts');
  t.match(page.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  t.notMatch(page.text, /<script>/);
  t.notMatch(page.text, /https?:\/\//, 'nothing from another origin');
  for (const asset of ['/assets/public.js', '/assets/public.css', '/assets/countries-110m.json']) t.equal((await server.request(asset)).status, 200, asset);

  t.equal((await server.request(`/api/public/${slug}/live`)).status, 409, 'no worker: the page is told to poll');
  t.equal((await server.request(`/api/v2/logbook/${id}`, { method: 'PATCH', token: op.token, json: { public: false } })).status, 200);
  const unpublished = await server.request(`/public/${slug}`);
  const unknown = await server.request('/public/no-such-log-000000');
  const malformed = await server.request('/public/bad%20slug');
  t.same([unpublished.status, unknown.status, malformed.status], [404, 404, 404]);
  t.equal(unpublished.text, unknown.text, 'an unpublished slug\'s page is an unknown one\'s');
  t.equal(malformed.text, unknown.text);
  t.equal((await server.request(`/api/public/${slug}/live`)).status, 404);
});

t.test('the page counts in the public bucket', async (t) => {
  const server = await startTestServer(t, { config: { api_rate_limits: { public: { requests: 2, window: 60 } } } });
  const op = await createOperator(server.db.pool, { callsign: 'EA8RTL' });
  const { slug } = await publish(server, op);
  t.equal((await server.request(`/public/${slug}`)).status, 200);
  t.equal((await server.request(`/api/public/${slug}`)).status, 200);
  const refused = await server.request(`/public/${slug}`);
  t.equal(refused.status, 429, 'page and JSON share the address\'s bucket');
  t.ok(Number(refused.headers.get('retry-after')) >= 1);
});

t.test('no worker configured: the page polls and shows a new QSO without a reload', { skip: chromiumMissing }, async (t) => {
  const server = await startTestServer(t);
  const op = await createOperator(server.db.pool, { callsign: 'EA8POL' });
  const { slug } = await publish(server, op);
  await insertQsos(server.db.pool, [{ station_id: op.stationId, call: 'K1OLD', time_on: minutesAgo(30), band: '40m', mode: 'CW' }]);
  const browser = await launchBrowser(t);
  const errors: string[] = [];
  const page = await watchedPage(browser, errors);
  await page.goto(`${server.url}/public/${slug}`);
  await page.getByText('K1OLD').waitFor();
  t.match(await page.locator('.live-status').textContent(), /updated every 5 s/, 'the page says it polls');
  await page.evaluate(() => { (window as unknown as { marker: number }).marker = 1; });
  const created = await server.request('/api/v2/qso', {
    method: 'POST', token: op.token, json: { station_profile_id: op.stationId, call: 'K2POLL', band: '20m', mode: 'SSB', qso_date: minutesAgo(1).slice(0, 10), time_on: minutesAgo(1).slice(11, 16).replace(':', '') },
  });
  t.equal(created.status, 201, created.text);
  await page.getByText('K2POLL').waitFor({ timeout: 15_000 });
  t.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 1, 'no reload');
  t.same(errors, [], 'no script error, no CSP violation');
});

t.test('live: pushes reach the page and a socket, hide what the owner hides, survive a worker restart; unpublish closes them', { skip: chromiumMissing }, async (t) => {
  let worker = await spawnWorkerProcess({});
  t.teardown(() => worker.stop());
  const [wsPort, internalPort] = [await forwarder(t, worker.wsPort), await forwarder(t, worker.internalPort)];
  const workerConfig = { url: `http://127.0.0.1:${internalPort.port}`, secret: SECRET, public_url: `ws://127.0.0.1:${wsPort.port}` };
  const server = await startTestServer(t, { config: { worker: workerConfig } });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'EA8LIV' });
  const key = await v1Key(db, op.userId, 'rw');
  const banner = '<b>QRV on 20m</b> until Friday';
  const { id, slug } = await publish(server, op, { public_banner: banner });
  const oldTime = minutesAgo(20);
  await insertQsos(db, [
    { station_id: op.stationId, call: 'K1ABC', time_on: oldTime, band: '20m', mode: 'SSB', freq: 14_200_000, gridsquare: 'FN42', operator: 'SECRETOP' },
    { station_id: op.stationId, call: 'JA1XYZ', time_on: minutesAgo(10), band: '15m', mode: 'CW', freq: 21_020_000, dxcc: 339 },
  ]);

  const browser = await launchBrowser(t);
  const errors: string[] = [];
  const page = await watchedPage(browser, errors);
  await page.goto(`${server.url}/public/${slug}`);
  await page.waitForFunction(() => document.querySelector('.live-status')?.textContent === 'live', undefined, { timeout: 10_000 });
  t.same(await cells(page, 'call'), ['JA1XYZ', 'K1ABC'], 'the last QSOs, newest first');
  t.equal(await page.locator('.banner').textContent(), banner, 'the banner as text, its markup shown, not obeyed');
  t.equal(await page.locator('.banner b').count(), 0);
  t.equal(await page.locator('#qso-count').textContent(), '2');
  t.equal(await page.locator('table.recent th', { hasText: 'UTC' }).count(), 0, 'times hidden by default');
  t.notOk((await page.locator('main').innerText()).includes(oldTime.slice(11, 16)), 'no QSO time on the page');
  t.match(await page.locator('table.recent').innerText(), /21\.02/, 'frequencies shown by default');
  t.match(await page.locator('table.hour').innerText(), /15m[\s\S]*1/, 'the last hour\'s grid');
  await page.locator('svg.map .worked circle').first().waitFor();
  t.equal(await page.locator('svg.map .worked circle').count(), 2, 'worked by grid square, and by DXCC entity without one');
  t.equal(await page.locator('svg.map .station path').count(), 1, 'the station on the map');
  await shoot(page, 'public-live');

  // Search box.
  await page.getByLabel('Am I in the log?').fill('k1abc');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('table.slots').waitFor();
  t.match(await page.locator('table.slots').innerText(), /20m\s+SSB\s+1\s+no/);
  await page.getByLabel('Am I in the log?').fill('W9NONE');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByText('W9NONE is not in the log.').waitFor();
  await shoot(page, 'public-search');

  // A QSO through v1 api/qso appears live, and the push holds nothing unpublished.
  await page.evaluate(() => { (window as unknown as { marker: number }).marker = 1; });
  const socket = await watch(worker, id);
  await logV1(server, key, op.stationId, 'PA3NEW');
  const pushed = await nextPush(socket);
  t.equal(pushed.log.recent[0].call, 'PA3NEW');
  t.equal(pushed.log.qsos, 3);
  t.equal(pushed.log.map.complete, true, 'this process\'s first push of the logbook holds the whole map');
  t.equal(pushed.log.map.worked.length, 3);
  t.ok(pushed.log.map.worked.some((p: Record<string, number>) => p.lat === 52.5 && p.lng === 5), 'the new QSO\'s grid square, JO22');
  for (const secret of ['time_on', 'SECRETOP', 'Secret Nam', 'operator', 'qsl', op.token, key]) t.notOk(pushed.text.includes(secret), `the push leaks nothing: ${secret}`);
  await page.locator('table.recent td.call', { hasText: 'PA3NEW' }).waitFor({ timeout: 5000 });
  t.equal(await page.locator('#qso-count').textContent(), '3');
  t.equal(await page.locator('svg.map .worked circle').count(), 3, 'the new position merged into the map');
  t.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 1, 'without a reload');

  // An import of several QSOs is one push, not one per row.
  const now = minutesAgo(0);
  const bulk = await server.request('/api/v2/qso', {
    method: 'POST', token: op.token,
    json: { station_profile_id: op.stationId, qsos: ['DL1AA', 'DL1BB', 'DL1CC'].map((call) => ({ call, band: '40m', mode: 'CW', qso_date: now.slice(0, 10), time_on: now.slice(11, 16).replace(':', '') })) },
  });
  t.ok(bulk.status < 300, bulk.text);
  const batch = await nextPush(socket);
  t.equal(batch.log.qsos, 6, 'the batch\'s three QSOs in one push');
  t.ok(await socket.silentFor(1000), 'and no push per row');
  await page.locator('#qso-count').filter({ hasText: '6' }).waitFor({ timeout: 5000 });

  // Hiding the frequency and showing times: the push and the page follow.
  t.equal((await server.request(`/api/v2/logbook/${id}`, { method: 'PATCH', token: op.token, json: { public_show_frequency: false, public_show_times: true } })).status, 200);
  const hidden = await nextPush(socket);
  t.notOk(hidden.text.includes('"freq"'), 'no frequency in the push');
  t.same([hidden.log.map.complete, hidden.log.map.worked], [false, []], 'later pushes hold the map\'s changes only');
  t.ok(hidden.log.recent.every((q: Record<string, unknown>) => typeof q.time_on === 'string'), 'times now in the push');
  await page.locator('table.recent th', { hasText: 'UTC' }).waitFor();
  t.equal(await page.locator('table.recent th', { hasText: 'MHz' }).count(), 0);
  t.notMatch(await page.locator('table.recent').innerText(), /21\.02|14\.2/, 'no frequency on the page');

  // A worker restart: a QSO logged while it is down reaches the page when it reconnects.
  await worker.stop();
  socket.close();
  await page.waitForFunction(() => document.querySelector('.live-status')?.textContent !== 'live', undefined, { timeout: 10_000 });
  const whileDown = await server.request('/api/v2/qso', {
    method: 'POST', token: op.token, json: { station_profile_id: op.stationId, call: 'VK2DOWN', band: '10m', mode: 'FT8', qso_date: minutesAgo(0).slice(0, 10), time_on: minutesAgo(0).slice(11, 16).replace(':', '') },
  });
  t.equal(whileDown.status, 201);
  worker = await spawnWorkerProcess({});
  wsPort.to(worker.wsPort);
  internalPort.to(worker.internalPort);
  await page.waitForFunction(() => document.querySelector('.live-status')?.textContent === 'live', undefined, { timeout: 20_000 });
  await page.locator('table.recent td.call', { hasText: 'VK2DOWN' }).waitFor({ timeout: 5000 });
  t.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 1, 'caught up without a reload');
  await shoot(page, 'public-caught-up');

  // Unpublishing closes the open sockets at once; the page says so; page, JSON and search are 404.
  const after = await watch(worker, id);
  t.equal((await server.request(`/api/v2/logbook/${id}`, { method: 'PATCH', token: op.token, json: { public: false } })).status, 200);
  t.match(await after.next(), { type: 'error', code: 'topic_closed' });
  t.equal((await after.closed).code, 1008, 'the socket is closed before the PATCH answers');
  await page.getByText('No public log at this address').waitFor({ timeout: 5000 });
  for (const path of [`/public/${slug}`, `/api/public/${slug}`, `/api/public/${slug}/search?call=K1ABC`]) t.equal((await server.request(path)).status, 404, path);
  await shoot(page, 'public-gone');

  // The CLI's unpublish does the same, through the workers named in the config.
  t.equal((await server.request(`/api/v2/logbook/${id}`, { method: 'PATCH', token: op.token, json: { public: true } })).status, 200);
  t.equal((await server.request(`/api/public/${slug}/live`)).status, 200, 'registered again');
  const viaCli = await watch(worker, id);
  const configFile = join(mkdtempSync(join(tmpdir(), 'logbook-pub-')), 'config.json');
  writeFileSync(configFile, JSON.stringify({ worker: workerConfig }));
  const cli = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, [logbookBin, 'logbook', 'unpublish', String(id), '--config', configFile], { env: { ...process.env, DATABASE_URL: server.db.url, LOGBOOK_QUIET: '1' } },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }));
  });
  t.equal(cli.code, 0, cli.stderr);
  t.equal((await viaCli.closed).code, 1008, 'the CLI closed the socket');

  // Deleting a published logbook (not the active one) closes its sockets too.
  const second = await publish(server, op);
  t.equal((await server.request(`/api/public/${second.slug}/live`)).status, 200);
  const onDeleted = await watch(worker, second.id);
  t.equal((await server.request(`/api/v2/logbook/${second.id}`, { method: 'DELETE', token: op.token })).status, 204);
  t.equal((await onDeleted.closed).code, 1008, 'deleting closed the socket');
  t.same(errors, [], 'no script error, no CSP violation');
});
