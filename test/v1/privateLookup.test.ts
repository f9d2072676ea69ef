import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createUser } from '../../lib/accounts/users.js';
import { createStation } from '../../lib/accounts/stations.js';
import { bothPaths, insertQso, post, v1Key } from './helpers.js';

t.test('api/private_lookup', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL2LKP' });
  const key = await v1Key(db, op.userId, 'r');
  const portable = await createStation(db, { userId: op.userId, name: 'Portable', callsign: 'DL2LKP/P' });
  await insertQso(db, {
    station_id: op.stationId, call: 'G4ABC', time_on: '2024-01-01 10:00:00', band: '20m', mode: 'SSB', submode: 'USB', dxcc: 223,
    name: 'John', qth: 'London', gridsquare: 'IO91WM', qsl_via: 'BURO', qsl_rcvd: 'Y',
  });
  await insertQso(db, { station_id: portable, call: 'G4ABC', time_on: '2024-02-01 10:00:00', band: '40m', mode: 'CW', dxcc: 223, name: 'Johnny' });

  t.test('worked and confirmed flags by band and mode, DXCC from the prefix table, pretty-printed', async (t) => {
    for (const path of bothPaths('private_lookup')) {
      const res = await post(server, path, { key, callsign: 'g4abc', band: '20m', mode: 'USB', callbook: true });
      t.equal(res.status, 200);
      t.match(res.text, /^\{\n {4}"callsign": "G4ABC",\n/);
      t.match(res.body, {
        callsign: 'G4ABC', dxcc: 'ENGLAND', dxcc_id: '223', cont: 'EU', dxcc_cqz: '14', name: 'Johnny', location: 'London',
        gridsquare: 'IO91WM', qsl_manager: 'BURO', call_worked: true, call_worked_band: true, call_worked_band_mode: true,
        call_confirmed: true, call_confirmed_band: true, call_confirmed_band_mode: true, dxcc_confirmed: true,
        dxcc_confirmed_on_band: true, dxcc_confirmed_on_band_mode: true, lotw_member: false, suffix_slash: '',
      });
      t.notOk('callbook' in res.body, 'no callbook lookup is made');
      for (const member of ['dxcc_lat', 'dxcc_long', 'dxcc_flag', 'iota_ref', 'state', 'us_county', 'bearing']) t.type(res.body[member], 'string', member);
    }
  });

  t.test('without band the band flags are false; without mode the band/mode flags are false', async (t) => {
    const noBand = await post(server, '/api/private_lookup', { key, callsign: 'G4ABC', mode: 'USB' });
    t.match(noBand.body, { call_worked: true, call_worked_band: false, call_worked_band_mode: false, dxcc_confirmed: true, dxcc_confirmed_on_band: false });
    const noMode = await post(server, '/api/private_lookup', { key, callsign: 'G4ABC', band: '40m' });
    t.match(noMode.body, { call_worked_band: true, call_worked_band_mode: false, call_confirmed_band: false });
  });

  t.test('station_ids: partly granted narrows, wholly foreign or a string means all', async (t) => {
    const foreign = await createOperator(db);
    const narrowed = await post(server, '/api/private_lookup', { key, callsign: 'G4ABC', band: '40m', station_ids: [op.stationId, foreign.stationId] });
    t.match(narrowed.body, { call_worked: true, call_worked_band: false, name: 'John' });
    for (const stationIds of [[foreign.stationId], String(portable), ['x']]) {
      const res = await post(server, '/api/private_lookup', { key, callsign: 'G4ABC', band: '40m', station_ids: stationIds });
      t.match(res.body, { call_worked_band: true, name: 'Johnny' }, JSON.stringify(stationIds));
    }
    const portableOnly = await post(server, '/api/private_lookup', { key, callsign: 'G4ABC', station_ids: [String(portable)] });
    t.match(portableOnly.body, { call_confirmed: false, dxcc_confirmed: false });
  });

  t.test('never worked, a portable suffix, a club member below officer level', async (t) => {
    const unknown = await post(server, '/api/private_lookup', { key, callsign: 'K1ABC/P' });
    t.match(unknown.body, { callsign: 'K1ABC/P', dxcc: 'UNITED STATES OF AMERICA', call_worked: false, name: '', suffix_slash: 'Portable' });
    const club = await createClub(db);
    const member = await club.memberToken(3, 'DL3MBR');
    await insertQso(db, { station_id: club.clubStationId, call: 'F5ABC', time_on: '2024-01-01 00:00:00', operator: 'DL9OTH' });
    const memberKey = await v1Key(db, club.clubId, 'r', member.userId);
    const res = await post(server, '/api/private_lookup', { key: memberKey, callsign: 'F5ABC' });
    t.equal(res.body.call_worked, false, 'another operator\'s QSO is not visible');
  });

  t.test('the entity as the original gives it: ADIF name in capitals, flag emoji, entity position; latlng of the worked grid', async (t) => {
    const lookup = async (callsign: string) => post(server, '/api/private_lookup', { key, callsign });
    const england = await lookup('G4ABC');
    t.match(england.body, { dxcc: 'ENGLAND', dxcc_id: '223', dxcc_flag: '\u{1f3f4}\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}', dxcc_lat: '52.77', dxcc_long: '-1.47' });
    t.strictSame(england.body.latlng, [51.520833, -0.125], 'the centre of IO91WM, the grid a QSO gave');
    const germany = await lookup('DL1ABC');
    t.match(germany.body, { dxcc: 'FEDERAL REPUBLIC OF GERMANY', dxcc_flag: '\u{1f1e9}\u{1f1ea}', dxcc_lat: '51', dxcc_long: '10', call_worked: false });
    t.notOk('latlng' in germany.body, 'no grid known, no latlng');
    t.match(germany.text, /"dxcc_flag": "\\ud83c\\udde9\\ud83c\\uddea"/, 'escaped as json_encode does');
    // Sicily's prefix row has its own position; the entity (Italy) has another.
    t.match((await lookup('IT9ABC')).body, { dxcc: 'ITALY', dxcc_id: '248', dxcc_lat: '42.82', dxcc_long: '12.58', dxcc_flag: '\u{1f1ee}\u{1f1f9}' });
    t.match((await lookup('K1ABC')).body, { dxcc: 'UNITED STATES OF AMERICA', dxcc_flag: '\u{1f1fa}\u{1f1f8}' });
    t.match((await lookup('EA8ABC')).body, { dxcc: 'CANARY IS.', dxcc_flag: '\u{1f1ea}\u{1f1f8}' }, 'a territory flies its country\'s flag');
    t.match((await lookup('QQ1ABC')).body, { dxcc: '', dxcc_flag: '', dxcc_lat: '' });
  });

  t.test('error answers', async (t) => {
    for (const body of [{ callsign: 'G4ABC' }, { key: 'nope', callsign: 'G4ABC' }, '{"key":']) {
      const res = await post(server, '/api/private_lookup', body);
      t.equal(res.status, 401);
      t.same(res.body, { status: 'failed', reason: 'missing api key or session' });
    }
    const noStations = await createUser(db, { username: 'nostations', callsign: 'DL0NOS' });
    const res = await post(server, '/api/private_lookup', { key: await v1Key(db, noStations, 'r'), callsign: 'G4ABC' });
    t.equal(res.status, 200);
    t.same(res.body, { status: 'failed', reason: 'no station_profiles are matching the User with this API-Key' });
    for (const callsign of [undefined, '', ['G4ABC']]) {
      const none = await post(server, '/api/private_lookup', { key, callsign });
      t.equal(none.status, 200);
      t.same(none.body, { error: 'callsign to lookup not given' });
    }
  });
});
