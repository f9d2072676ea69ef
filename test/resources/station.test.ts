import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createUser } from '../../lib/accounts/users.js';
import { createToken } from '../../lib/auth/tokens.js';
import { stationResource } from '../../lib/http/v2/resources/station/index.js';
import { insertQsos } from '../helpers/qsoRows.js';

const home = { name: 'Portable', callsign: 'dl1abc/p', dxcc: 230, cq: 14, itu: 28, gridsquare: 'jo62qm', iota: 'eu-001', pota: 'de 0001' };

t.test('station resource', async (t) => {
  const server = await startTestServer(t, { resources: [stationResource] });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1ABC' });
  const other = await createOperator(db, { callsign: 'DL2XYZ' });

  t.test('list and show the owner\'s locations only', async (t) => {
    const list = await server.request('/api/v2/station', { token: op.token });
    t.equal(list.status, 200);
    t.equal(list.body.meta.count, 1);
    t.same(Object.keys(list.body.data[0]), [
      'id', 'uuid', 'name', 'callsign', 'gridsquare', 'city', 'dxcc', 'country', 'cq', 'itu', 'state', 'cnty',
      'iota', 'sota', 'wwff', 'pota', 'sig', 'sig_info', 'power', 'active',
    ]);
    t.match(list.body.data[0], { id: op.stationId, callsign: 'DL1ABC', gridsquare: 'JO62QM', active: true, dxcc: null, power: null });
    t.match(list.body.data[0].uuid, /^[0-9a-f-]{36}$/);

    const show = await server.request(`/api/v2/station/${op.stationId}`, { token: op.token });
    t.equal(show.status, 200);
    t.same(show.body.data, list.body.data[0]);
    for (const id of [other.stationId, 999999]) {
      const hidden = await server.request(`/api/v2/station/${id}`, { token: op.token });
      t.equal(hidden.status, 404, `station ${id}`);
      t.equal(hidden.body.error.code, 'not_found');
    }
  });

  t.test('create: 201 with Location, normalised fields, country from the DXCC code, not active', async (t) => {
    const res = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { ...home, power: '100', city: 'Berlin' } });
    t.equal(res.status, 201);
    t.equal(res.headers.get('location'), `/api/v2/station/${res.body.data.id}`);
    t.match(res.body.data, {
      name: 'Portable', callsign: 'DL1ABC/P', gridsquare: 'JO62QM', dxcc: 230, country: 'Federal Republic Of Germany', cq: 14, itu: 28,
      iota: 'EU-001', pota: 'DE0001', power: 100, city: 'Berlin', active: false,
    });
    const stored = await db.query('SELECT user_id, callsign FROM stations WHERE id = $1', [res.body.data.id]);
    t.same(stored.rows[0], { user_id: op.userId, callsign: 'DL1ABC/P' });

    const viaIndexPhp = await server.request('/index.php/api/v2/station/', { method: 'POST', token: op.token, json: { ...home, name: 'Second' } });
    t.equal(viaIndexPhp.status, 201);
    t.equal(viaIndexPhp.headers.get('location'), `/index.php/api/v2/station/${viaIndexPhp.body.data.id}`);
  });

  t.test('the first location of an owner becomes active', async (t) => {
    const userId = await createUser(db, { username: `fresh-${Date.now()}`, callsign: 'DL9NEW' });
    const { token } = await createToken(db, { userId, createdBy: userId, name: 't', scopes: ['station:read', 'station:write'], expiresAt: null });
    const first = await server.request('/api/v2/station', { method: 'POST', token, json: { ...home, callsign: 'DL9NEW' } });
    t.equal(first.status, 201);
    t.equal(first.body.data.active, true);
    const second = await server.request('/api/v2/station', { method: 'POST', token, json: { ...home, callsign: 'DL9NEW', name: 'Other' } });
    t.equal(second.body.data.active, false);
  });

  t.test('concurrent creates of one owner: one active location, one of identical twins', async (t) => {
    const userId = await createUser(db, { username: `race-${Date.now()}`, callsign: 'DL9RCE' });
    const { token } = await createToken(db, { userId, createdBy: userId, name: 't', scopes: ['station:write'], expiresAt: null });
    const distinct = await Promise.all([1, 2, 3, 4, 5].map((n) =>
      server.request('/api/v2/station', { method: 'POST', token, json: { ...home, callsign: 'DL9RCE', name: `Site ${n}` } })));
    t.same(distinct.map((r) => r.status), [201, 201, 201, 201, 201]);
    t.equal(distinct.filter((r) => r.body.data.active).length, 1);
    const twins = await Promise.all([1, 2, 3].map(() =>
      server.request('/api/v2/station', { method: 'POST', token, json: { ...home, callsign: 'DL9RCE', name: 'Twin site' } })));
    t.same(twins.map((r) => r.status).sort(), [201, 409, 409]);
  });

  t.test('create: missing required fields are all named', async (t) => {
    const empty = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: {} });
    t.equal(empty.status, 400);
    t.equal(empty.body.error.code, 'validation_error');
    t.same(empty.body.error.details.missing, ['name', 'callsign', 'dxcc', 'cq', 'itu']);
    const some = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { name: 'x', callsign: ' ', dxcc: 230, cq: null } });
    t.same(some.body.error.details.missing, ['callsign', 'cq', 'itu']);
  });

  t.test('create: invalid values name their field', async (t) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ gridsquare: 'ZZ99' }, 'gridsquare'],
      [{ gridsquare: 'JO62,XX' }, 'gridsquare'],
      [{ callsign: 'DL#1' }, 'callsign'],
      [{ dxcc: 9999 }, 'dxcc'],
      [{ dxcc: 'Germany' }, 'dxcc'],
      [{ cq: 41 }, 'cq'],
      [{ itu: 0 }, 'itu'],
      [{ power: -5 }, 'power'],
      [{ power: 12.5 }, 'power'],
      [{ city: true }, 'city'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ frequency: 1 }, 'frequency'],
    ];
    for (const [change, field] of cases) {
      const res = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { ...home, name: 'Invalid', ...change } });
      t.equal(res.status, 400, JSON.stringify(change));
      t.equal(res.body.error.code, 'validation_error');
      t.equal(res.body.error.details.field, field, JSON.stringify(change));
    }
    const nested = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { ...home, name: { a: 1 } } });
    t.equal(nested.status, 400);
    t.equal(nested.body.error.details.field, 'name');
    const grids = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { ...home, name: 'Corner', gridsquare: 'jo62, jo72' } });
    t.equal(grids.status, 201);
    t.equal(grids.body.data.gridsquare, 'JO62,JO72');
  });

  t.test('create: an identical location is a conflict, a renamed copy is not', async (t) => {
    const original = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { ...home, name: 'Twin' } });
    t.equal(original.status, 201);
    const again = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { ...home, name: 'Twin', callsign: 'DL1ABC/P' } });
    t.equal(again.status, 409);
    t.equal(again.body.error.code, 'conflict');
    t.same(again.body.error.details, { existing_id: original.body.data.id });
    // A GET result sent back with a new name clones the location (read-only members are ignored).
    const clone = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { ...original.body.data, name: 'Twin 2' } });
    t.equal(clone.status, 201);
    t.not(clone.body.data.id, original.body.data.id);
    t.not(clone.body.data.uuid, original.body.data.uuid);
    // The same place for another owner is no conflict.
    const foreign = await server.request('/api/v2/station', { method: 'POST', token: other.token, json: { ...home, name: 'Twin' } });
    t.equal(foreign.status, 201);
  });

  t.test('update: partial, with the fresh object back', async (t) => {
    const made = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { ...home, name: 'Editable', city: 'Bonn' } });
    const path = `/api/v2/station/${made.body.data.id}`;
    const res = await server.request(path, { method: 'PATCH', token: op.token, json: { city: 'Köln', sota: 'dl/al-001' } });
    t.equal(res.status, 200);
    t.match(res.body.data, { city: 'Köln', sota: 'DL/AL-001', name: 'Editable', callsign: 'DL1ABC/P', cq: 14 });
    const dxcc = await server.request(path, { method: 'PATCH', token: op.token, json: { dxcc: 110, cq: 31, itu: 61 } });
    t.match(dxcc.body.data, { dxcc: 110, country: 'Hawaii', cq: 31, itu: 61 });
    const cleared = await server.request(path, { method: 'PATCH', token: op.token, json: { name: '', cq: null, city: '' } });
    t.equal(cleared.status, 400);
    t.same(cleared.body.error.details, { fields: ['name', 'cq'] });
    const nothing = await server.request(path, { method: 'PATCH', token: op.token, json: { id: 5, active: true, country: 'x' } });
    t.equal(nothing.status, 400);
    t.equal(nothing.body.error.code, 'validation_error');
    const badGrid = await server.request(path, { method: 'PATCH', token: op.token, json: { gridsquare: 'JO6' } });
    t.equal(badGrid.body.error.details.field, 'gridsquare');
    const badFlag = await server.request(path, { method: 'PATCH', token: op.token, json: { set_active: 'yes' } });
    t.equal(badFlag.body.error.details.field, 'set_active');
    const unchanged = await server.request(path, { token: op.token });
    t.match(unchanged.body.data, { city: 'Köln', name: 'Editable' });
  });

  t.test('update: becoming identical to another location is a conflict', async (t) => {
    const a = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { ...home, name: 'Pair A' } });
    const b = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { ...home, name: 'Pair B' } });
    const res = await server.request(`/api/v2/station/${b.body.data.id}`, { method: 'PATCH', token: op.token, json: { name: 'Pair A' } });
    t.equal(res.status, 409);
    t.same(res.body.error.details, { existing_id: a.body.data.id });
  });

  t.test('update: set_active moves the active flag', async (t) => {
    const made = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { ...home, name: 'Next active' } });
    const res = await server.request(`/api/v2/station/${made.body.data.id}`, { method: 'PATCH', token: op.token, json: { set_active: true } });
    t.equal(res.status, 200);
    t.equal(res.body.data.active, true);
    const list = await server.request('/api/v2/station', { token: op.token });
    t.same(list.body.data.filter((s: { active: boolean }) => s.active).map((s: { id: number }) => s.id), [made.body.data.id]);
    const back = await server.request(`/api/v2/station/${op.stationId}`, { method: 'PATCH', token: op.token, json: { set_active: 1 } });
    t.equal(back.body.data.active, true);
  });

  t.test('another owner\'s location is not found for update and delete', async (t) => {
    const patch = await server.request(`/api/v2/station/${other.stationId}`, { method: 'PATCH', token: op.token, json: { city: 'X' } });
    t.equal(patch.status, 404);
    const del = await server.request(`/api/v2/station/${other.stationId}`, { method: 'DELETE', token: op.token });
    t.equal(del.status, 404);
    t.equal((await db.query('SELECT city FROM stations WHERE id = $1', [other.stationId])).rows[0].city, '');
  });

  t.test('delete: the active location is a conflict; another goes with all its QSOs', async (t) => {
    const active = await server.request(`/api/v2/station/${op.stationId}`, { method: 'DELETE', token: op.token });
    t.equal(active.status, 409);
    t.equal(active.body.error.code, 'conflict');

    const made = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { ...home, name: 'Doomed' } });
    const stationId = made.body.data.id as number;
    const [qsoId, keptId] = await insertQsos(db, [
      { station_id: stationId, call: 'G4ABC', time_on: '2024-01-01 10:00:00' },
      { station_id: op.stationId, call: 'G4ABC', time_on: '2024-01-01 10:00:00' },
    ]);
    await db.query('INSERT INTO qsl_images (qso_id, filename) VALUES ($1, $2)', [qsoId, 'card.jpg']);
    await db.query('INSERT INTO oqrs_requests (qso_id, requester) VALUES ($1, $2)', [qsoId, 'G4ABC']);
    const session = await db.query<{ id: number }>(
      `INSERT INTO contest_sessions (user_id, station_id, contest, time_start) VALUES ($1, $2, 'CQ-WW-SSB', now()) RETURNING id`,
      [op.userId, stationId],
    );
    await db.query('INSERT INTO contest_session_qsos (session_id, qso_id) VALUES ($1, $2)', [session.rows[0]!.id, qsoId]);
    const logbook = await db.query<{ id: number }>(`INSERT INTO logbooks (user_id, name) VALUES ($1, 'Book') RETURNING id`, [op.userId]);
    await db.query('INSERT INTO logbook_stations (logbook_id, station_id) VALUES ($1, $2), ($1, $3)', [logbook.rows[0]!.id, stationId, op.stationId]);

    const res = await server.request(`/api/v2/station/${stationId}`, { method: 'DELETE', token: op.token });
    t.equal(res.status, 204);
    t.equal(res.text, '');
    const count = async (sql: string, params: unknown[]) => (await db.query<{ n: number }>(sql, params)).rows[0]!.n;
    t.equal(await count('SELECT count(*)::int AS n FROM stations WHERE id = $1', [stationId]), 0);
    t.equal(await count('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [stationId]), 0);
    t.equal(await count('SELECT count(*)::int AS n FROM qsl_images WHERE qso_id = $1', [qsoId]), 0);
    t.equal(await count('SELECT count(*)::int AS n FROM oqrs_requests WHERE qso_id = $1', [qsoId]), 0);
    t.equal(await count('SELECT count(*)::int AS n FROM contest_sessions WHERE station_id = $1', [stationId]), 0);
    t.equal(await count('SELECT count(*)::int AS n FROM logbook_stations WHERE logbook_id = $1', [logbook.rows[0]!.id]), 1);
    t.equal(await count('SELECT count(*)::int AS n FROM qso WHERE id = $1', [keptId]), 1, 'other locations keep their QSOs');
    t.equal((await server.request(`/api/v2/station/${stationId}`, { method: 'DELETE', token: op.token })).status, 404);
  });

  t.test('verbs: no PUT, no POST on an item', async (t) => {
    const put = await server.request('/api/v2/station/1', { method: 'PUT', token: op.token, json: {} });
    t.equal(put.status, 405);
    t.equal(put.headers.get('allow'), 'GET, POST, PATCH, DELETE');
    const postItem = await server.request(`/api/v2/station/${op.stationId}`, { method: 'POST', token: op.token, json: {} });
    t.equal(postItem.status, 405);
    t.equal(postItem.headers.get('allow'), 'GET, PATCH, DELETE');
  });

  t.test('scopes per verb', async (t) => {
    const reader = await createOperator(db, { scopes: ['station:read'] });
    const none = await createOperator(db, { scopes: ['qso:read'] });
    const cases: [string, string, string, unknown?][] = [
      [none.token, 'GET', '/api/v2/station', undefined],
      [reader.token, 'POST', '/api/v2/station', home],
      [reader.token, 'PATCH', `/api/v2/station/${reader.stationId}`, { city: 'x' }],
      [reader.token, 'DELETE', `/api/v2/station/${reader.stationId}`, undefined],
    ];
    const required = ['station:read', 'station:write', 'station:write', 'station:delete'];
    for (const [i, [token, method, path, json]] of cases.entries()) {
      const res = await server.request(path, { method, token, json });
      t.equal(res.status, 403, `${method} ${path}`);
      t.equal(res.body.error.code, 'insufficient_scope');
      t.same(res.body.error.details, { required_scope: required[i] });
    }
    t.equal((await server.request('/api/v2/station', { token: reader.token })).status, 200);
  });

  t.test('club tokens: members read the club\'s locations, only officers write', async (t) => {
    const club = await createClub(db);
    const member = await club.memberToken(3);
    const officer = await club.memberToken(9);
    const list = await server.request('/api/v2/station', { token: member.token });
    t.equal(list.status, 200);
    t.same(list.body.data.map((s: { id: number }) => s.id), [club.clubStationId]);
    const attempts: [string, string, unknown?][] = [
      ['POST', '/api/v2/station', { ...home, name: 'Field day' }],
      ['PATCH', `/api/v2/station/${club.clubStationId}`, { city: 'x' }],
      ['DELETE', `/api/v2/station/${club.clubStationId}`],
    ];
    for (const [method, path, json] of attempts) {
      const res = await server.request(path, { method, token: member.token, json });
      t.equal(res.status, 403, method);
      t.equal(res.body.error.code, 'insufficient_club_permission');
      t.same(res.body.error.details, { required_level: 9, granted_level: 3 });
    }
    const made = await server.request('/api/v2/station', { method: 'POST', token: officer.token, json: { ...home, name: 'Field day' } });
    t.equal(made.status, 201);
    t.equal((await db.query('SELECT user_id FROM stations WHERE id = $1', [made.body.data.id])).rows[0].user_id, club.clubId);
    const del = await server.request(`/api/v2/station/${made.body.data.id}`, { method: 'DELETE', token: officer.token });
    t.equal(del.status, 204);
  });
});
