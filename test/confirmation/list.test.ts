import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { createStation } from '../../lib/accounts/stations.js';
import { insertQsos, seedQsos } from '../helpers/qsoRows.js';
import { inQsoTransaction } from '../../lib/qso/writeLock.js';
import { listConfirmations, type ConfirmationFilters } from '../../lib/confirmations/query.js';
import { CONFIRMATION_KEYS, CONFIRMATION_TYPES } from '../../lib/qso/confirmationTypes.js';
import { repeatCheck } from '../helpers/repeatedCheck.js';
import { compactQsoCounts } from '../../lib/qso/counts.js';

const ALL_TYPES = ['lotw', 'eqsl', 'qsl', 'qrz', 'clublog'];

t.test('confirmation list', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1CNF' });
  const portable = await createStation(db, { userId: op.userId, name: 'Portable', callsign: 'DL1CNF/P', gridsquare: 'JO63' });
  const other = await createOperator(db, { callsign: 'DL2OTH' });
  const withoutScope = await createOperator(db, { scopes: ['qso:read'] });

  const [unconfirmed, single, five, undated, requested, satellite, tieLater, otherOwners] = await insertQsos(db, [
    { station_id: op.stationId, call: 'K1NONE', time_on: '2024-01-01 10:00:00', band: '20m', mode: 'CW', lotw_qsl_rcvd: 'N', qsl_rcvd: 'N' },
    // One type only; submode and grid set, the satellite fields empty strings (absent in the row).
    { station_id: op.stationId, call: 'K1ONE', time_on: '2024-01-05 23:59:59', band: '20m', mode: 'SSB', submode: 'USB',
      gridsquare: 'FN31', sat_name: '', sat_mode: '', vucc_grids: '', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-10' },
    // All five types, each with its own date; lotw and clublog share the date.
    { station_id: op.stationId, call: 'K5ALL', time_on: '2024-01-06 00:00:00', band: '40m', mode: 'FT8', submode: '',
      qsl_rcvd: 'Y', qslrdate: '2024-02-01', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-10', eqsl_qsl_rcvd: 'Y', eqsl_qslrdate: '2024-02-15',
      qrzcom_qso_download_status: 'Y', qrzcom_qso_download_date: '2023-12-31', clublog_qso_download_status: 'Y', clublog_qso_download_date: '2024-03-10' },
    // Received but without a date: not listed.
    { station_id: op.stationId, call: 'K1NODATE', time_on: '2024-01-07 08:00:00', band: '20m', mode: 'CW', qsl_rcvd: 'Y', qslrdate: null },
    // Requested or sent, not received: not listed even with a date.
    { station_id: op.stationId, call: 'K1REQ', time_on: '2024-01-08 08:00:00', band: '20m', mode: 'CW',
      qsl_rcvd: 'R', qslrdate: '2024-03-01', eqsl_qsl_rcvd: 'N', eqsl_qslrdate: '2024-03-01', lotw_qsl_rcvd: 'I', lotw_qslrdate: '2024-03-01' },
    { station_id: portable, call: 'DL0SAT', time_on: '2023-11-11 11:11:11', band: '2m', mode: 'FM', prop_mode: 'SAT',
      sat_name: 'AO-91', sat_mode: 'U/V', vucc_grids: 'JO62,JO63', eqsl_qsl_rcvd: 'Y', eqsl_qslrdate: '2024-01-20' },
    { station_id: op.stationId, call: 'K1TIE', time_on: '2024-02-02 12:00:00', band: '15m', mode: 'CW', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-10' },
    { station_id: other.stationId, call: 'K1FOREIGN', time_on: '2024-01-01 00:00:00', band: '20m', mode: 'CW', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-06-01' },
  ]);
  t.ok(unconfirmed && undated && requested && otherOwners);

  const rowSingle = { qso_id: single, callsign: 'K1ONE', qso_date: '2024-01-05 23:59:59', mode: 'SSB', band: '20m',
    confirmation_date: '2024-03-10', type: 'LoTW', submode: 'USB', gridsquare: 'FN31' };
  const fiveBase = { qso_id: five, callsign: 'K5ALL', qso_date: '2024-01-06 00:00:00', mode: 'FT8', band: '40m' };
  const rowSat = { qso_id: satellite, callsign: 'DL0SAT', qso_date: '2023-11-11 11:11:11', mode: 'FM', band: '2m',
    confirmation_date: '2024-01-20', type: 'eQSL', vucc_grids: 'JO62,JO63', sat_name: 'AO-91', sat_mode: 'U/V' };
  const rowTie = { qso_id: tieLater, callsign: 'K1TIE', qso_date: '2024-02-02 12:00:00', mode: 'CW', band: '15m', confirmation_date: '2024-03-10', type: 'LoTW' };
  const everything = [
    rowSingle,
    { ...fiveBase, confirmation_date: '2024-03-10', type: 'LoTW' },
    { ...fiveBase, confirmation_date: '2024-03-10', type: 'Clublog' },
    rowTie,
    { ...fiveBase, confirmation_date: '2024-02-15', type: 'eQSL' },
    { ...fiveBase, confirmation_date: '2024-02-01', type: 'QSL Card' },
    rowSat,
    { ...fiveBase, confirmation_date: '2023-12-31', type: 'QRZ.com' },
  ];

  const list = (query = '', token = op.token) => server.request(`/api/v2/confirmation${query}`, { token });
  const keysOf = (rows: Array<{ qso_id: number; type: string; confirmation_date: string }>) =>
    rows.map((r) => `${r.qso_id}:${r.type}:${r.confirmation_date}`);

  t.test('one row per received, dated (QSO, type) pair, in order, with exactly the documented fields', async (t) => {
    const res = await list();
    t.equal(res.status, 200);
    t.same(res.body.data, everything);
    // Exact shapes: optional fields absent (not null, not ''), nothing else.
    t.strictSame(Object.keys(res.body.data[0]).sort(), ['band', 'callsign', 'confirmation_date', 'gridsquare', 'mode', 'qso_date', 'qso_id', 'submode', 'type'].sort());
    t.strictSame(Object.keys(res.body.data[1]).sort(), ['band', 'callsign', 'confirmation_date', 'mode', 'qso_date', 'qso_id', 'type'].sort());
    t.strictSame(Object.keys(res.body.data[6]).sort(), ['band', 'callsign', 'confirmation_date', 'mode', 'qso_date', 'qso_id', 'sat_mode', 'sat_name', 'type', 'vucc_grids'].sort());
    t.equal(res.body.meta.resource, 'confirmation');
    t.equal(res.body.meta.method, 'GET');
    t.same(res.body.meta.filters, { type: ALL_TYPES, since: null, qso_since: null, qso_until: null, band: null, mode: null, callsign: null });
    t.notOk('station_id' in res.body.meta.filters);
    t.same(
      { page: res.body.meta.page, per_page: res.body.meta.per_page, count: res.body.meta.count, total: res.body.meta.total,
        total_pages: res.body.meta.total_pages, has_more: res.body.meta.has_more },
      { page: 1, per_page: 100, count: 8, total: 8, total_pages: 1, has_more: false },
    );
  });

  t.test('a QSO confirmed by 0, 1 and 5 types gives 0, 1 and 5 rows; undated and not-received ones none', async (t) => {
    const rows = (await list()).body.data as Array<{ qso_id: number; type: string }>;
    const perQso = (id: number) => rows.filter((r) => r.qso_id === id).map((r) => r.type).sort();
    t.same(perQso(unconfirmed!), []);
    t.same(perQso(single!), ['LoTW']);
    t.same(perQso(five!), ['Clublog', 'LoTW', 'QRZ.com', 'QSL Card', 'eQSL'].sort());
    t.same(perQso(undated!), []);
    t.same(perQso(requested!), []);
    t.same(perQso(otherOwners!), []);
  });

  t.test('ties: same date by QSO id ascending, the same QSO by type order lotw, eqsl, qsl, qrz, clublog', async (t) => {
    const rows = (await list('?since=2024-03-10')).body.data;
    t.same(keysOf(rows), [`${single}:LoTW:2024-03-10`, `${five}:LoTW:2024-03-10`, `${five}:Clublog:2024-03-10`, `${tieLater}:LoTW:2024-03-10`]);
  });

  t.test('type: subset, de-duplicated in request order, case-insensitive; unknown keys are 400', async (t) => {
    const res = await list('?type=qsl,LOTW,qsl');
    t.equal(res.status, 200);
    t.same(res.body.meta.filters.type, ['qsl', 'lotw']);
    t.same(keysOf(res.body.data), [`${single}:LoTW:2024-03-10`, `${five}:LoTW:2024-03-10`, `${tieLater}:LoTW:2024-03-10`, `${five}:QSL Card:2024-02-01`]);
    t.equal(res.body.meta.total, 4);

    const qrz = await list('?type=qrz');
    t.same(keysOf(qrz.body.data), [`${five}:QRZ.com:2023-12-31`]);
    t.same(qrz.body.meta.filters.type, ['qrz']);

    const blank = await list('?type=');
    t.same(blank.body.meta.filters.type, ALL_TYPES, 'blank means all');

    for (const bad of ['hrdlog', 'dcl', 'lotw,foo', ',']) {
      const res = await list(`?type=${bad}`);
      t.equal(res.status, 400, bad);
      t.equal(res.body.error.code, 'validation_error');
      t.equal(res.body.error.details.field, 'type');
      t.same(res.body.error.details.allowed, ALL_TYPES);
    }
  });

  t.test('since: per type on its own received date, inclusive', async (t) => {
    const res = await list('?since=2024-02-10');
    t.same(keysOf(res.body.data), [
      `${single}:LoTW:2024-03-10`, `${five}:LoTW:2024-03-10`, `${five}:Clublog:2024-03-10`, `${tieLater}:LoTW:2024-03-10`, `${five}:eQSL:2024-02-15`,
    ]);
    t.equal(res.body.meta.filters.since, '2024-02-10');
    // The five-type QSO: its QSL card (2024-02-01) and QRZ (2023-12-31) rows fall before the date.
    const cards = await list('?since=2024-02-01&type=qsl,qrz');
    t.same(keysOf(cards.body.data), [`${five}:QSL Card:2024-02-01`]);
    t.equal((await list('?since=2024-03-11')).body.meta.total, 0);
  });

  t.test('qso_since and qso_until count whole days', async (t) => {
    const until = await list('?qso_until=2024-01-05');
    t.same(keysOf(until.body.data), [`${single}:LoTW:2024-03-10`, `${satellite}:eQSL:2024-01-20`], '23:59:59 on the last day is in');
    const since = await list('?qso_since=2024-01-06&qso_until=2024-01-06');
    t.same(since.body.data.map((r: { qso_id: number }) => r.qso_id), [five, five, five, five, five]);
    t.same(since.body.meta.filters, { type: ALL_TYPES, since: null, qso_since: '2024-01-06', qso_until: '2024-01-06', band: null, mode: null, callsign: null });
    t.equal((await list('?qso_since=2024-02-03')).body.meta.total, 0);
  });

  t.test('band, including SAT on the propagation mode', async (t) => {
    const hf = await list('?band=20M');
    t.same(keysOf(hf.body.data), [`${single}:LoTW:2024-03-10`]);
    t.equal(hf.body.meta.filters.band, '20m');
    const sat = await list('?band=sat');
    t.same(keysOf(sat.body.data), [`${satellite}:eQSL:2024-01-20`]);
    t.equal(sat.body.meta.filters.band, 'SAT');
    t.equal((await list('?band=6m')).body.meta.total, 0);
    t.equal((await list('?band=nonsense')).body.meta.total, 0, 'an unknown band matches nothing');
  });

  t.test('mode matches the main mode or the submode', async (t) => {
    const sub = await list('?mode=usb');
    t.same(keysOf(sub.body.data), [`${single}:LoTW:2024-03-10`]);
    t.equal(sub.body.meta.filters.mode, 'USB');
    t.same(keysOf((await list('?mode=SSB')).body.data), [`${single}:LoTW:2024-03-10`]);
    t.equal((await list('?mode=ft8')).body.meta.total, 5);
    t.equal((await list('?mode=FT4')).body.meta.total, 0);
  });

  t.test('callsign: exact, normalised; invalid input is 400', async (t) => {
    const res = await list('?callsign=k5all');
    t.equal(res.body.meta.total, 5);
    t.equal(res.body.meta.filters.callsign, 'K5ALL');
    t.equal((await list('?callsign=K5AL')).body.meta.total, 0, 'no prefix matching');
    t.equal((await list('?callsign=dl0sat')).body.data[0].qso_id, satellite);
    for (const bad of ['K1@BAD', 'DL1%20ABC']) {
      const res = await list(`?callsign=${bad}`);
      t.equal(res.status, 400, bad);
      t.equal(res.body.error.code, 'validation_error');
      t.equal(res.body.error.details.field, 'callsign');
    }
  });

  t.test('filters combine', async (t) => {
    const res = await list('?type=lotw,eqsl&since=2024-01-01&qso_until=2024-01-31&band=40m&mode=FT8&callsign=K5ALL');
    t.same(keysOf(res.body.data), [`${five}:LoTW:2024-03-10`, `${five}:eQSL:2024-02-15`]);
    t.same(res.body.meta.filters, { type: ['lotw', 'eqsl'], since: '2024-01-01', qso_since: null, qso_until: '2024-01-31', band: '40m', mode: 'FT8', callsign: 'K5ALL' });
  });

  t.test('station_id: owned ids only; foreign is 403 forbidden, malformed 400', async (t) => {
    const res = await list(`?station_id=${portable}`);
    t.same(keysOf(res.body.data), [`${satellite}:eQSL:2024-01-20`]);
    t.equal((await list(`?station_id=${op.stationId},${portable}`)).body.meta.total, 8);
    const foreign = await list(`?station_id=${op.stationId},${other.stationId}`);
    t.equal(foreign.status, 403);
    t.equal(foreign.body.error.code, 'forbidden');
    const malformed = await list('?station_id=1,abc');
    t.equal(malformed.status, 400);
    t.equal(malformed.body.error.code, 'validation_error');
    // The other owner sees only their own confirmation.
    const theirs = await list('', other.token);
    t.same(theirs.body.data.map((r: { callsign: string }) => r.callsign), ['K1FOREIGN']);
  });

  t.test('malformed dates are 400 validation_error naming the parameter', async (t) => {
    for (const [name, value] of [['since', '2024-13-01'], ['since', '2024-02-30'], ['qso_since', '20240101'], ['qso_until', 'yesterday'], ['qso_until', '2024-1-5']]) {
      const res = await list(`?${name}=${value}`);
      t.equal(res.status, 400, `${name}=${value}`);
      t.equal(res.body.error.code, 'validation_error');
      t.same(res.body.error.details, { field: name, format: 'YYYY-MM-DD' });
    }
  });

  t.test('pagination: pages partition the list; clamping of page and per_page', async (t) => {
    const pages = [];
    for (let page = 1; page <= 3; page++) {
      const res = await list(`?per_page=3&page=${page}`);
      t.same(
        [res.body.meta.page, res.body.meta.per_page, res.body.meta.count, res.body.meta.total, res.body.meta.total_pages, res.body.meta.has_more],
        [page, 3, page < 3 ? 3 : 2, 8, 3, page < 3],
      );
      pages.push(...res.body.data);
    }
    t.same(pages, everything);
    const beyond = await list('?per_page=3&page=4');
    t.same(beyond.body.data, []);
    t.same([beyond.body.meta.count, beyond.body.meta.total, beyond.body.meta.has_more], [0, 8, false]);

    for (const [query, page, perPage] of [
      ['?per_page=0', 1, 100], ['?per_page=-5', 1, 100], ['?per_page=abc', 1, 100], ['?per_page=5000', 1, 1000],
      ['?per_page=1000', 1, 1000], ['?page=0', 1, 100], ['?page=-2', 1, 100], ['?page=x', 1, 100],
    ] as const) {
      const res = await list(query);
      t.equal(res.status, 200, query);
      t.same([res.body.meta.page, res.body.meta.per_page], [page, perPage], query);
    }
    const last = await list('?per_page=1&page=8');
    t.same(keysOf(last.body.data), [`${five}:QRZ.com:2023-12-31`]);
    t.equal(last.body.meta.has_more, false);
  });

  t.test('an owner without station locations gets an empty list', async (t) => {
    const lonely = await createOperator(db);
    await inQsoTransaction(db, [lonely.userId], (client) => client.query('DELETE FROM stations WHERE user_id = $1', [lonely.userId]));
    const res = await list('', lonely.token);
    t.equal(res.status, 200);
    t.same(res.body.data, []);
    t.same([res.body.meta.total, res.body.meta.total_pages, res.body.meta.has_more], [0, 0, false]);
  });

  t.test('no single-item path, GET only, and the scope is required', async (t) => {
    for (const path of ['/api/v2/confirmation/1', `/api/v2/confirmation/${five}`, '/api/v2/confirmation/abc', '/index.php/api/v2/confirmation/5/']) {
      const res = await server.request(path, { token: op.token });
      t.equal(res.status, 404, path);
      t.equal(res.body.error.code, 'not_found');
    }
    for (const method of ['POST', 'PATCH', 'DELETE', 'PUT']) {
      const res = await server.request('/api/v2/confirmation', { method, token: op.token, json: {} });
      t.equal(res.status, 405, method);
      t.equal(res.headers.get('allow'), 'GET');
      t.equal(res.body.error.code, 'method_not_allowed');
    }
    const scopeless = await list('', withoutScope.token);
    t.equal(scopeless.status, 403);
    t.equal(scopeless.body.error.code, 'insufficient_scope');
    t.equal(scopeless.body.error.details.required_scope, 'confirmation:read');
    t.equal((await server.request('/api/v2/confirmation')).status, 401);
  });
});

t.test('paging over many rows and stations agrees with one ordered read of the table', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db);
  const second = await createStation(db, { userId: op.userId, name: 'Second', callsign: op.callsign, gridsquare: 'JO62' });
  const third = await createStation(db, { userId: op.userId, name: 'Third', callsign: op.callsign, gridsquare: 'JO62' });
  // 600 QSOs over three locations; dates repeat often so that ties across stations and types abound.
  await seedQsos(db, [op.stationId, second, third],
    `INSERT INTO qso (station_id, call, time_on, band, mode,
                      lotw_qsl_rcvd, lotw_qslrdate, eqsl_qsl_rcvd, eqsl_qslrdate, qsl_rcvd, qslrdate,
                      qrzcom_qso_download_status, qrzcom_qso_download_date, clublog_qso_download_status, clublog_qso_download_date)
     SELECT (ARRAY[$1, $2, $3]::int[])[1 + g % 3], 'K' || g, timestamp '2020-01-01' + g * interval '1 hour', '20m', 'CW',
            CASE WHEN g % 2 = 0 THEN 'Y' END, date '2024-01-01' + (g % 7),
            CASE WHEN g % 3 = 0 THEN 'Y' END, date '2024-01-01' + (g % 5),
            CASE WHEN g % 5 = 0 THEN 'Y' END, date '2024-01-01' + (g % 11),
            CASE WHEN g % 7 = 0 THEN 'Y' END, date '2024-01-01' + (g % 3),
            CASE WHEN g % 4 = 0 THEN 'Y' END, CASE WHEN g % 8 <> 0 THEN date '2024-01-01' + (g % 13) END
       FROM generate_series(1, 600) g`,
    [op.stationId, second, third],
  );
  // Every received, dated (QSO, type) pair with its key, its date d and its type rank r.
  const expectedKeysSql = `SELECT id, r, d, id || ':' || label || ':' || to_char(d, 'YYYY-MM-DD') AS key FROM (
        SELECT id, 0 AS r, 'LoTW' AS label, lotw_qslrdate AS d FROM qso WHERE lotw_qsl_rcvd = 'Y'
        UNION ALL SELECT id, 1, 'eQSL', eqsl_qslrdate FROM qso WHERE eqsl_qsl_rcvd = 'Y'
        UNION ALL SELECT id, 2, 'QSL Card', qslrdate FROM qso WHERE qsl_rcvd = 'Y'
        UNION ALL SELECT id, 3, 'QRZ.com', qrzcom_qso_download_date FROM qso WHERE qrzcom_qso_download_status = 'Y'
        UNION ALL SELECT id, 4, 'Clublog', clublog_qso_download_date FROM qso WHERE clublog_qso_download_status = 'Y') x
      WHERE d IS NOT NULL`;
  const { rows: expected } = await db.query<{ key: string }>(`SELECT key FROM (${expectedKeysSql}) x ORDER BY d DESC, id, r`);
  const seen: string[] = [];
  for (let page = 1; ; page++) {
    const res = await server.request(`/api/v2/confirmation?per_page=97&page=${page}`, { token: op.token });
    t.equal(res.body.meta.total, expected.length);
    seen.push(...res.body.data.map((r: { qso_id: number; type: string; confirmation_date: string }) => `${r.qso_id}:${r.type}:${r.confirmation_date}`));
    if (!res.body.meta.has_more) break;
  }
  t.equal(seen.length, expected.length);
  t.same(seen, expected.map((r) => r.key));
  // Totals from qso_counts less the undated: an eighth of the Clublog confirmations have no date.
  const total = async (query: string) => (await server.request(`/api/v2/confirmation?${query}`, { token: op.token })).body.meta.total;
  const byType = (label: string) => expected.filter((r) => r.key.split(':')[1] === label).length;
  t.equal(await total('type=clublog'), byType('Clublog'));
  t.equal(await total('type=qsl,clublog&mode=cw&band=20m'), byType('QSL Card') + byType('Clublog'));
  t.equal(await total('band=40m'), 0);

  // A QSO-date range: its QSOs read first (narrow) or the received-date indexes walked (wide),
  // the same rows and total either way, and the same as the ordered read of the range. Without
  // `since` the wide way's total sums the range's statuses less the undated (Clublog's).
  const keysOfPage = (page: Awaited<ReturnType<typeof listConfirmations>>) => page.rows.map((r) => `${r.qso_id}:${r.type}:${r.confirmation_date}`);
  const rangeKeys = async (since: string | null) => (await db.query<{ key: string }>(
    `SELECT x.key FROM (${expectedKeysSql}) x JOIN qso q ON q.id = x.id
      WHERE q.time_on >= '2020-01-05' AND q.time_on < '2020-01-16' AND x.d >= $1 ORDER BY x.d DESC, x.id, x.r`,
    [since ?? '1900-01-01'],
  )).rows.map((r) => r.key);
  for (const since of ['2024-01-03', null]) {
    const inRange = await rangeKeys(since);
    t.ok(inRange.length > 100, `${inRange.length} rows in the range, since ${since}`);
    const filters: ConfirmationFilters = {
      scope: { stationIds: [op.stationId, second, third], operator: null }, types: CONFIRMATION_KEYS,
      since, qsoSince: '2020-01-05', qsoUntil: '2020-01-15', band: null, mode: null, callsign: null,
    };
    for (const [way, dateRangeFirstMax] of [['the range first', Infinity], ['the received-date indexes', 0]] as const) {
      const pages: string[] = [];
      for (let offset = 0; offset < inRange.length + 40; offset += 40) {
        const page = await listConfirmations(db, filters, 40, offset, { dateRangeFirstMax });
        t.equal(page.total, inRange.length, `${way}, since ${since}: the total at offset ${offset}`);
        pages.push(...keysOfPage(page));
      }
      t.same(pages, inRange, `${way}, since ${since}: the pages partition the range's rows in order`);
      const withBand = await listConfirmations(db, { ...filters, band: '20m', mode: 'CW' }, 40, 0, { dateRangeFirstMax });
      t.equal(withBand.total, inRange.length, `${way}, since ${since}: with the band and mode of every QSO, the same total`);
      const otherBand = await listConfirmations(db, { ...filters, band: '40m' }, 40, 0, { dateRangeFirstMax });
      t.equal(otherBand.total, 0, `${way}, since ${since}: with a band of none, none`);
    }
  }
  const http = await server.request('/api/v2/confirmation?qso_since=2020-01-05&qso_until=2020-01-15&since=2024-01-03&per_page=1000', { token: op.token });
  t.same(http.body.data.map((r: { qso_id: number; type: string; confirmation_date: string }) => `${r.qso_id}:${r.type}:${r.confirmation_date}`), await rangeKeys('2024-01-03'));
});

t.test('totals over QSO dates: whole months from the counts, partial months and a month alone counted, the undated taken away', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db);
  // 400 QSOs every 7 hours from 20 November 2019 into March 2020; an eighth of Clublog's undated.
  await seedQsos(db, [op.stationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode, lotw_qsl_rcvd, lotw_qslrdate, eqsl_qsl_rcvd, eqsl_qslrdate,
                      qsl_rcvd, qslrdate, clublog_qso_download_status, clublog_qso_download_date)
     SELECT $1, 'K' || g, timestamp '2019-11-20' + g * interval '7 hours', '20m', 'CW',
            CASE WHEN g % 2 = 0 THEN 'Y' END, date '2024-01-01' + g % 7, CASE WHEN g % 3 = 0 THEN 'Y' END, date '2024-01-01' + g % 5,
            CASE WHEN g % 5 = 0 THEN 'Y' END, date '2024-01-01' + g % 11,
            CASE WHEN g % 4 = 0 THEN 'Y' END, CASE WHEN g % 8 <> 0 THEN date '2024-01-01' + g % 13 END
       FROM generate_series(1, 400) g`, [op.stationId]);
  const ranges: Array<[string | null, string | null]> = [
    ['2019-12-01', '2020-01-31'], ['2019-11-25', '2020-02-10'], ['2020-01-03', '2020-01-20'], ['2020-01-15', null], [null, '2019-12-31'],
  ];
  const expected = async (types: readonly string[], since: string | null, until: string | null) => {
    const received = types.map((type) => {
      const { status, date } = CONFIRMATION_TYPES[type as keyof typeof CONFIRMATION_TYPES];
      return `((${status} = 'Y' AND ${date} IS NOT NULL) IS TRUE)::int`;
    });
    const { rows } = await db.query<{ n: number }>(
      `SELECT coalesce(sum(${received.join(' + ')}), 0)::int AS n FROM qso
        WHERE station_id = $1 AND ($2::date IS NULL OR time_on >= $2::date) AND ($3::date IS NULL OR time_on < $3::date + 1)`,
      [op.stationId, since, until]);
    return rows[0]!.n;
  };
  const check = async (when: string) => {
    for (const types of [CONFIRMATION_KEYS, ['qsl', 'clublog'] as const]) {
      for (const [qsoSince, qsoUntil] of ranges) {
        const filters: ConfirmationFilters = {
          scope: { stationIds: [op.stationId], operator: null }, types, since: null, qsoSince, qsoUntil, band: null, mode: null, callsign: null,
        };
        const page = await listConfirmations(db, filters, 10, 0, { dateRangeFirstMax: 0 });
        t.equal(page.total, await expected(types, qsoSince, qsoUntil), `${when}: ${types.join(',')} from ${qsoSince} to ${qsoUntil}`);
      }
    }
  };
  await check('as written');
  await compactQsoCounts(db, 0);
  await check('folded');
  // Statuses that change move counts between a month's rows.
  await seedQsos(db, [op.stationId], `UPDATE qso SET lotw_qsl_rcvd = CASE WHEN lotw_qsl_rcvd = 'Y' THEN NULL ELSE 'Y' END, lotw_qslrdate = date '2024-02-01'
     WHERE station_id = $1 AND id % 3 = 0`, [op.stationId]);
  await check('after statuses changed');
});

t.test('pages at any offset are the same rows as one whole merge from the newest', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db);
  const second = await createStation(db, { userId: op.userId, name: 'Second', callsign: op.callsign, gridsquare: 'JO62' });
  // 900 QSOs over two locations and two operators, received over two years (months of very
  // different sizes, ties on a day across locations and types), some received without a date.
  await seedQsos(db, [op.stationId, second],
    `INSERT INTO qso (station_id, call, time_on, band, mode, operator,
                      lotw_qsl_rcvd, lotw_qslrdate, eqsl_qsl_rcvd, eqsl_qslrdate, qsl_rcvd, qslrdate,
                      qrzcom_qso_download_status, qrzcom_qso_download_date, clublog_qso_download_status, clublog_qso_download_date)
     SELECT (ARRAY[$1, $2]::int[])[1 + g % 2], 'K' || g, timestamp '2020-01-01' + g * interval '1 hour', '20m', 'CW',
            (ARRAY['DL1A', 'DL2B', 'DL2B'])[1 + g % 3],
            CASE WHEN g % 2 = 0 THEN 'Y' END, date '2022-01-01' + (g * 37 % 730),
            CASE WHEN g % 3 = 1 THEN 'Y' END, date '2022-01-01' + (g * g % 700),
            CASE WHEN g % 5 = 0 THEN 'Y' ELSE 'N' END, date '2023-06-01' + (g % 11),
            CASE WHEN g % 7 = 0 THEN 'Y' END, date '2022-01-01' + (g % 400),
            CASE WHEN g % 4 = 0 THEN 'Y' END, CASE WHEN g % 8 <> 0 THEN date '2022-01-01' + (g * 13 % 730) END
       FROM generate_series(1, 900) g`,
    [op.stationId, second],
  );
  const keysOfPage = (page: Awaited<ReturnType<typeof listConfirmations>>) => page.rows.map((r) => `${r.qso_id}:${r.type}:${r.confirmation_date}`);
  const scopes = [
    { stationIds: [op.stationId, second], operator: null },
    { stationIds: [second], operator: null },
    { stationIds: [op.stationId, second], operator: 'DL2B' },
  ];
  for (const scope of scopes) {
    for (const types of [CONFIRMATION_KEYS, ['qsl', 'clublog'] as const, ['eqsl'] as const]) {
      const filters: ConfirmationFilters = { scope, types, since: null, qsoSince: null, qsoUntil: null, band: null, mode: null, callsign: null };
      const label = `${scope.stationIds.length} locations, operator ${scope.operator}, ${types.join(',')}`;
      const whole = await listConfirmations(db, filters, 5000, 0);
      t.ok(whole.rows.length > 50 && whole.rows.length === whole.total, `${label}: ${whole.total} rows`);
      const all = keysOfPage(whole);
      for (const [limit, offsets] of [[40, [0, 1, 39, 200, 401]], [7, [333, 500]], [300, [100]], [50, [whole.total - 20, whole.total, whole.total + 5]]] as const) {
        for (const offset of offsets) {
          const page = await listConfirmations(db, filters, limit, offset);
          t.same(keysOfPage(page), all.slice(offset, offset + limit), `${label}: ${limit} from ${offset}`);
        }
      }
    }
  }

  // A deep page's cost is the merge of every row before it; a sort by type rank above the merge
  // doubled it (benchmarks/RESULTS.md, "Confirmation list"). The page places one QSO's tied rows
  // by their rank within a window of the merge, so nothing sorts the rows before the offset.
  const client = await db.connect();
  t.teardown(() => client.release());
  // The ordered partial indexes as on a large log, where reading them beats sorting the table.
  await client.query('SET enable_seqscan = off');
  const planOf = async (types: ConfirmationFilters['types']): Promise<string> => {
    let plan = '';
    const explaining = {
      query: async (statement: { text: string; values: unknown[] }) => {
        if (!/\bpage AS \(/.test(statement.text)) return client.query(statement);
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${statement.text}`, statement.values);
        plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        return { rows: [{ total: 0, qso_id: null }] };
      },
    } as unknown as typeof db;
    const filters: ConfirmationFilters = { scope: scopes[0]!, types, since: null, qsoSince: null, qsoUntil: null, band: null, mode: null, callsign: null };
    await listConfirmations(explaining, filters, 40, 300);
    return plan;
  };
  // The window's Limit (its offset) reads the merge itself, not a sort of it.
  for (const types of [['eqsl'] as const, CONFIRMATION_KEYS]) {
    t.match(await planOf(types), /Limit\n\s*->\s+Merge Append/, `${types.join(',')}: the page reads the merge as it comes`);
  }
});

t.test('one QSO received by several types on one date: pages split its rows by type rank at any offset', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db);
  const second = await createStation(db, { userId: op.userId, name: 'Second', callsign: op.callsign, gridsquare: 'JO62' });
  // 60 QSOs over two locations, each received by two to five types, most of them on one date,
  // and three QSOs to a date: a page boundary falls inside a QSO's rows at most offsets.
  await seedQsos(db, [op.stationId, second],
    `INSERT INTO qso (station_id, call, time_on, band, mode,
                      lotw_qsl_rcvd, lotw_qslrdate, eqsl_qsl_rcvd, eqsl_qslrdate, qsl_rcvd, qslrdate,
                      qrzcom_qso_download_status, qrzcom_qso_download_date, clublog_qso_download_status, clublog_qso_download_date)
     SELECT (ARRAY[$1, $2]::int[])[1 + g % 2], 'K' || g, timestamp '2020-01-01' + g * interval '1 hour', '20m', 'CW',
            'Y', d, CASE WHEN g % 3 <> 0 THEN 'Y' END, d, CASE WHEN g % 4 <> 1 THEN 'Y' ELSE 'N' END, d + g % 5 / 4,
            CASE WHEN g % 5 <> 2 THEN 'Y' END, d, 'Y', d + g % 7 / 6
       FROM generate_series(1, 60) g, LATERAL (SELECT date '2022-01-01' + g / 3 AS d) day`,
    [op.stationId, second],
  );
  const rank = new Map<string, number>(CONFIRMATION_KEYS.map((key, i) => [CONFIRMATION_TYPES[key].label, i]));
  for (const types of [CONFIRMATION_KEYS, ['eqsl', 'lotw', 'clublog'] as const]) {
    const filters: ConfirmationFilters = {
      scope: { stationIds: [op.stationId, second], operator: null }, types, since: null, qsoSince: null, qsoUntil: null, band: null, mode: null, callsign: null,
    };
    const whole = await listConfirmations(db, filters, 1000, 0);
    const key = (r: (typeof whole.rows)[number]) => `${r.qso_id}:${r.type}`;
    // The order SPEC gives, computed here: received date descending, QSO id, type order.
    const expected = [...whole.rows].sort((a, b) =>
      b.confirmation_date.localeCompare(a.confirmation_date) || a.qso_id - b.qso_id || rank.get(a.type)! - rank.get(b.type)!).map(key);
    t.same(whole.rows.map(key), expected, `${types.join(',')}: ${whole.total} rows in order`);
    t.equal(whole.rows.length, whole.total);
    let mismatches = 0;
    for (const limit of [1, 2, 3, 7]) {
      for (let offset = 0; offset <= whole.total; offset++) {
        const page = await listConfirmations(db, filters, limit, offset);
        if (JSON.stringify(page.rows.map(key)) !== JSON.stringify(expected.slice(offset, offset + limit))) mismatches++;
      }
    }
    t.equal(mismatches, 0, `${types.join(',')}: every page of 1, 2, 3 and 7 rows at every offset is its slice of the whole`);
  }
});

t.test('a page and its total come from one snapshot while confirmations arrive', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db);
  // 400 QSOs, none confirmed yet; writers confirm them a few at a time while whole lists are read.
  await seedQsos(db, [op.stationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode)
     SELECT $1, 'K' || g, timestamp '2020-01-01' + g * interval '1 hour', '20m', 'CW' FROM generate_series(1, 400) g`,
    [op.stationId]);
  const filters: ConfirmationFilters = {
    scope: { stationIds: [op.stationId], operator: null }, types: CONFIRMATION_KEYS, since: null, qsoSince: null, qsoUntil: null, band: null, mode: null, callsign: null,
  };
  const mismatches = repeatCheck(async () => {
    const page = await listConfirmations(db, filters, 1000, 0);
    return page.rows.length === page.total ? [] : [`${page.rows.length} rows listed, total ${page.total}`];
  }, 0);
  for (let round = 0; round < 40; round++) {
    await Promise.all([0, 1].map((writer) => seedQsos(db, [op.stationId],
      `UPDATE qso SET lotw_qsl_rcvd = 'Y', lotw_qslrdate = date '2024-01-01' + (id % 30)::int
        WHERE id IN (SELECT id FROM qso WHERE station_id = $1 AND lotw_qsl_rcvd IS NULL AND id % 2 = $2 ORDER BY id LIMIT 5)`,
      [op.stationId, writer])));
  }
  t.same(await mismatches.stop(), [], 'every page of the whole list holds as many rows as its total says');
  t.equal((await listConfirmations(db, filters, 1000, 0)).total, 400);
});
