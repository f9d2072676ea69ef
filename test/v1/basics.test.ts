import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { createStation } from '../../lib/accounts/stations.js';
import { wavelogApiVersion } from '../../lib/version.js';
import { bothPaths, insertQso, post, v1Key } from './helpers.js';

t.test('v1 keys, versions and station info', async (t) => {
  const server = await startTestServer(t, { config: { api_rate_limits: { check_auth: { requests: 2, window: 60 } } } });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1KEY' });
  const rw = await v1Key(db, op.userId, 'rw');
  const ro = await v1Key(db, op.userId, 'r');

  t.test('auth answers XML, 200 for valid and invalid keys, by GET and POST', async (t) => {
    for (const [path] of [bothPaths('auth'), [`/index.php/api/auth`]]) {
      const valid = await server.request(`${path.replace(/\/$/, '')}/${rw}`);
      t.equal(valid.status, 200);
      t.match(valid.headers.get('content-type'), /^text\/xml/);
      t.equal(valid.text, '<auth><status>Valid</status><rights>rw</rights></auth>');
    }
    const readOnly = await server.request(`/index.php/api/auth/${ro}/`, { method: 'POST' });
    t.equal(readOnly.text, '<auth><status>Valid</status><rights>r</rights></auth>');
    for (const path of ['/api/auth/wl0000000000000', '/api/auth', `/api/auth/${op.token}`]) {
      const invalid = await server.request(path);
      t.equal(invalid.status, 200, path);
      t.equal(invalid.text, '<auth><message>Key Invalid - either not found or disabled</message></auth>');
    }
  });

  t.test('check_auth: rights for a valid key, 401 otherwise; the key id reaches nobody else', async (t) => {
    const valid = await server.request(`/api/check_auth/${ro}`);
    t.equal(valid.status, 200);
    t.same(valid.body, { status: 'valid', rights: 'r' });
    const invalid = await server.request('/index.php/api/check_auth/wlnotakey12345/');
    t.equal(invalid.status, 401);
    t.same(invalid.body, { status: 'failed', reason: 'missing or invalid api key' });
  });

  t.test('a disabled key is no key', async (t) => {
    const key = await v1Key(db, op.userId, 'rw');
    await db.query('UPDATE api_keys SET active = false WHERE id = (SELECT max(id) FROM api_keys)');
    const res = await post(server, '/api/version', { key });
    t.equal(res.status, 401);
  });

  // The v2 side (a v1 key on /api/v2 is invalid_token) is tested with the v2 authentication.
  t.test('v2 tokens are not v1 keys', async (t) => {
    const v1 = await post(server, '/api/version', { key: op.token });
    t.equal(v1.status, 401);
    t.same(v1.body, { status: 'failed', reason: 'missing or invalid api key' });
  });

  t.test('version: any valid key, both path forms; 401 without one', async (t) => {
    for (const path of bothPaths('version')) {
      const res = await post(server, path, { key: ro });
      t.equal(res.status, 200, path);
      t.match(res.headers.get('content-type'), /^application\/json/);
      t.strictSame(res.body, { status: 'ok', version: '3.1.0' });
      t.equal(wavelogApiVersion, '3.1.0');
    }
    for (const body of [{}, { key: 'wrong' }, 'not json']) {
      const res = await post(server, '/api/version', body);
      t.equal(res.status, 401);
      t.same(res.body, { status: 'failed', reason: 'missing or invalid api key' });
    }
  });

  t.test('station_info: records with string ids, key in the path or the body', async (t) => {
    const second = await createStation(db, { userId: op.userId, name: 'Portable Ø', callsign: 'DL1KEY/P', gridsquare: 'jo40', dxcc: 230, cq: 14, itu: 28 });
    for (const path of [`/api/station_info/${ro}`, `/index.php/api/station_info/${rw}/`]) {
      const res = await server.request(path);
      t.equal(res.status, 200, path);
      t.equal(res.body.length, 2);
      const [home, portable] = res.body;
      t.equal(home.station_id, String(op.stationId));
      t.equal(home.station_active, '1');
      t.equal(home.station_callsign, 'DL1KEY');
      t.equal(home.station_gridsquare, 'JO62QM');
      t.equal(home.station_dxcc, null);
      t.same(portable, {
        station_id: String(second), station_profile_name: 'Portable Ø', station_gridsquare: 'JO40', station_callsign: 'DL1KEY/P',
        station_active: null, station_uuid: portable.station_uuid, station_city: '', station_iota: '', station_sota: '',
        station_wwff: '', station_pota: '', station_sig: '', station_sig_info: '', station_dxcc: '230', station_cnty: '',
        station_cq: '14', station_itu: '28', station_state: '', station_country: 'Federal Republic Of Germany',
      });
      t.match(portable.station_uuid, /^[0-9a-f-]{36}$/);
    }
    // PHP's json_encode look: non-ASCII escaped.
    t.match((await server.request(`/api/station_info/${ro}`)).text, /"Portable \\u00d8"/);
    const byBody = await post(server, '/api/station_info', { key: ro });
    t.equal(byBody.status, 200);
    t.equal(byBody.body.length, 2);
    for (const path of ['/api/station_info', '/api/station_info/wrongkey', `/api/station_info/${op.token}`]) {
      const res = await server.request(path);
      t.equal(res.status, 401, path);
      t.same(res.body, { status: 'failed', reason: 'missing or invalid api key' });
    }
  });

  t.test('statistics: counts of the active location, always 201, zeros for a bad key', async (t) => {
    const now = new Date();
    const iso = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
    const year = now.getUTCFullYear();
    const month = now.getUTCMonth();
    await insertQso(db, { station_id: op.stationId, call: 'G1AAA', time_on: iso(now) });
    await insertQso(db, { station_id: op.stationId, call: 'G1AAB', time_on: iso(new Date(Date.UTC(year - 1, 5, 1))) });
    // Earlier this month unless today is the 1st; earlier this year unless it is January.
    const earlierThisMonth = now.getUTCDate() > 1 ? new Date(Date.UTC(year, month, 1, 0, 0, 1)) : null;
    const earlierThisYear = month > 0 ? new Date(Date.UTC(year, 0, 1, 0, 0, 1)) : null;
    if (earlierThisMonth) await insertQso(db, { station_id: op.stationId, call: 'G1AAC', time_on: iso(earlierThisMonth) });
    if (earlierThisYear) await insertQso(db, { station_id: op.stationId, call: 'G1AAD', time_on: iso(earlierThisYear) });
    const inactive = await createStation(db, { userId: op.userId, name: 'Other', callsign: 'DL1KEY' });
    await insertQso(db, { station_id: inactive, call: 'G1AAE', time_on: iso(now) });
    const other = await createOperator(db);
    await insertQso(db, { station_id: other.stationId, call: 'G1AAF', time_on: iso(now) });

    // Integers in every answer, as the original's row counts are.
    const expected = {
      Today: 1,
      total_qsos: 2 + (earlierThisMonth ? 1 : 0) + (earlierThisYear ? 1 : 0),
      month_qsos: 1 + (earlierThisMonth ? 1 : 0) + (earlierThisYear && month === 0 ? 1 : 0),
      year_qsos: 1 + (earlierThisMonth ? 1 : 0) + (earlierThisYear ? 1 : 0),
    };
    for (const path of [`/api/statistics/${ro}`, `/index.php/api/statistics/${rw}/`]) {
      const res = await server.request(path);
      t.equal(res.status, 201, path);
      t.strictSame(res.body, expected);
    }
    t.strictSame((await post(server, '/api/statistics', { key: rw })).body, expected);
    for (const path of ['/api/statistics', '/api/statistics/nokey']) {
      const res = await server.request(path);
      t.equal(res.status, 201);
      t.strictSame(res.body, { Today: 0, total_qsos: 0, month_qsos: 0, year_qsos: 0 }, 'integer zeros without a key');
    }
  });

  t.test('paths: v2 space untouched, unknown calls and wrong verbs are 404, extra segments too', async (t) => {
    t.equal((await server.request('/api/v2/status')).body.data.status, 'ok');
    t.equal((await server.request('/api/nope', { method: 'POST' })).status, 404);
    t.equal((await server.request('/api/version')).status, 404, 'body calls answer POST only');
    t.equal((await server.request(`/api/check_auth/${rw}/extra`)).status, 404);
  });

  t.test('rate limit: per method bucket and per key, 429 with Retry-After', async (t) => {
    const limitedKey = await v1Key(db, op.userId, 'r');
    t.equal((await server.request(`/api/check_auth/${limitedKey}`)).status, 200);
    t.equal((await server.request(`/api/check_auth/${limitedKey}`)).status, 200);
    const refused = await server.request(`/api/check_auth/${limitedKey}`);
    t.equal(refused.status, 429);
    const seconds = Number(refused.headers.get('retry-after'));
    t.ok(seconds >= 1 && seconds <= 60);
    t.same(refused.body, { status: 'failed', reason: `Rate limit exceeded. Try again in ${seconds} seconds.`, retry_after: seconds });
    t.equal((await post(server, '/api/version', { key: limitedKey })).status, 200, 'other buckets are free');
    t.equal((await server.request(`/api/check_auth/${ro}`)).status, 200, 'other keys are counted apart');
    // Without a key the client address is counted.
    t.equal((await server.request('/api/check_auth')).status, 401);
    t.equal((await server.request('/api/check_auth/')).status, 401);
    t.equal((await server.request('/api/check_auth')).status, 429);
  });
});

t.test('a body over the limit is refused before it is read whole', async (t) => {
  const server = await startTestServer(t, { config: { max_json_body_bytes: 1024, max_body_bytes: 2048 } });
  const op = await createOperator(server.db.pool);
  const key = await v1Key(server.db.pool, op.userId, 'rw');
  const big = await post(server, '/api/version', { key, padding: 'x'.repeat(1500) });
  t.equal(big.status, 413);
  t.same(big.body, { status: 'failed', reason: 'Request body exceeds the limit of 1024 bytes' });
  // api/qso carries ADIF documents and has the larger limit.
  const qso = await post(server, '/api/qso', { key, station_profile_id: op.stationId, type: 'adif', string: `<comment:1500>${'x'.repeat(1500)}<eor>` });
  t.not(qso.status, 413);
  const tooBig = await post(server, '/api/qso', { key, padding: 'x'.repeat(3000) });
  t.equal(tooBig.status, 413);
});
