import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { createStation } from '../../lib/accounts/stations.js';
import type { EventPublisher } from '../../lib/services.js';
import { insertQsos } from '../helpers/qsoRows.js';

/** Records what the API publishes for the live-update worker. */
function recordingPublisher(): EventPublisher & { events: Array<{ topic: string; payload: unknown }> } {
  const events: Array<{ topic: string; payload: unknown }> = [];
  return { events, publish: (topic, payload) => void events.push({ topic, payload }), close: async () => undefined };
}

const EDITABLE_STRINGS = [
  'rst_sent', 'rst_rcvd', 'gridsquare', 'name', 'comment', 'notes', 'qth', 'tx_pwr', 'prop_mode', 'sat_name', 'sat_mode',
  'sota_ref', 'pota_ref', 'wwff_ref', 'iota', 'sig', 'sig_info', 'darc_dok', 'state', 'cnty', 'qsl_via', 'srx_string', 'stx_string',
];

t.test('one QSO: GET, PATCH, DELETE', async (t) => {
  const publisher = recordingPublisher();
  const server = await startTestServer(t, { events: publisher });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1ITM' });
  const portable = await createStation(db, { userId: op.userId, name: 'Portable', callsign: 'DL1ITM/P' });
  const other = await createOperator(db, { callsign: 'DL2OTH' });
  const [full, bare, foreign] = await insertQsos(db, [
    {
      station_id: op.stationId, call: 'K1FUL', time_on: '2024-06-01 12:34:56', time_off: '2024-06-01 12:40:00', band: '20m',
      band_rx: '20m', mode: 'MFSK', submode: 'FT4', freq: 14080000, freq_rx: 14080500, rst_sent: '-10', rst_rcvd: '-12',
      gridsquare: 'FN42', name: 'Ann', comment: 'tnx', notes: 'n', qth: 'Boston', tx_pwr: '100', prop_mode: 'F2', sota_ref: 'W1/AB-001',
      cqz: 5, ituz: 8, srx: 12, stx: 34, srx_string: 'MA', stx_string: 'JO', dxcc: 291, country: 'United States of America',
      cont: 'NA', operator: 'DL1ITM', station_callsign: 'DL1ITM', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-07-01', qsl_sent: 'Y',
    },
    { station_id: op.stationId, call: 'K1BAR', time_on: '2024-06-02 08:00:00' },
    { station_id: other.stationId, call: 'K1FOR', time_on: '2024-06-02 08:00:00' },
  ]);
  const get = (id: number, token = op.token) => server.request(`/api/v2/qso/${id}`, { token });
  const patch = (id: number, json: unknown, token = op.token) => server.request(`/api/v2/qso/${id}`, { method: 'PATCH', token, json });

  t.test('GET: the QSO object with typed values and every editable field', async (t) => {
    const res = await get(full!);
    t.equal(res.status, 200);
    t.match(res.body.meta, { resource: 'qso', method: 'GET' });
    const qso = res.body.data;
    t.match(qso, {
      id: full, station_id: op.stationId, call: 'K1FUL', band: '20m', band_rx: '20m', mode: 'MFSK', submode: 'FT4',
      freq: 14080000, freq_rx: 14080500, qso_date: '2024-06-01 12:34:56', time_off: '2024-06-01 12:40:00',
      rst_sent: '-10', gridsquare: 'FN42', cqz: 5, ituz: 8, srx: 12, stx: 34, srx_string: 'MA', sota_ref: 'W1/AB-001',
      operator: 'DL1ITM', station_callsign: 'DL1ITM', dxcc: 291, country: 'United States of America', cont: 'NA',
      lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-07-01', qsl_sent: 'Y', qslrdate: null,
    });
    t.equal(typeof qso.freq, 'number');
    const blank = (await get(bare!)).body.data;
    for (const field of EDITABLE_STRINGS) t.equal(blank[field], '', `${field} is '' when unset`);
    for (const field of ['cqz', 'ituz', 'srx', 'stx', 'freq', 'freq_rx', 'submode', 'dxcc', 'time_off']) t.equal(blank[field], null, `${field} null`);
    t.equal(blank.prop_mode, '');
    t.equal(blank.sat_name, '');
  });

  t.test('GET: missing and foreign QSOs are 404 not_found', async (t) => {
    for (const id of [999999, foreign!]) {
      const res = await get(id);
      t.equal(res.status, 404, String(id));
      t.equal(res.body.error.code, 'not_found');
    }
    t.equal((await server.request('/api/v2/qso/abc', { token: op.token })).status, 404);
    t.equal((await server.request('/api/v2/qso/0', { token: op.token })).status, 404);
  });

  t.test('PATCH plain fields: stored as the original upper-cases them, others untouched', async (t) => {
    publisher.events.length = 0;
    const res = await patch(bare!, {
      call: 'k1bar/p', band: '40M', band_rx: '40m', rst_sent: '599', gridsquare: 'fn42ab', name: 'Bob', comment: 'x', notes: 'y',
      qth: 'Here', tx_pwr: 5, prop_mode: 'sat', sat_name: 'ao-91', sat_mode: 'u/v', sota_ref: 'w1/ab-002', pota_ref: 'k-0001',
      wwff_ref: 'kff-0001', iota: 'na-001', sig: 'wwff', sig_info: 'kff-0001', darc_dok: 'b01', state: 'ma', cnty: 'MA,Middlesex',
      cqz: '5', ituz: 8, qsl_via: 'W1ABC', srx: 7, stx: '0', srx_string: 'abc', stx_string: 'def',
    });
    t.equal(res.status, 200);
    t.match(res.body.data, {
      id: bare, call: 'K1BAR/P', band: '40m', band_rx: '40m', rst_sent: '599', gridsquare: 'FN42AB', name: 'Bob', tx_pwr: '5',
      prop_mode: 'SAT', sat_name: 'AO-91', sat_mode: 'U/V', sota_ref: 'W1/AB-002', pota_ref: 'K-0001', wwff_ref: 'KFF-0001',
      iota: 'NA-001', sig: 'WWFF', sig_info: 'KFF-0001', darc_dok: 'B01', state: 'MA', cnty: 'MA,Middlesex', cqz: 5, ituz: 8,
      qsl_via: 'W1ABC', srx: 7, stx: 0, srx_string: 'ABC', stx_string: 'DEF', mode: 'SSB', qso_date: '2024-06-02 08:00:00',
    });
    t.same((await get(bare!)).body.data, res.body.data, 'the answer is the stored QSO');
    t.same(publisher.events, [
      { topic: `station.${op.stationId}`, payload: { type: 'qso_updated', qso_id: bare, station_id: op.stationId } },
      { topic: `qsos_user.${op.userId}`, payload: { type: 'qso_updated', qso_id: bare, station_id: op.stationId } },
    ]);
    const cleared = await patch(bare!, { comment: '', cqz: null, gridsquare: null });
    t.match(cleared.body.data, { comment: '', cqz: null, gridsquare: '' });
  });

  t.test('PATCH qso_date and time_on go together; time_off defaults to time_on and never precedes it', async (t) => {
    for (const body of [{ qso_date: '2024-06-03' }, { time_on: '1200' }]) {
      const res = await patch(bare!, body);
      t.equal(res.status, 400);
      t.equal(res.body.error.code, 'validation_error');
      t.match(res.body.error.message, /together/);
    }
    const moved = await patch(bare!, { qso_date: '2024-06-03', time_on: '21:15' });
    t.match(moved.body.data, { qso_date: '2024-06-03 21:15:00', time_off: '2024-06-03 21:15:00' });
    const withEnd = await patch(bare!, { qso_date: '20240604', time_on: '235800', time_off: '00:02' });
    t.match(withEnd.body.data, { qso_date: '2024-06-04 23:58:00', time_off: '2024-06-05 00:02:00' }, 'an earlier time_off is the next day');
    const later = await patch(bare!, { time_off: '2359' });
    t.match(later.body.data, { qso_date: '2024-06-04 23:58:00', time_off: '2024-06-04 23:59:00' }, 'time_off alone, on the day of time_on');
    const reset = await patch(bare!, { time_off: null });
    t.equal(reset.body.data.time_off, '2024-06-04 23:58:00');
    for (const body of [{ qso_date: '2024-02-30', time_on: '1200' }, { qso_date: '2024-06-03', time_on: '2460' }, { time_off: '25:00' }]) {
      const res = await patch(bare!, body);
      t.equal(res.status, 400, JSON.stringify(body));
      t.equal(res.body.error.code, 'validation_error');
    }
  });

  t.test('PATCH mode is split into mode and submode; frequencies parse like creates', async (t) => {
    t.match((await patch(bare!, { mode: 'ft8' })).body.data, { mode: 'FT8', submode: null });
    t.match((await patch(bare!, { mode: 'USB' })).body.data, { mode: 'SSB', submode: 'USB' });
    t.match((await patch(bare!, { mode: 'JS8' })).body.data, { mode: 'MFSK', submode: 'JS8' });
    t.match((await patch(bare!, { freq: '7.0475M', freq_rx: 7047600 })).body.data, { freq: 7047500, freq_rx: 7047600 });
    t.match((await patch(bare!, { freq: '14.074 MHz', freq_rx: null })).body.data, { freq: 14074000, freq_rx: null });
    for (const body of [{ freq: 'abc' }, { freq_rx: '-5' }, { mode: '' }, { freq: true }]) {
      const res = await patch(bare!, body);
      t.equal(res.status, 400, JSON.stringify(body));
      t.equal(res.body.error.details.field, Object.keys(body)[0]);
    }
  });

  t.test('PATCH validates call, band, grid and integer ranges', async (t) => {
    for (const [field, value] of [
      ['call', 'K1@BC'], ['call', ''], ['band', 'foo'], ['band', null], ['gridsquare', 'ZZ99'], ['cqz', 41], ['ituz', 'x'], ['srx', -1], ['srx', 1.5],
    ] as const) {
      const res = await patch(bare!, { [field]: value });
      t.equal(res.status, 400, `${field}=${value}`);
      t.equal(res.body.error.code, 'validation_error');
      t.equal(res.body.error.details.field, field);
    }
  });

  t.test('PATCH station_profile_id moves the QSO to another owned location and takes its callsign', async (t) => {
    publisher.events.length = 0;
    const res = await patch(bare!, { station_profile_id: String(portable) });
    t.equal(res.status, 200);
    t.match(res.body.data, { station_id: portable, station_callsign: 'DL1ITM/P' });
    t.same(publisher.events.map((e) => e.topic), [`station.${portable}`, `station.${op.stationId}`, `qsos_user.${op.userId}`]);
    for (const value of [other.stationId, 'abc', 0]) {
      const denied = await patch(bare!, { station_profile_id: value });
      t.equal(denied.status, 403, String(value));
      t.equal(denied.body.error.code, 'forbidden');
    }
    t.equal((await get(bare!)).body.data.station_id, portable);
    await patch(bare!, { station_profile_id: op.stationId });
  });

  t.test('PATCH refuses confirmation bookkeeping, DXCC fields, unknown fields and empty bodies', async (t) => {
    for (const field of ['qsl_rcvd', 'qslrdate', 'qsl_sent', 'lotw_qsl_rcvd', 'lotw_qslrdate', 'eqsl_qsl_rcvd', 'qrzcom_qso_download_status',
      'clublog_qso_upload_status', 'dcl_qsl_rcvd', 'hrdlog_qso_upload_date']) {
      const res = await patch(full!, { [field]: 'Y', comment: 'never stored' });
      t.equal(res.status, 400, field);
      t.equal(res.body.error.details.field, field);
      t.match(res.body.error.message, /confirmation bookkeeping/);
    }
    for (const field of ['dxcc', 'country', 'cont', 'pfx']) {
      const res = await patch(full!, { [field]: '230' });
      t.equal(res.status, 400, field);
      t.equal(res.body.error.details.field, field);
      t.match(res.body.error.message, /derived from the callsign/);
    }
    for (const field of ['foo', 'operator', 'id', 'submode']) {
      const res = await patch(full!, { [field]: 'x' });
      t.equal(res.status, 400, field);
      t.equal(res.body.error.details.field, field);
    }
    const empty = await patch(full!, {});
    t.equal(empty.status, 400);
    t.equal(empty.body.error.message, 'No editable fields in request body');
    const nested = await patch(full!, { comment: { text: 'x' } });
    t.equal(nested.status, 400);
    t.equal(nested.body.error.code, 'validation_error');
    t.equal((await get(full!)).body.data.comment, 'tnx', 'nothing of the refused bodies was stored');
  });

  t.test('PATCH that would duplicate another QSO is 409 conflict naming it', async (t) => {
    const [twin] = await insertQsos(db, [{ station_id: op.stationId, call: 'K1TWN', time_on: '2024-06-01 12:34:00', band: '20m', mode: 'MFSK' }]);
    const res = await patch(twin!, { call: 'K1FUL' });
    t.equal(res.status, 409);
    t.equal(res.body.error.code, 'conflict');
    t.same(res.body.error.details, { existing_id: full });
    t.equal((await get(twin!)).body.data.call, 'K1TWN');
  });

  t.test('PATCH of a foreign or missing QSO is 404, and changes nothing', async (t) => {
    for (const id of [foreign!, 999999]) {
      const res = await patch(id, { comment: 'hijack' });
      t.equal(res.status, 404);
      t.equal(res.body.error.code, 'not_found');
    }
    const { rows } = await db.query('SELECT comment FROM qso WHERE id = $1', [foreign]);
    t.equal(rows[0].comment, null);
  });

  t.test('DELETE: 204 without a body; images, OQRS requests and contest links go with the QSO', async (t) => {
    const [doomed] = await insertQsos(db, [{ station_id: op.stationId, call: 'K1DEL', time_on: '2024-06-09 09:00:00' }]);
    await db.query('INSERT INTO qsl_images (qso_id, filename) VALUES ($1, $2)', [doomed, 'card.jpg']);
    await db.query('INSERT INTO oqrs_requests (qso_id, requester) VALUES ($1, $2)', [doomed, 'K1REQ']);
    const { rows: sessions } = await db.query<{ id: number }>(
      `INSERT INTO contest_sessions (user_id, station_id, contest, time_start) VALUES ($1, $2, 'CQ-WW-CW', now()) RETURNING id`,
      [op.userId, op.stationId],
    );
    await db.query('INSERT INTO contest_session_qsos (session_id, qso_id) VALUES ($1, $2)', [sessions[0]!.id, doomed]);
    publisher.events.length = 0;

    const res = await server.request(`/api/v2/qso/${doomed}`, { method: 'DELETE', token: op.token });
    t.equal(res.status, 204);
    t.equal(res.text, '');
    t.same(publisher.events, [
      { topic: `station.${op.stationId}`, payload: { type: 'qso_deleted', qso_id: doomed, station_id: op.stationId } },
      { topic: `qsos_user.${op.userId}`, payload: { type: 'qso_deleted', qso_id: doomed, station_id: op.stationId } },
    ]);
    const { rows } = await db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM qso WHERE id = $1)::int + (SELECT count(*) FROM qsl_images WHERE qso_id = $1)::int
            + (SELECT count(*) FROM oqrs_requests WHERE qso_id = $1)::int + (SELECT count(*) FROM contest_session_qsos WHERE qso_id = $1)::int AS n`,
      [doomed],
    );
    t.equal(rows[0]!.n, 0);
    t.equal((await db.query('SELECT 1 FROM contest_sessions WHERE id = $1', [sessions[0]!.id])).rowCount, 1, 'the session stays');
    const again = await server.request(`/api/v2/qso/${doomed}`, { method: 'DELETE', token: op.token });
    t.equal(again.status, 404);
    t.equal(again.body.error.code, 'not_found');
  });

  t.test('DELETE of a foreign QSO is 404 and keeps it', async (t) => {
    const res = await server.request(`/api/v2/qso/${foreign}`, { method: 'DELETE', token: op.token });
    t.equal(res.status, 404);
    t.equal((await db.query('SELECT 1 FROM qso WHERE id = $1', [foreign])).rowCount, 1);
  });

  t.test('scopes: GET needs qso:read, PATCH qso:write, DELETE qso:delete', async (t) => {
    const reader = await createOperator(db, { scopes: ['qso:read'] });
    const [own] = await insertQsos(db, [{ station_id: reader.stationId, call: 'K1OWN', time_on: '2024-06-09 09:00:00' }]);
    t.equal((await get(own!, reader.token)).status, 200);
    const write = await patch(own!, { comment: 'x' }, reader.token);
    t.equal(write.status, 403);
    t.same(write.body.error.details, { required_scope: 'qso:write' });
    const del = await server.request(`/api/v2/qso/${own}`, { method: 'DELETE', token: reader.token });
    t.same(del.body.error.details, { required_scope: 'qso:delete' });
    const put = await server.request(`/api/v2/qso/${own}`, { method: 'PUT', token: reader.token });
    t.equal(put.status, 405);
    t.equal(put.headers.get('allow'), 'GET, POST, PATCH, DELETE');
  });
});
