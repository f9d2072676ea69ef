import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createStation } from '../../lib/accounts/stations.js';
import { contestResource } from '../../lib/http/v2/resources/contest/index.js';
import { insertQsos } from '../helpers/qsoRows.js';

const DATETIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

t.test('contest resource', async (t) => {
  const server = await startTestServer(t, { resources: [contestResource] });
  const db = server.db.pool;
  const op = await createOperator(db);
  const second = await createStation(db, { userId: op.userId, name: 'Second', callsign: op.callsign });
  const other = await createOperator(db);
  const [q1, q2, q3, q4, foreignQso] = await insertQsos(db, [
    { station_id: op.stationId, call: 'DL1AA', time_on: '2024-10-26 10:00:00' },
    { station_id: op.stationId, call: 'DL1BB', time_on: '2024-10-26 10:01:00' },
    { station_id: op.stationId, call: 'DL1CC', time_on: '2024-10-26 10:02:00' },
    { station_id: second, call: 'DL1DD', time_on: '2024-10-26 10:03:00' },
    { station_id: other.stationId, call: 'DL1EE', time_on: '2024-10-26 10:04:00' },
  ]) as [number, number, number, number, number];
  const post = (json: unknown, token = op.token) => server.request('/api/v2/contest', { method: 'POST', token, json });
  const patch = (id: number, json: unknown, token = op.token) => server.request(`/api/v2/contest/${id}`, { method: 'PATCH', token, json });
  const contestIdOf = async (id: number) => (await db.query('SELECT contest_id FROM qso WHERE id = $1', [id])).rows[0].contest_id;
  const sessionCount = async () => (await db.query('SELECT count(*)::int AS n FROM contest_sessions')).rows[0].n;
  let wwId = 0;
  let wagId = 0;

  t.test('create: defaults, derived exchangetype, catalogue name, Location', async (t) => {
    const res = await post({ contest: 'cq-ww-ssb', station_id: op.stationId, time_start: '2024-10-26 00:00' });
    t.equal(res.status, 201);
    wwId = res.body.data.id;
    t.equal(res.headers.get('location'), `/api/v2/contest/${wwId}`);
    t.same(Object.keys(res.body.data), [
      'id', 'contest', 'contest_name', 'time_start', 'time_end', 'station_id', 'comment', 'settings', 'qso_count', 'created_at', 'updated_at',
    ]);
    t.match(res.body.data, {
      contest: 'CQ-WW-SSB', contest_name: 'CQ WW DX Contest (SSB)', time_start: '2024-10-26 00:00:00', time_end: null,
      station_id: op.stationId, comment: '', qso_count: 0,
    });
    t.same(res.body.data.settings, {
      exchangefields: ['serial'], copyexchangeto: '', callbook_lookup: true, custom_name: '', serial_per_band: false, serial_scope: 'station',
      exchangetype: 'Serial',
    });
    t.match(res.body.data.created_at, DATETIME);
    t.match(res.body.data.updated_at, DATETIME);
  });

  t.test('create: settings as top-level members, QSOs linked at once', async (t) => {
    const res = await post({
      contest: 'DARC-WAG', station_id: op.stationId, time_start: '2024-10-19T15:00:00Z', time_end: '2024-10-20 14:59:59', comment: 'WAG',
      exchangefields: 'serial, Exchange', copyexchangeto: 'dok', callbook_lookup: false, serial_per_band: 'true', serial_scope: 'operator',
      custom_name: 'WAG 2024', link_qso_ids: `${q1},${q2}`,
    });
    t.equal(res.status, 201);
    wagId = res.body.data.id;
    t.match(res.body.data, { contest: 'DARC-WAG', time_start: '2024-10-19 15:00:00', time_end: '2024-10-20 14:59:59', comment: 'WAG', qso_count: 2, linked: 2, skipped: [] });
    t.same(res.body.data.settings, {
      exchangefields: ['serial', 'exchange'], copyexchangeto: 'dok', callbook_lookup: false, custom_name: 'WAG 2024', serial_per_band: true,
      serial_scope: 'operator', exchangetype: 'Serialexchange',
    });
    t.equal(await contestIdOf(q1), 'DARC-WAG');
    t.equal(await contestIdOf(q2), 'DARC-WAG');
  });

  t.test('create: validation', async (t) => {
    const before = await sessionCount();
    const missing = await post({ comment: 'x' });
    t.equal(missing.status, 400);
    t.same(missing.body.error.details, { missing: ['contest', 'station_id', 'time_start'] });
    const base = { contest: 'CQ-WW-CW', station_id: op.stationId, time_start: '2024-11-23 00:00' };
    const cases: [Record<string, unknown>, string][] = [
      [{ contest: 'NOT-A-CONTEST' }, 'contest'],
      [{ time_start: '2024-11-23' }, 'time_start'],
      [{ time_start: '2024-02-30 00:00' }, 'time_start'],
      [{ time_end: '2024-11-22 23:59' }, 'time_end'],
      [{ station_id: 'abc' }, 'station_id'],
      [{ exchangefields: 'serial,rst' }, 'exchangefields'],
      [{ exchangefields: '' }, 'exchangefields'],
      [{ copyexchangeto: 'email' }, 'copyexchangeto'],
      [{ serial_scope: 'band' }, 'serial_scope'],
      [{ callbook_lookup: 'maybe' }, 'callbook_lookup'],
      [{ link_qso_ids: '1;2' }, 'link_qso_ids'],
      [{ unlink_qso_ids: `${q3}` }, 'unlink_qso_ids'],
      [{ exchangetype: 'Serial' }, 'exchangetype'],
      [{ settings: { exchangefields: ['serial'] } }, 'settings'],
    ];
    for (const [change, field] of cases) {
      const res = await post({ ...base, ...change });
      t.equal(res.status, 400, JSON.stringify(change));
      t.equal(res.body.error.code, 'validation_error');
      t.equal(res.body.error.details.field, field, JSON.stringify(change));
    }
    const foreignStation = await post({ ...base, station_id: other.stationId });
    t.equal(foreignStation.status, 403);
    t.equal(foreignStation.body.error.code, 'forbidden');
    t.same(foreignStation.body.error.details, { station_id: other.stationId });
    const foreignLink = await post({ ...base, link_qso_ids: `${q3},${foreignQso},999999` });
    t.equal(foreignLink.status, 404);
    t.equal(foreignLink.body.error.code, 'not_found');
    t.same(foreignLink.body.error.details, { field: 'link_qso_ids', qso_ids: [foreignQso, 999999] });
    t.equal(await sessionCount(), before, 'nothing created');
    t.equal(await contestIdOf(q3), null);
  });

  t.test('list: newest first, station and since_id filters; show adds qso_ids', async (t) => {
    const onSecond = await post({ contest: 'IARU-HF', station_id: second, time_start: '2024-07-13 12:00' });
    const list = await server.request('/api/v2/contest', { token: op.token });
    t.equal(list.status, 200);
    t.same(list.body.data.map((s: { id: number }) => s.id), [wwId, wagId, onSecond.body.data.id]);
    t.equal(list.body.meta.count, 3);
    const filtered = await server.request(`/api/v2/contest?station_id=${second}`, { token: op.token });
    t.same(filtered.body.data.map((s: { id: number }) => s.id), [onSecond.body.data.id]);
    const since = await server.request(`/api/v2/contest?since_id=${wwId}`, { token: op.token });
    t.same(since.body.data.map((s: { id: number }) => s.id), [wagId, onSecond.body.data.id]);
    const foreign = await server.request(`/api/v2/contest?station_id=${other.stationId}`, { token: op.token });
    t.equal(foreign.status, 403);
    t.same((await server.request('/api/v2/contest', { token: other.token })).body.data, []);

    const show = await server.request(`/api/v2/contest/${wagId}`, { token: op.token });
    t.equal(show.status, 200);
    t.same(show.body.data.qso_ids, [q1, q2]);
    t.same({ ...show.body.data, qso_ids: undefined }, { ...list.body.data[1], qso_ids: undefined });
    t.equal((await server.request(`/api/v2/contest/${wagId}`, { token: other.token })).status, 404);
  });

  t.test('update: fields, merged settings, link, skip, unlink', async (t) => {
    const edited = await patch(wwId, { comment: 'Main run', time_end: '2024-10-27 23:59', exchangefields: 'gridsquare,exchange' });
    t.equal(edited.status, 200);
    t.match(edited.body.data, { comment: 'Main run', time_end: '2024-10-27 23:59:00', qso_count: 0 });
    t.match(edited.body.data.settings, { exchangefields: ['gridsquare', 'exchange'], exchangetype: 'Exchangegridsquare', serial_scope: 'station' });
    t.notOk('linked' in edited.body.data);

    const linked = await patch(wwId, { link_qso_ids: `${q1}, ${q3}, ${q4}` });
    t.match(linked.body.data, { linked: 2, skipped: [q1], qso_count: 2 });
    t.equal(await contestIdOf(q3), 'CQ-WW-SSB');
    t.equal(await contestIdOf(q1), 'DARC-WAG', 'a QSO of another session keeps its contest');
    const again = await patch(wwId, { link_qso_ids: `${q3}` });
    t.match(again.body.data, { linked: 0, skipped: [], qso_count: 2 });

    const unlinked = await patch(wagId, { unlink_qso_ids: `${q2},${q3}` });
    t.match(unlinked.body.data, { unlinked: 1, qso_count: 1 });
    t.notOk('linked' in unlinked.body.data);
    t.equal(await contestIdOf(q2), null);
    t.equal(await contestIdOf(q3), 'CQ-WW-SSB', 'only links of this session are removed');

    const renamed = await patch(wwId, { contest: 'CQ-WW-CW' });
    t.equal(renamed.body.data.contest_name, 'CQ WW DX Contest (CW)');
    t.equal(await contestIdOf(q3), 'CQ-WW-CW');
    t.equal(await contestIdOf(q4), 'CQ-WW-CW');
    t.same((await server.request(`/api/v2/contest/${wwId}`, { token: op.token })).body.data.qso_ids, [q3, q4]);
  });

  t.test('update: errors leave the session unchanged', async (t) => {
    const nothing = await patch(wwId, { link_qso_ids: '' });
    t.equal(nothing.status, 400);
    t.equal(nothing.body.error.code, 'validation_error');
    const cleared = await patch(wwId, { contest: '', time_start: null });
    t.same(cleared.body.error.details, { fields: ['contest', 'time_start'] });
    const backwards = await patch(wwId, { time_start: '2024-10-28 00:00' });
    t.equal(backwards.body.error.details.field, 'time_end');
    const invisible = await patch(wwId, { comment: 'lost', unlink_qso_ids: `${foreignQso}` });
    t.equal(invisible.status, 404);
    t.same(invisible.body.error.details, { field: 'unlink_qso_ids', qso_ids: [foreignQso] });
    const foreignStation = await patch(wwId, { station_id: other.stationId });
    t.equal(foreignStation.status, 403);
    const notMine = await patch(wwId, { comment: 'mine' }, other.token);
    t.equal(notMine.status, 404);
    const unchanged = await server.request(`/api/v2/contest/${wwId}`, { token: op.token });
    t.match(unchanged.body.data, { comment: 'Main run', station_id: op.stationId, time_start: '2024-10-26 00:00:00' });
  });

  t.test('delete: links go, QSOs stay unless delete_qsos=true (which needs qso:delete)', async (t) => {
    const keep = await server.request(`/api/v2/contest/${wagId}`, { method: 'DELETE', token: op.token });
    t.equal(keep.status, 204);
    t.equal(keep.text, '');
    t.equal(await contestIdOf(q1), 'DARC-WAG', 'the QSO stays, with its CONTEST_ID');
    t.equal((await db.query('SELECT count(*)::int AS n FROM contest_session_qsos WHERE qso_id = $1', [q1])).rows[0].n, 0);

    const bad = await server.request(`/api/v2/contest/${wwId}?delete_qsos=perhaps`, { method: 'DELETE', token: op.token });
    t.equal(bad.status, 400);
    t.equal(bad.body.error.details.field, 'delete_qsos');
    const limited = await createOperator(db, { scopes: ['contest:delete', 'contest:read'] });
    const own = await post({ contest: 'CQ-WPX-SSB', station_id: limited.stationId, time_start: '2024-03-30 00:00' }, op.token);
    t.equal(own.status, 403, 'another owner\'s station');
    const noQsoScope = await server.request(`/api/v2/contest/${wwId}?delete_qsos=true`, { method: 'DELETE', token: limited.token });
    t.equal(noQsoScope.status, 403);
    t.same(noQsoScope.body.error.details, { required_scope: 'qso:delete' });
    t.equal((await server.request(`/api/v2/contest/${wwId}`, { method: 'DELETE', token: other.token })).status, 404);

    await db.query('INSERT INTO qsl_images (qso_id, filename) VALUES ($1, $2)', [q3, 'card.png']);
    const all = await server.request(`/api/v2/contest/${wwId}?delete_qsos=true`, { method: 'DELETE', token: op.token });
    t.equal(all.status, 204);
    const remaining = await db.query('SELECT id FROM qso WHERE id = ANY($1::bigint[]) ORDER BY id', [[q1, q2, q3, q4, foreignQso]]);
    t.same(remaining.rows.map((r) => r.id), [q1, q2, foreignQso]);
    t.equal((await db.query('SELECT count(*)::int AS n FROM qsl_images WHERE qso_id = $1', [q3])).rows[0].n, 0);
    t.equal((await server.request(`/api/v2/contest/${wwId}`, { method: 'DELETE', token: op.token })).status, 404);
  });

  t.test('verbs and scopes', async (t) => {
    const put = await server.request('/api/v2/contest/1', { method: 'PUT', token: op.token, json: {} });
    t.equal(put.status, 405);
    t.equal(put.headers.get('allow'), 'GET, POST, PATCH, DELETE');
    const reader = await createOperator(db, { scopes: ['contest:read'] });
    const writer = await createOperator(db, { scopes: ['contest:write'] });
    const cases: [string, string, string, unknown, string][] = [
      [writer.token, 'GET', '/api/v2/contest', undefined, 'contest:read'],
      [reader.token, 'POST', '/api/v2/contest', {}, 'contest:write'],
      [reader.token, 'PATCH', '/api/v2/contest/1', { comment: 'x' }, 'contest:write'],
      [writer.token, 'DELETE', '/api/v2/contest/1', undefined, 'contest:delete'],
    ];
    for (const [token, method, path, json, scope] of cases) {
      const res = await server.request(path, { method, token, json });
      t.equal(res.status, 403, method);
      t.equal(res.body.error.code, 'insufficient_scope');
      t.same(res.body.error.details, { required_scope: scope });
    }
  });

  t.test('club tokens: officers write; members read and count only their own QSOs', async (t) => {
    const club = await createClub(db);
    const member = await club.memberToken(3, 'DL8MEM');
    const officer = await club.memberToken(9, 'DL8OFF');
    const [mine, theirs] = await insertQsos(db, [
      { station_id: club.clubStationId, call: 'OK1AA', time_on: '2024-06-01 10:00:00', operator: 'DL8MEM' },
      { station_id: club.clubStationId, call: 'OK1BB', time_on: '2024-06-01 10:05:00', operator: 'DL8OFF' },
    ]) as [number, number];
    for (const [method, path, json] of [
      ['POST', '/api/v2/contest', { contest: 'IARU-HF', station_id: club.clubStationId, time_start: '2024-07-13 12:00' }],
      ['PATCH', '/api/v2/contest/1', { comment: 'x' }],
      ['DELETE', '/api/v2/contest/1', undefined],
    ] as const) {
      const res = await server.request(path, { method, token: member.token, json });
      t.equal(res.status, 403, method);
      t.equal(res.body.error.code, 'insufficient_club_permission');
      t.same(res.body.error.details, { required_level: 9, granted_level: 3 });
    }
    const made = await post({ contest: 'IARU-HF', station_id: club.clubStationId, time_start: '2024-07-13 12:00', link_qso_ids: `${mine},${theirs}` }, officer.token);
    t.equal(made.status, 201);
    t.equal(made.body.data.linked, 2);
    const memberView = await server.request(`/api/v2/contest/${made.body.data.id}`, { token: member.token });
    t.equal(memberView.status, 200);
    t.equal(memberView.body.data.qso_count, 1);
    t.same(memberView.body.data.qso_ids, [mine]);
    const memberList = await server.request('/api/v2/contest', { token: member.token });
    t.same(memberList.body.data.map((s: { qso_count: number }) => s.qso_count), [1]);
    const officerView = await server.request(`/api/v2/contest/${made.body.data.id}`, { token: officer.token });
    t.same(officerView.body.data.qso_ids, [mine, theirs]);
  });
});
