import { text } from 'node:stream/consumers';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { seedQsos } from '../helpers/qsoRows.js';
import { adifRecords, v2AdifRecords } from '../helpers/adifList.js';
import { appOperator, chromiumMissing, launchBrowser, shoot, signIn, watchedPage } from '../helpers/browser.js';

const QSOS = 3000;

t.test('the log, a QSO, statistics and the map in headless Chromium', { skip: chromiumMissing }, async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await appOperator(db, 'DL1LOG');
  // Five entities (prefix and DXCC number agree), three bands, four modes, some confirmations, 2024–2025.
  await seedQsos(db, [op.stationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode, dxcc, qsl_rcvd, lotw_qsl_rcvd, gridsquare, rst_sent, rst_rcvd)
     SELECT $1, (ARRAY['DL','K','JA','G','VK'])[n % 5 + 1] || n || 'X', timestamp '2024-11-01' + n * interval '3 hours',
            (ARRAY['20m','40m','15m'])[n % 3 + 1], (ARRAY['SSB','CW','FT8','FM'])[n % 4 + 1], (ARRAY[230,291,339,223,150])[n % 5 + 1],
            CASE WHEN n % 7 = 0 THEN 'Y' ELSE 'N' END, CASE WHEN n % 11 = 0 THEN 'Y' ELSE 'N' END,
            (ARRAY['JO62','FN31','PM95','IO91','QF56'])[n % 5 + 1] || 'AA', '59', '57'
       FROM generate_series(1, $2::int) n`, [op.stationId, QSOS]);
  const api = async (path: string) => (await server.request(path, { token: op.token })).body;

  const browser = await launchBrowser(t);
  const errors: string[] = [];
  const page = await watchedPage(browser, errors);
  await page.goto(server.url + '/');
  await signIn(page, op.username);
  const count = page.locator('p.count');
  const firstCall = () => page.locator('table.log tbody tr').first().locator('td').nth(1).textContent();

  await count.filter({ hasText: '3,000 QSOs · page 1 of 60' }).waitFor();
  const newest = await api('/api/v2/qso?per_page=1');
  t.equal(await firstCall(), newest.data[0].call, 'newest first');
  t.equal(await page.locator('table.log tbody tr').count(), 50, 'one page of 50 in the browser');
  t.match(await page.locator('table.log tbody').textContent(), /LoTW|QSL/, 'confirmation badges');
  await shoot(page, 'log');

  const filter = async (values: Record<string, string>) => {
    await page.getByRole('button', { name: 'Clear' }).click();
    for (const [label, value] of Object.entries(values)) {
      const field = page.getByLabel(label);
      if (await field.evaluate((el) => el.tagName === 'SELECT')) await field.selectOption(value); else await field.fill(value);
    }
    await page.getByRole('button', { name: 'Apply' }).click();
  };
  await filter({ Callsign: 'ja2x' });
  await count.filter({ hasText: /^1 QSO$/ }).waitFor();
  t.equal(await firstCall(), 'JA2X', 'callsign filter');

  await filter({ Band: '40m', Mode: 'CW' });
  const bandMode = await api('/api/v2/qso?band=40m&mode=CW&per_page=50&page=2');
  await count.filter({ hasText: `${bandMode.meta.total} QSOs · page 1 of ${bandMode.meta.total_pages}` }).waitFor();
  await page.getByRole('button', { name: 'Older' }).click();
  await count.filter({ hasText: `page 2 of ${bandMode.meta.total_pages}` }).waitFor();
  t.equal(await page.locator('table.log tbody tr').first().getAttribute('data-qso-id'), String(bandMode.data[0].id), 'the second page is the API\'s second page');
  t.same(new Set(await page.locator('table.log tbody tr td:nth-child(3)').allTextContents()), new Set(['40m']));
  await shoot(page, 'log-filtered');

  await filter({ 'Confirmed by': 'lotw', 'From (UTC)': '2025-01-01', 'To (UTC)': '2025-01-31' });
  const lotw = await api('/api/v2/qso?qsl_filter=lotw&qso_since=2025-01-01&qso_until=2025-01-31&per_page=1');
  await count.filter({ hasText: new RegExp(`^${lotw.meta.total} QSOs?$`) }).waitFor();
  t.ok(lotw.meta.total > 0 && lotw.meta.total < QSOS, `confirmation and date filters: ${lotw.meta.total}`);

  // ADIF export of the current filter: a download the server streams, equal to the v2 list's ADIF.
  const exportAs = async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export ADIF' }).click()]);
    t.match(download.url(), new RegExp(`^${server.url}/app/export\\.adi\\?`), 'the server\'s file, not records gathered in the page');
    // A stream, not a path: the run's shared Chromium may be another process's.
    return (await text(await download.createReadStream()));
  };
  const lotwAdif = await exportAs();
  t.equal(lotwAdif.match(/<eor>/gi)?.length, lotw.meta.total, 'the export holds the filtered QSOs');
  t.equal(adifRecords(lotwAdif), await v2AdifRecords(server, op.token, { qsl_filter: 'lotw', qso_since: '2025-01-01', qso_until: '2025-01-31' }));
  await filter({});
  await count.filter({ hasText: '3,000 QSOs' }).waitFor();
  const whole = await exportAs();
  t.equal(whole.match(/<eor>/gi)?.length, QSOS, 'the whole log, a few thousand QSOs');
  t.equal(adifRecords(whole), await v2AdifRecords(server, op.token, {}), 'byte for byte the v2 list\'s ADIF of the same filter');

  // Edit, then delete, the newest QSO.
  await page.getByRole('link', { name: newest.data[0].call }).click();
  await page.getByLabel('Name', { exact: true }).fill('Hans');
  await page.getByLabel('Frequency (MHz)', { exact: true }).fill('14.2055');
  await shoot(page, 'qso-edit');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved.').waitFor();
  const edited = await api(`/api/v2/qso/${newest.data[0].id}`);
  t.same([edited.data.name, edited.data.freq], ['Hans', 14205500], 'the API shows the change (MHz in the form, Hz in the API)');
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Delete QSO' }).click();
  await count.filter({ hasText: '2,999 QSOs' }).waitFor();
  t.equal((await server.request(`/api/v2/qso/${newest.data[0].id}`, { token: op.token })).status, 404, 'deleted');

  // A QSO entered by hand, with the callsign's information as typed.
  await page.getByRole('link', { name: 'Log a QSO' }).first().click();
  t.equal(await page.getByLabel('Date (UTC)').inputValue(), new Date().toISOString().slice(0, 10), 'date defaults to today, UTC');
  t.match(await page.getByLabel('Time (UTC)').inputValue(), /^\d\d:\d\d$/);
  await page.getByLabel('Band', { exact: true }).fill('20m');
  await page.getByLabel('Mode', { exact: true }).fill('SSB');
  await page.getByLabel('Callsign', { exact: true }).fill('DL5X');
  const info = page.getByRole('definition');
  await page.locator('dl.callinfo').filter({ hasText: 'GERMANY' }).waitFor();
  t.match(await page.locator('dl.callinfo').innerText(), /CQ zone\s+14.*Worked before\s+yes/s, 'entity, CQ zone, worked before');
  t.ok(await info.count() >= 5);
  await shoot(page, 'log-qso');
  await page.getByRole('button', { name: 'Log QSO' }).click();
  await page.getByText(/Logged: DL5X/).waitFor();
  const logged = await api('/api/v2/qso?callsign=DL5X');
  t.equal(logged.meta.total, 2, 'the new QSO is in the log');
  t.equal(logged.data[0].band, '20m');

  // Statistics: the resource's numbers, charts, the map.
  await page.getByRole('link', { name: 'Statistics' }).click();
  const stats = (await api('/api/v2/statistic?profile=qso')).data.qso;
  const perBand = (await api('/api/v2/statistic?profile=dxcc')).data.dxcc_by_band;
  await page.locator('table.dxcc').waitFor();
  t.equal(await page.locator('[data-total]').textContent(), stats.total.toLocaleString('en-GB'));
  t.equal(await page.locator('[data-dxcc=worked]').textContent(), String(stats.dxcc.worked));
  t.equal(await page.locator('[data-dxcc=confirmed]').textContent(), String(stats.dxcc.confirmed));
  const shown = await page.locator('table.dxcc tbody tr[data-band]').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
  t.same(shown, perBand.map((b: { band: string; worked: number; confirmed: number }) => [b.band, String(b.worked), String(b.confirmed)]), 'DXCC per band as the resource counts it');
  const years = await page.locator('table[aria-label="QSOs by year"] tbody tr').evaluateAll((rows) => rows.map((r) => r.textContent));
  t.same(years, stats.breakdown.by_year.map((y: { year: number; count: number }) => `${y.year}${y.count.toLocaleString('en-GB')}`), 'QSOs by year');
  t.equal(await page.locator('figure.chart canvas').count(), 3, 'three charts');
  const grids = (await api('/api/v2/lookup?grid=all')).data.grids;
  await page.locator('svg.map .squares path').first().waitFor();
  t.equal(await page.locator('svg.map .squares path').count(), grids.length, 'a square per worked grid');
  t.ok(await page.locator('svg.map .countries path').count() > 150, 'the countries are drawn');
  t.ok(await page.locator('svg.map .squares path.confirmed').count() > 0, 'confirmed squares stand out');
  await shoot(page, 'statistics');

  // The map of DXCC entities: a marker per entity the statistic resource says was worked.
  const entities = (await api('/api/v2/statistic?profile=dxcc')).data.dxcc_entities;
  t.equal(entities.length, stats.dxcc.worked, 'the resource lists each worked entity');
  await page.getByLabel('Worked DXCC entities').check();
  await page.locator('svg.map .points circle').first().waitFor();
  const markers = await page.locator('svg.map .points circle').evaluateAll((circles) => circles.map((c) => [Number(c.getAttribute('data-id')), c.getAttribute('class')]));
  t.same(markers, entities.map((e: { dxcc: number; confirmed: boolean }) => [e.dxcc, e.confirmed ? 'confirmed' : 'worked']), 'one marker per worked entity, confirmed ones marked so');
  t.equal(markers.filter(([, kind]) => kind === 'confirmed').length, stats.dxcc.confirmed);
  t.equal(await page.locator('svg.map .squares').count(), 0, 'the squares make way');
  const japan = await page.locator('svg.map .points circle[data-id="339"]').boundingBox();
  const germany = await page.locator('svg.map .points circle[data-id="230"]').boundingBox();
  t.ok(japan!.x > germany!.x && japan!.y > germany!.y - 100, 'placed where the entities are: Japan east of Germany');
  t.match(await page.locator('svg.map').getAttribute('aria-label'), new RegExp(`${stats.dxcc.worked} DXCC entities worked, ${stats.dxcc.confirmed} confirmed`));
  await shoot(page, 'statistics-dxcc-map');

  // Stations and logbooks.
  await page.getByRole('link', { name: 'Stations' }).click();
  await page.getByRole('button', { name: 'New station location' }).click();
  const form = page.getByRole('form', { name: 'New station location' });
  for (const [label, value] of [['Name', 'Portable'], ['Callsign', 'DL1LOG/P'], ['DXCC entity number', '230'], ['CQ zone', '14'], ['ITU zone', '28'], ['Gridsquare', 'JO50']]) {
    await form.getByLabel(label!, { exact: true }).fill(value!);
  }
  await form.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('button', { name: 'Make Portable active' }).click();
  await page.getByRole('button', { name: 'Make Portable active' }).waitFor({ state: 'detached' });
  const stations = (await api('/api/v2/station')).data;
  t.same(stations.map((s: { name: string; active: boolean }) => [s.name, s.active]).slice(-1), [['Portable', true]], 'created and made active');
  await shoot(page, 'stations');

  await page.getByRole('link', { name: 'Logbooks' }).click();
  await page.getByText('No logbooks yet.').waitFor();
  await page.getByRole('button', { name: 'New logbook' }).click();
  await page.getByLabel('Logbook name').fill('Field days');
  await page.getByRole('checkbox', { name: 'Portable' }).check();
  await page.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('cell', { name: 'Field days', exact: true }).waitFor();
  t.equal(await page.getByText('No logbooks yet.').count(), 0, 'the word for an empty table goes with its first row');
  const logbooks = (await api('/api/v2/logbook')).data;
  t.same(logbooks.map((b: { name: string; station_ids: number[] }) => [b.name, b.station_ids.length]), [['Field days', 1]]);
  await shoot(page, 'logbooks');

  t.same(errors, [], 'no script errors and no CSP violations');
});
