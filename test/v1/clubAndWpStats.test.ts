import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createUser } from '../../lib/accounts/users.js';
import { createStation } from '../../lib/accounts/stations.js';
import { removeClubMember } from '../../lib/accounts/clubs.js';
import { bothPaths, insertQso, post, v1Key } from './helpers.js';

t.test('list_clubmembers', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const club = await createClub(db, 'DL0ABC');
  const officer = await club.memberToken(9, 'DL1OFF');
  const member = await club.memberToken(3, 'DL2MEM');
  const officerKey = await v1Key(db, club.clubId, 'r', officer.userId);

  t.test('an officer key lists the members with string levels', async (t) => {
    for (const path of bothPaths('list_clubmembers')) {
      const res = await post(server, path, { key: officerKey });
      t.equal(res.status, 200, path);
      t.equal(res.body.status, 'successful');
      t.same(res.body.members.map((m: { callsign: string; p_level: string }) => [m.callsign, m.p_level]), [['DL1OFF', '9'], ['DL2MEM', '3']]);
      t.match(res.body.members[0].user_name, /^member/);
    }
  });

  t.test('not an officer, a personal key, a bad key, wrong JSON', async (t) => {
    const memberKey = await v1Key(db, club.clubId, 'rw', member.userId);
    const personal = await v1Key(db, officer.userId, 'rw');
    for (const key of [memberKey, personal]) {
      const res = await post(server, '/api/list_clubmembers', { key });
      t.equal(res.status, 401);
      t.same(res.body, { status: 'error', message: 'Auth Error, not enough permissions for this operation' });
    }
    const bad = await post(server, '/api/list_clubmembers', { key: 'wl0123456789abc' });
    t.equal(bad.status, 401);
    t.same(bad.body, { status: 'error', message: 'Auth Error, invalid key' });
    const wrong = await post(server, '/api/list_clubmembers', 'key=abc');
    t.equal(wrong.status, 400);
    t.same(wrong.body, { status: 'failed', reason: 'wrong JSON' });
  });

  t.test('a club key stops working when its creator leaves the club', async (t) => {
    const leaving = await club.memberToken(9, 'DL3BYE');
    const key = await v1Key(db, club.clubId, 'rw', leaving.userId);
    t.equal((await post(server, '/api/list_clubmembers', { key })).status, 200);
    await removeClubMember(db, club.clubId, leaving.userId);
    const res = await post(server, '/api/list_clubmembers', { key });
    t.equal(res.status, 401);
    t.same(res.body, { status: 'error', message: 'Auth Error, invalid key' });
  });

  t.test('no members: an administrator acting as officer of an empty club', async (t) => {
    const empty = await createUser(db, { username: 'emptyclub', callsign: 'DL0EMP', isClub: true });
    const admin = await createUser(db, { username: 'admin', callsign: 'DL9ADM', isAdmin: true });
    const key = await v1Key(db, empty, 'rw', admin);
    const res = await post(server, '/api/list_clubmembers', { key });
    t.equal(res.status, 200);
    t.same(res.body, { status: 'failed', reason: 'No club members found', members: '' });
  });
});

t.test('get_wp_stats', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL4WPS' });
  const key = await v1Key(db, op.userId, 'r');
  const year = new Date().getUTCFullYear();
  await insertQso(db, { station_id: op.stationId, call: 'G1A', time_on: `${year}-01-01 00:00:00`, mode: 'SSB', submode: 'USB' });
  await insertQso(db, { station_id: op.stationId, call: 'G1B', time_on: `${year}-01-01 00:01:00`, mode: 'SSB', submode: 'USB' });
  await insertQso(db, { station_id: op.stationId, call: 'G1C', time_on: `${year - 1}-12-31 23:59:59`, mode: 'FT8' });
  const second = await createStation(db, { userId: op.userId, name: 'Second', callsign: 'DL4WPS' });
  await insertQso(db, { station_id: second, call: 'G1D', time_on: `${year}-02-01 00:00:00`, mode: 'CW' });

  t.test('counts as strings, this UTC year, grouped modes with null submodes', async (t) => {
    for (const [path, stationId] of [['/api/get_wp_stats', op.stationId], ['/index.php/api/get_wp_stats/', String(op.stationId)]] as const) {
      const res = await post(server, path, { key, station_id: stationId });
      t.equal(res.status, 200);
      t.same(res.body, {
        status: 'successful',
        message: 'Export successful',
        statistics: {
          totalalltime: [{ count: '3' }],
          totalthisyear: [{ count: '2' }],
          totalgroupedmodes: [{ count: '2', col_mode: 'SSB', col_submode: 'USB' }, { count: '1', col_mode: 'FT8', col_submode: null }],
        },
      });
    }
  });

  t.test('errors', async (t) => {
    const wrong = await post(server, '/api/get_wp_stats', '{');
    t.equal(wrong.status, 400);
    t.same(wrong.body, { status: 'failed', reason: 'wrong JSON' });
    const bad = await post(server, '/api/get_wp_stats', { key: 'nope', station_id: op.stationId });
    t.equal(bad.status, 401);
    t.same(bad.body, { status: 'failed', reason: 'missing or wrong api key' });
    for (const stationId of [undefined, 'abc', null, [1]]) {
      const res = await post(server, '/api/get_wp_stats', { key, station_id: stationId });
      t.equal(res.status, 400);
      t.same(res.body, { status: 'failed', reason: 'Invalid station_id.' });
    }
    const other = await createOperator(db);
    for (const stationId of [other.stationId, 99999999999, 0]) {
      const res = await post(server, '/api/get_wp_stats', { key, station_id: stationId });
      t.equal(res.status, 401);
      t.same(res.body, { status: 'failed', reason: 'Station ID not accessible for this API key' });
    }
  });
});
