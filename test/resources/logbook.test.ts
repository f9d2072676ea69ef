import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createStation } from '../../lib/accounts/stations.js';
import { logbookResource } from '../../lib/http/v2/resources/logbook/index.js';

t.test('logbook resource', async (t) => {
  const server = await startTestServer(t, { resources: [logbookResource] });
  const db = server.db.pool;
  const op = await createOperator(db);
  const second = await createStation(db, { userId: op.userId, name: 'Second', callsign: op.callsign });
  const other = await createOperator(db);
  const post = (json: unknown, token = op.token) => server.request('/api/v2/logbook', { method: 'POST', token, json });

  let mainId = 0;

  t.test('create: 201 with Location; the first logbook is active and gets a public slug', async (t) => {
    const res = await post({ name: 'Main Log', station_ids: `${op.stationId}, ${second}` });
    t.equal(res.status, 201);
    mainId = res.body.data.id;
    t.equal(res.headers.get('location'), `/api/v2/logbook/${mainId}`);
    t.same(Object.keys(res.body.data), ['id', 'name', 'active', 'station_ids', 'slug', 'public', 'public_show_times', 'public_show_frequency', 'public_banner']);
    t.match(res.body.data, { public: false, public_show_times: false, public_show_frequency: true, public_banner: '' });
    t.match(res.body.data, { name: 'Main Log', active: true, station_ids: [op.stationId, second] });
    t.match(res.body.data.slug, /^main-log-[0-9a-f]{6}$/);

    const single = await post({ name: 'Single', station_ids: second });
    t.match(single.body.data, { active: false, station_ids: [second] });
    const none = await post({ name: 'Empty', station_ids: '' });
    t.same(none.body.data.station_ids, []);
    const absent = await post({ name: 'No list' });
    t.same(absent.body.data.station_ids, []);
  });

  t.test('create: validation, foreign locations and duplicate names', async (t) => {
    const missing = await post({ station_ids: `${op.stationId}` });
    t.equal(missing.status, 400);
    t.same(missing.body.error.details, { missing: ['name'] });
    const malformed = await post({ name: 'X', station_ids: '1,a' });
    t.equal(malformed.status, 400);
    t.equal(malformed.body.error.details.field, 'station_ids');
    const unknown = await post({ name: 'X', shared: true });
    t.equal(unknown.status, 400);
    t.equal(unknown.body.error.details.field, 'shared');
    const flag = await post({ name: 'X', public: 'maybe' });
    t.equal(flag.status, 400);
    t.equal(flag.body.error.details.field, 'public');
    const banner = await post({ name: 'X', public_banner: 'x'.repeat(501) });
    t.equal(banner.status, 400);
    t.equal(banner.body.error.details.field, 'public_banner');
    const foreign = await post({ name: 'X', station_ids: `${op.stationId},${other.stationId}` });
    t.equal(foreign.status, 403);
    t.equal(foreign.body.error.code, 'forbidden');
    t.same(foreign.body.error.details, { station_ids: [other.stationId] });
    const dupe = await post({ name: 'Main Log' });
    t.equal(dupe.status, 409);
    t.equal(dupe.body.error.code, 'conflict');
    t.same(dupe.body.error.details, { existing_id: mainId });
    t.equal((await post({ name: 'Main Log' }, other.token)).status, 201, 'names are per owner');
  });

  t.test('list and show the owner\'s logbooks only', async (t) => {
    const list = await server.request('/api/v2/logbook', { token: op.token });
    t.equal(list.status, 200);
    t.same(list.body.data.map((l: { name: string }) => l.name), ['Main Log', 'Single', 'Empty', 'No list']);
    t.equal(list.body.meta.count, 4);
    const show = await server.request(`/api/v2/logbook/${mainId}`, { token: op.token });
    t.same(show.body.data, list.body.data[0]);
    const foreign = await server.request(`/api/v2/logbook/${mainId}`, { token: other.token });
    t.equal(foreign.status, 404);
    t.equal(foreign.body.error.code, 'not_found');
  });

  t.test('update: name, station list replacement, activation', async (t) => {
    const single = (await server.request('/api/v2/logbook', { token: op.token })).body.data[1];
    const path = `/api/v2/logbook/${single.id}`;
    const renamed = await server.request(path, { method: 'PATCH', token: op.token, json: { name: 'Contest log', station_ids: `${op.stationId}` } });
    t.equal(renamed.status, 200);
    t.match(renamed.body.data, { name: 'Contest log', station_ids: [op.stationId], active: false, slug: single.slug });
    const rows = await db.query('SELECT station_id FROM logbook_stations WHERE logbook_id = $1', [single.id]);
    t.same(rows.rows, [{ station_id: op.stationId }]);
    const cleared = await server.request(path, { method: 'PATCH', token: op.token, json: { station_ids: '' } });
    t.same(cleared.body.data.station_ids, []);
    const activated = await server.request(path, { method: 'PATCH', token: op.token, json: { set_active: true } });
    t.equal(activated.body.data.active, true);
    const main = await server.request(`/api/v2/logbook/${mainId}`, { token: op.token });
    t.equal(main.body.data.active, false);
    await server.request(`/api/v2/logbook/${mainId}`, { method: 'PATCH', token: op.token, json: { set_active: 'true' } });
  });

  t.test('update: publication fields, each alone, and their validation', async (t) => {
    const path = `/api/v2/logbook/${mainId}`;
    const published = await server.request(path, { method: 'PATCH', token: op.token, json: { public: true, public_banner: 'QRV 20m <b>' } });
    t.equal(published.status, 200);
    t.match(published.body.data, { public: true, public_show_times: false, public_show_frequency: true, public_banner: 'QRV 20m <b>' });
    const flags = await server.request(path, { method: 'PATCH', token: op.token, json: { public_show_times: 1, public_show_frequency: 'false' } });
    t.match(flags.body.data, { public: true, public_show_times: true, public_show_frequency: false, public_banner: 'QRV 20m <b>' });
    const tooLong = await server.request(path, { method: 'PATCH', token: op.token, json: { public: false, public_banner: 'é'.repeat(501) } });
    t.equal(tooLong.status, 400);
    t.equal(tooLong.body.error.details.field, 'public_banner');
    t.equal((await server.request(path, { token: op.token })).body.data.public, true, 'a refused PATCH changes nothing');
    const cleared = await server.request(path, { method: 'PATCH', token: op.token, json: { public: false, public_banner: null } });
    t.match(cleared.body.data, { public: false, public_banner: '' });
    t.equal((await server.request(path, { method: 'PATCH', token: other.token, json: { public: true } })).status, 404, 'not another owner\'s');
  });

  t.test('update: errors', async (t) => {
    const path = `/api/v2/logbook/${mainId}`;
    const nothing = await server.request(path, { method: 'PATCH', token: op.token, json: { set_active: false } });
    t.equal(nothing.status, 400);
    t.equal(nothing.body.error.code, 'validation_error');
    const blank = await server.request(path, { method: 'PATCH', token: op.token, json: { name: ' ' } });
    t.same(blank.body.error.details, { fields: ['name'] });
    const taken = await server.request(path, { method: 'PATCH', token: op.token, json: { name: 'Empty' } });
    t.equal(taken.status, 409);
    t.equal(taken.body.error.details.existing_id > 0, true);
    const foreign = await server.request(path, { method: 'PATCH', token: op.token, json: { station_ids: `${other.stationId}` } });
    t.equal(foreign.status, 403);
    t.same(foreign.body.error.details, { station_ids: [other.stationId] });
    const notMine = await server.request(path, { method: 'PATCH', token: other.token, json: { name: 'Mine now' } });
    t.equal(notMine.status, 404);
    const unchanged = await server.request(path, { token: op.token });
    t.match(unchanged.body.data, { name: 'Main Log', active: true });
  });

  t.test('delete: not the active one; the locations stay', async (t) => {
    const active = await server.request(`/api/v2/logbook/${mainId}`, { method: 'DELETE', token: op.token });
    t.equal(active.status, 409);
    t.equal(active.body.error.code, 'conflict');
    const notMine = await server.request(`/api/v2/logbook/${mainId}`, { method: 'DELETE', token: other.token });
    t.equal(notMine.status, 404);
    const victim = await post({ name: 'Victim', station_ids: `${second}` });
    const res = await server.request(`/api/v2/logbook/${victim.body.data.id}`, { method: 'DELETE', token: op.token });
    t.equal(res.status, 204);
    t.equal(res.text, '');
    t.equal((await db.query('SELECT 1 FROM logbooks WHERE id = $1', [victim.body.data.id])).rowCount, 0);
    t.equal((await db.query('SELECT 1 FROM stations WHERE id = $1', [second])).rowCount, 1);
    t.equal((await server.request(`/api/v2/logbook/${victim.body.data.id}`, { method: 'DELETE', token: op.token })).status, 404);
  });

  t.test('verbs and scopes', async (t) => {
    const put = await server.request(`/api/v2/logbook/${mainId}`, { method: 'PUT', token: op.token, json: {} });
    t.equal(put.status, 405);
    t.equal(put.headers.get('allow'), 'GET, POST, PATCH, DELETE');
    const reader = await createOperator(db, { scopes: ['logbook:read'] });
    const writer = await createOperator(db, { scopes: ['logbook:write'] });
    const cases: [string, string, string, unknown, string][] = [
      [writer.token, 'GET', '/api/v2/logbook', undefined, 'logbook:read'],
      [reader.token, 'POST', '/api/v2/logbook', { name: 'x' }, 'logbook:write'],
      [reader.token, 'PATCH', `/api/v2/logbook/${mainId}`, { name: 'x' }, 'logbook:write'],
      [writer.token, 'DELETE', `/api/v2/logbook/${mainId}`, undefined, 'logbook:delete'],
    ];
    for (const [token, method, path, json, scope] of cases) {
      const res = await server.request(path, { method, token, json });
      t.equal(res.status, 403, `${method} ${path}`);
      t.same(res.body.error, { code: 'insufficient_scope', message: res.body.error.message, details: { required_scope: scope } });
    }
  });

  t.test('club tokens: every verb needs officer level', async (t) => {
    const club = await createClub(db);
    const member = await club.memberToken(6);
    const officer = await club.memberToken(9);
    for (const [method, path, json] of [
      ['GET', '/api/v2/logbook', undefined],
      ['GET', '/api/v2/logbook/1', undefined],
      ['POST', '/api/v2/logbook', { name: 'Club' }],
      ['PATCH', '/api/v2/logbook/1', { name: 'Club' }],
      ['DELETE', '/api/v2/logbook/1', undefined],
    ] as const) {
      const res = await server.request(path, { method, token: member.token, json });
      t.equal(res.status, 403, `${method} ${path}`);
      t.equal(res.body.error.code, 'insufficient_club_permission');
      t.same(res.body.error.details, { required_level: 9, granted_level: 6 });
    }
    const made = await post({ name: 'Club log', station_ids: `${club.clubStationId}` }, officer.token);
    t.equal(made.status, 201);
    t.equal((await db.query('SELECT user_id FROM logbooks WHERE id = $1', [made.body.data.id])).rows[0].user_id, club.clubId);
    const list = await server.request('/api/v2/logbook', { token: officer.token });
    t.same(list.body.data.map((l: { id: number }) => l.id), [made.body.data.id]);
  });
});
