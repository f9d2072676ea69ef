import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { createStation } from '../../lib/accounts/stations.js';
import { insertQsos } from '../helpers/qsoRows.js';
import { idsOf, seedMany } from './helpers.js';

t.test('GET /api/v2/qso (JSON)', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1LST' });
  const second = await createStation(db, { userId: op.userId, name: 'Portable', callsign: 'DL1LST/P' });
  const other = await createOperator(db, { callsign: 'DL2OTH' });

  const [a, b, c, d, e, f] = await insertQsos(db, [
    { station_id: op.stationId, call: 'DL1ABC', time_on: '2024-03-01 10:00:00', band: '20m', mode: 'SSB', submode: 'USB', qsl_rcvd: 'Y' },
    { station_id: op.stationId, call: 'DL1ABCD', time_on: '2024-03-01 10:00:00', band: '40m', mode: 'CW', lotw_qsl_rcvd: 'Y' },
    { station_id: second, call: 'K1XYZ', time_on: '2024-03-02 00:00:00', band: '2m', mode: 'FM', prop_mode: 'SAT', eqsl_qsl_rcvd: 'Y' },
    { station_id: second, call: 'K1XYZ', time_on: '2024-03-02 23:59:59', band: '70cm', mode: 'MFSK', submode: 'FT4', qrzcom_qso_download_status: 'Y' },
    { station_id: op.stationId, call: 'G4ABC', time_on: '2024-03-03 00:00:00', band: '20m', mode: 'FT8', clublog_qso_download_status: 'Y' },
    { station_id: op.stationId, call: 'G4ABC/P', time_on: '2024-02-29 23:59:59', band: '20m', mode: 'SSB', submode: 'LSB', lotw_qsl_rcvd: 'N' },
  ]);
  const [foreign] = await insertQsos(db, [{ station_id: other.stationId, call: 'DL1ABC', time_on: '2024-03-05 10:00:00', qsl_rcvd: 'Y' }]);
  const newestFirst = [e, d, c, b, a, f];

  const list = (query = '', token = op.token) => server.request(`/api/v2/qso${query}`, { token });
  const ids = async (query: string) => {
    const res = await list(query);
    t.equal(res.status, 200, query);
    return idsOf(res.body);
  };

  t.test('newest first (time_on, then id, descending), default page meta, QSO objects', async (t) => {
    const res = await list();
    t.equal(res.status, 200);
    t.same(idsOf(res.body), newestFirst, 'the tie at 10:00 goes to the higher id first');
    t.notOk(idsOf(res.body).includes(foreign), "another user's QSO never appears");
    t.match(res.body.meta, { resource: 'qso', method: 'GET', page: 1, per_page: 50, count: 6, total: 6, total_pages: 1, has_more: false });
    const first = res.body.data[0];
    t.match(first, { id: e, station_id: op.stationId, call: 'G4ABC', band: '20m', mode: 'FT8', submode: null, qso_date: '2024-03-03 00:00:00' });
    t.match(res.headers.get('content-type'), /^application\/json/);
  });

  t.test('station_id: owned ids filter, a foreign id is 403 forbidden, a non-number 400', async (t) => {
    t.same(await ids(`?station_id=${op.stationId}`), [e, b, a, f]);
    t.same(await ids(`?station_id=${second}`), [d, c]);
    t.same(await ids(`?station_id=${second},${op.stationId}`), newestFirst);
    const foreignStation = await list(`?station_id=${op.stationId},${other.stationId}`);
    t.equal(foreignStation.status, 403);
    t.equal(foreignStation.body.error.code, 'forbidden');
    t.same(foreignStation.body.error.details, { station_id: [other.stationId] });
    const bad = await list('?station_id=1,x');
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'validation_error');
  });

  t.test('callsign: exact and case-insensitive, validated', async (t) => {
    t.same(await ids('?callsign=dl1abc'), [a], 'not DL1ABCD, not the other user\'s DL1ABC');
    t.same(await ids('?callsign=g4abc/p'), [f]);
    t.same(await ids('?callsign=K9NONE'), []);
    const bad = await list('?callsign=DL1%40BC');
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'validation_error');
    t.equal(bad.body.error.details.field, 'callsign');
  });

  t.test('band: any case; SAT means satellite QSOs; an unknown band matches nothing', async (t) => {
    t.same(await ids('?band=20m'), [e, a, f]);
    t.same(await ids('?band=20M'), [e, a, f]);
    t.same(await ids('?band=SAT'), [c]);
    t.same(await ids('?band=sat'), [c]);
    t.same(await ids('?band=6m'), []);
  });

  t.test('mode matches the main mode or the submode, any case', async (t) => {
    t.same(await ids('?mode=FT4'), [d]);
    t.same(await ids('?mode=MFSK'), [d]);
    t.same(await ids('?mode=usb'), [a]);
    t.same(await ids('?mode=SSB'), [a, f]);
    t.same(await ids('?mode=cw'), [b]);
  });

  t.test('a QSO whose mode and submode are both the filtered one is listed once, in order', async (t) => {
    // A QSO matches the main mode or the submode: it must be listed and counted once.
    const owner = await createOperator(db);
    const [both, submodeOnly] = await insertQsos(db, [
      { station_id: owner.stationId, call: 'DL9TWO', time_on: '2024-03-04 00:00:00', band: '20m', mode: 'PSK', submode: 'PSK' },
      { station_id: owner.stationId, call: 'DL9ONE', time_on: '2024-03-04 00:00:01', band: '20m', mode: 'DIGI', submode: 'PSK' },
      { station_id: owner.stationId, call: 'DL9NOT', time_on: '2024-03-04 00:00:02', band: '20m', mode: 'CW' },
    ]);
    const page = async (query: string) => {
      const res = await list(query, owner.token);
      t.equal(res.status, 200, query);
      return { ids: idsOf(res.body), total: res.body.meta.total };
    };
    t.same(await page('?mode=psk'), { ids: [submodeOnly, both], total: 2 });
    t.same(await page('?mode=psk&per_page=1&page=2'), { ids: [both], total: 2 });
  });

  t.test('a QSO confirmed by several of the filtered types is listed once; an unset status is no confirmation', async (t) => {
    // A QSO matches any of the types: it must be listed and counted once.
    const owner = await createOperator(db);
    const [cardAndQrz, qrzOnly, cardOnly] = await insertQsos(db, [
      { station_id: owner.stationId, call: 'DL8TWO', time_on: '2024-03-04 00:00:00', qsl_rcvd: 'Y', qrzcom_qso_download_status: 'Y' },
      { station_id: owner.stationId, call: 'DL8QRZ', time_on: '2024-03-04 00:00:01', qsl_rcvd: null, qrzcom_qso_download_status: 'Y' },
      { station_id: owner.stationId, call: 'DL8QSL', time_on: '2024-03-04 00:00:02', qsl_rcvd: 'Y', qrzcom_qso_download_status: 'N' },
      { station_id: owner.stationId, call: 'DL8NON', time_on: '2024-03-04 00:00:03', qsl_rcvd: 'N' },
    ]);
    const res = await list('?qsl_filter=qsl,qrz', owner.token);
    t.same({ ids: idsOf(res.body), total: res.body.meta.total }, { ids: [cardOnly, qrzOnly, cardAndQrz], total: 3 });
    const ssb = await list('?qsl_filter=qrz,qsl&mode=ssb', owner.token);
    t.same(idsOf(ssb.body), [cardOnly, qrzOnly, cardAndQrz], 'with a mode filter too (two parts of each)');
    const cw = await list('?qsl_filter=qrz,qsl&mode=cw', owner.token);
    t.same(idsOf(cw.body), []);
    const deep = await list('?qsl_filter=qrz,qsl&per_page=2&page=2', owner.token);
    t.same(idsOf(deep.body), [cardAndQrz]);
  });

  t.test('qsl_filter: one type each, OR-combined lists, unknown keys 400 with details.allowed', async (t) => {
    t.same(await ids('?qsl_filter=lotw'), [b], "lotw 'N' is not confirmed");
    t.same(await ids('?qsl_filter=qsl'), [a]);
    t.same(await ids('?qsl_filter=eqsl'), [c]);
    t.same(await ids('?qsl_filter=qrz'), [d]);
    t.same(await ids('?qsl_filter=clublog'), [e]);
    t.same(await ids('?qsl_filter=lotw,qsl'), [b, a]);
    t.same(await ids('?qsl_filter=LOTW,%20eqsl'), [c, b], 'trimmed and lower-cased');
    for (const value of ['hrdlog', 'lotw,foo']) {
      const bad = await list(`?qsl_filter=${value}`);
      t.equal(bad.status, 400, value);
      t.equal(bad.body.error.code, 'validation_error');
      t.same(bad.body.error.details.allowed, ['lotw', 'eqsl', 'qsl', 'qrz', 'clublog']);
    }
  });

  t.test('since_id: only greater ids, still newest first; a non-number is 400', async (t) => {
    t.same(await ids(`?since_id=${c}`), [e, d, f]);
    t.same(await ids(`?since_id=${f}`), []);
    t.same(await ids('?since_id=0'), newestFirst);
    const bad = await list('?since_id=abc');
    t.equal(bad.status, 400);
    t.equal(bad.body.error.details.field, 'since_id');
  });

  t.test('qso_since / qso_until: whole days, inclusive, alone or together; malformed dates 400', async (t) => {
    t.same(await ids('?qso_since=2024-03-02'), [e, d, c]);
    t.same(await ids('?qso_until=2024-03-02'), [d, c, b, a, f], '23:59:59 of the last day counts');
    t.same(await ids('?qso_since=2024-03-02&qso_until=2024-03-02'), [d, c]);
    t.same(await ids('?qso_since=2024-02-29&qso_until=2024-02-29'), [f]);
    t.same(await ids(`?qso_since=2024-03-01&since_id=${b}`), [e, d, c], 'independent of since_id');
    for (const query of ['?qso_since=2024-3-2', '?qso_since=2024-02-30', '?qso_until=20240302', '?qso_until=yesterday']) {
      const bad = await list(query);
      t.equal(bad.status, 400, query);
      t.equal(bad.body.error.code, 'validation_error');
      t.equal(bad.body.error.details.format, 'YYYY-MM-DD');
    }
  });

  t.test('filters combine', async (t) => {
    t.same(await ids('?band=20m&qsl_filter=clublog'), [e]);
    t.same(await ids(`?band=20m&mode=SSB&station_id=${op.stationId}&qso_until=2024-03-01`), [a, f]);
  });

  t.test('limit: the newest N after filters, overriding page and per_page, capped at 5000', async (t) => {
    const res = await list('?limit=2&page=3&per_page=1');
    t.same(idsOf(res.body), [e, d]);
    t.match(res.body.meta, { page: 1, per_page: 2, count: 2, total: 6, total_pages: 3, has_more: true });
    t.same(await ids('?limit=2&band=20m'), [e, a]);
    const capped = await list('?limit=99999');
    t.equal(capped.body.meta.per_page, 5000);
    t.equal(capped.body.meta.count, 6);
    for (const value of ['0', '-1', '1.5', 'abc']) {
      const bad = await list(`?limit=${value}`);
      t.equal(bad.status, 400, value);
      t.equal(bad.body.error.message, 'limit must be a positive integer');
    }
  });

  t.test('format: json or adif, anything else 400 with details.allowed', async (t) => {
    t.equal((await list('?format=json')).status, 200);
    const bad = await list('?format=xml');
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'validation_error');
    t.same(bad.body.error.details.allowed, ['json', 'adif']);
  });
});

t.test('pagination arithmetic', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const empty = await createOperator(db);
  const ten = await createOperator(db);
  const tenIds = await seedMany(db, ten.stationId, 10);
  const list = (query: string, token: string) => server.request(`/api/v2/qso${query}`, { token });

  t.test('no QSOs at all: total 0, no pages', async (t) => {
    const res = await list('', empty.token);
    t.same(res.body.data, []);
    t.same(res.body.meta, { ...res.body.meta, page: 1, per_page: 50, count: 0, total: 0, total_pages: 0, has_more: false });
  });

  t.test('an exact multiple of per_page: two full pages, then an empty page beyond the end', async (t) => {
    const one = await list('?per_page=5', ten.token);
    t.same(idsOf(one.body), tenIds.slice(5).reverse());
    t.match(one.body.meta, { page: 1, per_page: 5, count: 5, total: 10, total_pages: 2, has_more: true });
    const two = await list('?per_page=5&page=2', ten.token);
    t.same(idsOf(two.body), tenIds.slice(0, 5).reverse());
    t.match(two.body.meta, { page: 2, count: 5, total_pages: 2, has_more: false });
    const beyond = await list('?per_page=5&page=3', ten.token);
    t.equal(beyond.status, 200);
    t.same(beyond.body.data, []);
    t.match(beyond.body.meta, { page: 3, per_page: 5, count: 0, total: 10, total_pages: 2, has_more: false });
  });

  t.test('a partial last page', async (t) => {
    const res = await list('?per_page=4&page=3', ten.token);
    t.same(idsOf(res.body), tenIds.slice(0, 2).reverse());
    t.match(res.body.meta, { page: 3, per_page: 4, count: 2, total: 10, total_pages: 3, has_more: false });
  });

  t.test('page and per_page are clamped, not rejected', async (t) => {
    for (const [query, page, perPage] of [
      ['?per_page=0', 1, 50], ['?per_page=-5', 1, 50], ['?per_page=abc', 1, 50], ['?per_page=6000', 1, 5000],
      ['?page=0', 1, 50], ['?page=-2', 1, 50], ['?page=x', 1, 50], ['?per_page=5000&page=1', 1, 5000],
    ] as const) {
      const res = await list(query, ten.token);
      t.equal(res.status, 200, query);
      t.equal(res.body.meta.page, page, `${query} page`);
      t.equal(res.body.meta.per_page, perPage, `${query} per_page`);
    }
  });

  t.test('pages across several station locations merge into one time order', async (t) => {
    const multi = await createOperator(db);
    const portable = await createStation(db, { userId: multi.userId, name: 'Portable', callsign: 'DL9MUL/P' });
    await seedMany(db, multi.stationId, 15, '2020-01-01 00:00:00');
    await seedMany(db, portable, 15, '2020-01-01 00:00:30');
    const { rows } = await db.query<{ id: number }>(
      'SELECT id FROM qso WHERE station_id = ANY($1::int[]) ORDER BY time_on DESC, id DESC',
      [[multi.stationId, portable]],
    );
    const pages: number[] = [];
    for (let page = 1; page <= 8; page++) pages.push(...idsOf((await list(`?per_page=4&page=${page}`, multi.token)).body));
    t.same(pages, rows.map((r) => r.id));
  });
});

t.test('a full page is streamed from a cursor, not built as one body', async (t) => {
  const server = await startTestServer(t);
  const op = await createOperator(server.db.pool);
  const ids = await seedMany(server.db.pool, op.stationId, 5200);
  const res = await server.request('/api/v2/qso?per_page=5000', { token: op.token });
  t.equal(res.status, 200);
  t.equal(res.headers.get('transfer-encoding'), 'chunked', 'sent as it was read');
  t.equal(res.headers.get('content-length'), null);
  t.equal(res.body.data.length, 5000);
  t.same(idsOf(res.body).slice(0, 3), ids.slice(-3).reverse());
  t.equal(res.body.data[4999].id, ids[200]);
  t.match(res.body.meta, { page: 1, per_page: 5000, count: 5000, total: 5200, total_pages: 2, has_more: true });
  const last = await server.request('/api/v2/qso?per_page=5000&page=2', { token: op.token });
  t.same(idsOf(last.body), ids.slice(0, 200).reverse());
  t.match(last.body.meta, { page: 2, count: 200, has_more: false });
});
