import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { insertQsos } from '../helpers/qsoRows.js';

/** Inputs at the edges of what the list parameters and upload media types accept (issue 47, defect 10). */
t.test('list parameters and media types at their edges', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1EDG' });
  await insertQsos(db, [
    { station_id: op.stationId, call: 'DL1AAA', time_on: '2024-03-01 10:00:00', band: '20m', mode: 'SSB', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-10' },
    { station_id: op.stationId, call: 'DL1BBB', time_on: '2025-06-01 10:00:00', band: '40m', mode: 'CW', qsl_rcvd: 'Y', qslrdate: '2025-06-10' },
  ]);
  const get = (path: string) => server.request(path, { token: op.token });

  t.test('qso_since/qso_until 9999-12-31: a clean answer (the last day there is), never 500', async (t) => {
    for (const base of ['/api/v2/qso?', '/api/v2/qso?format=adif&', '/api/v2/confirmation?']) {
      const until = await get(`${base}qso_until=9999-12-31`);
      t.equal(until.status, 200, `${base}qso_until`);
      const since = await get(`${base}qso_since=9999-12-31`);
      t.equal(since.status, 200, `${base}qso_since`);
      const both = await get(`${base}qso_since=2024-01-01&qso_until=9999-12-31`);
      t.equal(both.status, 200, `${base}both`);
      if (base.includes('adif')) continue;
      const all = await get(base);
      t.ok(all.body.meta.total > 0);
      t.equal(until.body.meta.total, all.body.meta.total, 'until the last day: as without the filter');
      t.equal(since.body.meta.total, 0, 'from the last day: none');
    }
    const beyond = await get('/api/v2/qso?qso_until=10000-01-01');
    t.equal(beyond.status, 400, 'a five-digit year is no date');
  });

  t.test('page beyond 999999999 (and at 2^53) is 400, not page 1', async (t) => {
    for (const page of ['9007199254740992', '99999999999999999999', '1000000000']) {
      const res = await get(`/api/v2/qso?page=${page}`);
      t.equal(res.status, 400, page);
      t.equal(res.body.error.code, 'validation_error');
      t.match(res.body.error.message, /page/);
      t.equal((await get(`/api/v2/confirmation?page=${page}`)).status, 400, `confirmation ${page}`);
    }
    const last = await get('/api/v2/qso?page=999999999');
    t.equal(last.status, 200);
    t.equal(last.body.meta.page, 999999999);
    t.equal(last.body.meta.count, 0);
    const bigPerPage = await get('/api/v2/qso?per_page=99999999999999');
    t.equal(bigPerPage.body.meta.per_page, 5000, 'a huge per_page is clamped to the cap, as a small one is');
  });

  t.test('station_id naming no location is 400, not an empty log', async (t) => {
    for (const value of [',,,', ',', ' , ']) {
      const res = await get(`/api/v2/qso?station_id=${encodeURIComponent(value)}`);
      t.equal(res.status, 400, JSON.stringify(value));
      t.equal(res.body.error.details.field, 'station_id');
    }
    t.equal((await get(`/api/v2/qso?station_id=${op.stationId},`)).body.meta.total, 2, 'a trailing comma is still fine');
  });

  t.test('media types are case-insensitive', async (t) => {
    const adif = `<CALL:6>DL1CCC <QSO_DATE:8>20240302 <TIME_ON:4>1200 <BAND:3>20m <MODE:3>SSB <EOR>\n`;
    const plain = await server.request(`/api/v2/qso?station_profile_id=${op.stationId}&dryrun=true`, { method: 'POST', token: op.token, body: adif, headers: { 'content-type': 'TEXT/PLAIN' } });
    t.equal(plain.status, 200, 'TEXT/PLAIN');
    const json = await server.request('/api/v2/qso', {
      method: 'POST', token: op.token, headers: { 'content-type': 'Application/JSON; Charset=UTF-8' },
      body: JSON.stringify({ station_profile_id: op.stationId, call: 'DL1DDD', band: '20m', mode: 'CW', qso_date: '2024-03-03', time_on: '1200' }),
    });
    t.equal(json.status, 201, 'Application/JSON');
    const boundary = 'XyZbOuNdArY';
    const form = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="station_profile_id"\r\n\r\n${op.stationId}\r\n`
      + `--${boundary}\r\nContent-Disposition: form-data; name="dryrun"\r\n\r\ntrue\r\n`
      + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="log.adi"\r\n\r\n${adif}\r\n--${boundary}--\r\n`);
    const multipart = await server.request('/api/v2/qso', { method: 'POST', token: op.token, body: form, headers: { 'content-type': `Multipart/Form-Data; Boundary=${boundary}` } });
    t.equal(multipart.status, 200, 'Multipart/Form-Data');
    const gif = await server.request(`/api/v2/qso?station_profile_id=${op.stationId}`, { method: 'POST', token: op.token, body: 'GIF89a', headers: { 'content-type': 'IMAGE/GIF' } });
    t.equal(gif.status, 415, 'an unknown type is still 415');
  });
});
