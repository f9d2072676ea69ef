import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { parseAdif } from '../../lib/adif/tokenizer.js';
import { insertQsos } from '../helpers/qsoRows.js';
import { idsOf } from './helpers.js';

const exportedCalls = (adif: string | null) => (adif === null ? [] : parseAdif(adif).records.map((r) => r.fields.CALL));

t.test('two users never reach each other\'s QSOs', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const alice = await createOperator(db, { callsign: 'DL1ALC' });
  const bob = await createOperator(db, { callsign: 'DL2BOB' });
  const [aliceQso] = await insertQsos(db, [{ station_id: alice.stationId, call: 'K1ALC', time_on: '2024-01-01 10:00:00' }]);
  const [bobQso] = await insertQsos(db, [{ station_id: bob.stationId, call: 'K1BOB', time_on: '2024-01-01 11:00:00' }]);
  const as = (token: string) => ({
    get: (path: string) => server.request(path, { token }),
    send: (method: string, path: string, json?: unknown) => server.request(path, { method, token, json }),
  });
  const b = as(bob.token);

  t.same(idsOf((await b.get('/api/v2/qso')).body), [bobQso], 'list: own QSOs only');
  t.equal((await b.get('/api/v2/qso')).body.meta.total, 1, 'total counts own QSOs only');
  t.same(idsOf((await b.get('/api/v2/qso?since_id=0')).body), [bobQso], 'since_id reveals nothing more');
  t.same(idsOf((await b.get(`/api/v2/qso?since_id=${aliceQso! - 1}`)).body), [bobQso]);
  t.same(idsOf((await b.get('/api/v2/qso?callsign=K1ALC')).body), [], 'a foreign callsign finds nothing');
  const foreignStation = await b.get(`/api/v2/qso?station_id=${alice.stationId}`);
  t.equal(foreignStation.status, 403);
  t.equal(foreignStation.body.error.code, 'forbidden');
  const adifForeign = await b.get(`/api/v2/qso?format=adif&station_id=${alice.stationId}`);
  t.equal(adifForeign.status, 403);
  t.same(exportedCalls((await b.get('/api/v2/qso?format=adif')).body.data.adif), ['K1BOB'], 'export: own QSOs only');

  for (const [method, json] of [['GET', undefined], ['PATCH', { comment: 'x' }], ['DELETE', undefined]] as const) {
    const res = await b.send(method, `/api/v2/qso/${aliceQso}`, json);
    t.equal(res.status, 404, `${method} of a foreign QSO`);
    t.equal(res.body.error.code, 'not_found');
  }
  const moveInto = await b.send('PATCH', `/api/v2/qso/${bobQso}`, { station_profile_id: alice.stationId });
  t.equal(moveInto.status, 403, 'moving a QSO into a foreign location is forbidden');
  const createInto = await b.send('POST', '/api/v2/qso', {
    station_profile_id: alice.stationId, call: 'K1INT', band: '20m', mode: 'CW', qso_date: '2024-01-02', time_on: '1200',
  });
  t.equal(createInto.status, 403);
  const { rows } = await db.query('SELECT id, station_id, comment FROM qso ORDER BY id');
  t.same(rows, [
    { id: aliceQso, station_id: alice.stationId, comment: null },
    { id: bobQso, station_id: bob.stationId, comment: null },
  ], 'nothing changed');
});

t.test('club tokens: members below officer level see and change only what they logged', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const club = await createClub(db, 'DL0CLB');
  const member = await club.memberToken(3, 'DL3MEM');
  const adifMember = await club.memberToken(6, 'DL6ADM');
  const officer = await club.memberToken(9, 'DL9OFF');
  const [byMember, byAdifMember, byOfficer, byNobody] = await insertQsos(db, [
    { station_id: club.clubStationId, call: 'K1AAA', time_on: '2024-02-01 10:00:00', operator: 'DL3MEM' },
    { station_id: club.clubStationId, call: 'K1BBB', time_on: '2024-02-01 11:00:00', operator: 'DL6ADM' },
    { station_id: club.clubStationId, call: 'K1CCC', time_on: '2024-02-01 12:00:00', operator: 'DL9OFF' },
    { station_id: club.clubStationId, call: 'K1DDD', time_on: '2024-02-01 13:00:00', operator: null },
  ]);
  const mine: Record<string, number> = { DL3MEM: byMember!, DL6ADM: byAdifMember!, DL9OFF: byOfficer! };
  const request = (token: string, method: string, path: string, json?: unknown) => server.request(path, { method, token, json });

  for (const who of [member, adifMember]) {
    t.test(`level ${who === member ? 3 : 6}: list, total, export, get, patch, delete`, async (t) => {
      const list = await request(who.token, 'GET', '/api/v2/qso');
      t.same(idsOf(list.body), [mine[who.callsign]]);
      t.equal(list.body.meta.total, 1);
      const adif = await request(who.token, 'GET', '/api/v2/qso?format=adif');
      t.equal(adif.body.data.exported, 1);
      t.equal(adif.body.meta.total, 1);
      const others = [byMember, byAdifMember, byOfficer, byNobody].filter((id) => id !== mine[who.callsign]);
      for (const id of others) {
        t.equal((await request(who.token, 'GET', `/api/v2/qso/${id}`)).status, 404, `GET ${id}`);
        t.equal((await request(who.token, 'PATCH', `/api/v2/qso/${id}`, { comment: 'x' })).status, 404, `PATCH ${id}`);
        t.equal((await request(who.token, 'DELETE', `/api/v2/qso/${id}`)).status, 404, `DELETE ${id}`);
      }
      t.equal((await request(who.token, 'GET', `/api/v2/qso/${mine[who.callsign]}`)).status, 200);
      const own = await request(who.token, 'PATCH', `/api/v2/qso/${mine[who.callsign]}`, { comment: 'mine' });
      t.equal(own.status, 200);
      t.equal(own.body.data.comment, 'mine');
    });
  }

  t.test('officer: everything, and may delete any QSO', async (t) => {
    const list = await request(officer.token, 'GET', '/api/v2/qso');
    t.same(idsOf(list.body), [byNobody, byOfficer, byAdifMember, byMember]);
    t.equal(list.body.meta.total, 4);
    t.equal((await request(officer.token, 'GET', '/api/v2/qso?format=adif')).body.data.exported, 4);
    t.equal((await request(officer.token, 'GET', `/api/v2/qso/${byMember}`)).status, 200);
    t.equal((await request(officer.token, 'PATCH', `/api/v2/qso/${byNobody}`, { comment: 'checked' })).status, 200);
    t.equal((await request(officer.token, 'DELETE', `/api/v2/qso/${byNobody}`)).status, 204);
  });

  t.test('members own their deletes', async (t) => {
    t.equal((await request(member.token, 'DELETE', `/api/v2/qso/${byMember}`)).status, 204);
    t.equal((await db.query('SELECT 1 FROM qso WHERE id = $1', [byMember])).rowCount, 0);
  });

  t.test('create: the operator of a member below officer level is the member, on every path', async (t) => {
    const qso = (call: string, extra: Record<string, unknown> = {}) => ({ call, band: '20m', mode: 'CW', qso_date: '2024-03-01', time_on: '1200', ...extra });
    const operatorOf = async (call: string) => (await db.query('SELECT operator FROM qso WHERE call = $1', [call])).rows[0]?.operator;

    const single = await request(member.token, 'POST', '/api/v2/qso', { station_profile_id: club.clubStationId, ...qso('K2ONE', { operator: 'W1FAKE' }) });
    t.equal(single.status, 201);
    t.equal(single.body.data.operator, 'DL3MEM');
    const bulk = await request(adifMember.token, 'POST', '/api/v2/qso', {
      station_profile_id: club.clubStationId, qsos: [qso('K2TWO', { operator: 'W1FAKE' }), qso('K2THR')],
    });
    t.equal(bulk.status, 201);
    t.equal(await operatorOf('K2TWO'), 'DL6ADM');
    t.equal(await operatorOf('K2THR'), 'DL6ADM');
    const adif = await request(member.token, 'POST', '/api/v2/qso', {
      import_type: 'adif', station_profile_id: club.clubStationId,
      adif: '<CALL:5>K2FOU <QSO_DATE:8>20240301 <TIME_ON:4>1200 <BAND:3>20m <MODE:2>CW <OPERATOR:6>W1FAKE <EOR>',
    });
    t.equal(adif.status, 201);
    t.equal(await operatorOf('K2FOU'), 'DL3MEM');

    const byOfficerCreate = await request(officer.token, 'POST', '/api/v2/qso', { station_profile_id: club.clubStationId, ...qso('K2FIV', { operator: 'DL3MEM' }) });
    t.equal(byOfficerCreate.body.data.operator, 'DL3MEM', 'an officer may log for someone else');
    const memberList = await request(member.token, 'GET', '/api/v2/qso?callsign=K2FIV');
    t.same(idsOf(memberList.body), [byOfficerCreate.body.data.id], 'and the member then sees it');
  });
});

t.test('errors the dispatcher and the database produce on the QSO resource', async (t) => {
  const server = await startTestServer(t, { config: { api_rate_limits: { api_v2_qso: { requests: 3, window: 60 } } } });
  const db = server.db.pool;
  const op = await createOperator(db);
  await insertQsos(db, [{ station_id: op.stationId, call: 'K1ERR', time_on: '2024-01-01 10:00:00' }]);
  const club = await createClub(db);
  const member = await club.memberToken(3);

  const none = await server.request('/api/v2/qso');
  t.equal(none.status, 401);
  t.equal(none.body.error.code, 'unauthorized');
  const legacy = await server.request('/api/v2/qso', { token: 'wl0123456789abc' });
  t.equal(legacy.body.error.code, 'invalid_token');

  await db.query('DELETE FROM club_members WHERE club_id = $1 AND user_id = $2', [club.clubId, member.userId]);
  const revoked = await server.request('/api/v2/qso', { token: member.token });
  t.equal(revoked.status, 403);
  t.equal(revoked.body.error.code, 'club_access_revoked');

  // The column the QSO object reads is gone: an unexpected database error is a 500 without internals.
  await db.query('ALTER TABLE qso RENAME COLUMN notes TO notes_gone');
  const broken = await server.request('/api/v2/qso', { token: op.token });
  t.equal(broken.status, 500);
  t.same(broken.body, { error: { code: 'internal_error', message: 'Internal server error', details: {} } });
  await db.query('ALTER TABLE qso RENAME COLUMN notes_gone TO notes');

  t.equal((await server.request('/api/v2/qso', { token: op.token })).status, 200);
  t.equal((await server.request('/api/v2/qso', { token: op.token })).status, 200, 'the third request of the window');
  const limited = await server.request('/api/v2/qso', { token: op.token });
  t.equal(limited.status, 429);
  t.equal(limited.body.error.code, 'rate_limited');
  t.type(limited.body.error.details.retry_after, 'number');
});
