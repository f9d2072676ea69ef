import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createStation } from '../../lib/accounts/stations.js';
import { lookupResource } from '../../lib/http/v2/resources/lookup/index.js';
import { insertQsos } from '../helpers/qsoRows.js';

/** SPEC "Lookup result" fields, in its order. */
const PRIVATE_LOOKUP_FIELDS = [
  'callsign', 'dxcc', 'dxcc_id', 'dxcc_lat', 'dxcc_long', 'dxcc_cqz', 'dxcc_flag', 'cont', 'name', 'gridsquare', 'location', 'iota_ref',
  'state', 'us_county', 'qsl_manager', 'bearing', 'call_worked', 'call_worked_band', 'call_worked_band_mode', 'lotw_member',
  'dxcc_confirmed_on_band', 'dxcc_confirmed_on_band_mode', 'dxcc_confirmed', 'call_confirmed', 'call_confirmed_band',
  'call_confirmed_band_mode', 'suffix_slash',
];

const GERMANY = { dxcc: 'FEDERAL REPUBLIC OF GERMANY', dxcc_id: '230', dxcc_lat: '51', dxcc_long: '10', dxcc_cqz: '14', dxcc_flag: '\u{1f1e9}\u{1f1ea}', cont: 'EU' };

t.test('lookup resource', async (t) => {
  const server = await startTestServer(t, { resources: [lookupResource] });
  const db = server.db.pool;
  const op = await createOperator(db);
  const second = await createStation(db, { userId: op.userId, name: 'Second', callsign: op.callsign });
  const other = await createOperator(db);
  await insertQsos(db, [
    { station_id: op.stationId, call: 'DL1ABC', time_on: '2024-01-01 10:00:00', band: '20m', mode: 'SSB', submode: 'USB', dxcc: 230, name: 'Hans', gridsquare: 'JO62QM', qth: 'Berlin', qsl_via: 'DL0QSL' },
    { station_id: op.stationId, call: 'DL1ABC', time_on: '2024-02-01 10:00:00', band: '40m', mode: 'CW', dxcc: 230, name: '', gridsquare: 'JO62', lotw_qsl_rcvd: 'Y' },
    { station_id: op.stationId, call: 'DK2XX', time_on: '2024-03-01 10:00:00', band: '20m', mode: 'FT8', dxcc: 230, qsl_rcvd: 'Y' },
    { station_id: second, call: 'W1AW', time_on: '2024-04-01 10:00:00', band: '2m', mode: 'FM', prop_mode: 'SAT', dxcc: 291, gridsquare: '', vucc_grids: 'FN31,FN42' },
    // Locators that name no 4-character square: never in grid=all.
    { station_id: second, call: 'N0GRID', time_on: '2024-04-02 10:00:00', band: '2m', mode: 'FM', dxcc: 291, gridsquare: 'FN3', vucc_grids: 'FN,ZZ99' },
    { station_id: second, call: 'N0GRID', time_on: '2024-04-03 10:00:00', band: '2m', mode: 'FM', dxcc: 291, gridsquare: 'ZZ99AA' },
    { station_id: op.stationId, call: 'K1ABC', time_on: '2024-05-01 10:00:00', band: '6m', mode: 'SSB', dxcc: 291, gridsquare: 'FN20', eqsl_qsl_rcvd: 'Y', state: 'CT', cnty: 'CT,Hartford' },
    { station_id: other.stationId, call: 'G4ABC', time_on: '2024-01-01 10:00:00', band: '20m', mode: 'SSB', dxcc: 223, gridsquare: 'IO91', qsl_rcvd: 'Y' },
  ]);
  const lookup = (query: string, token = op.token) => server.request(`/api/v2/lookup?${query}`, { token });

  t.test('basic (default): DXCC from the prefix table, latest non-empty details, workedBefore', async (t) => {
    const res = await lookup('callsign=dl1abc');
    t.equal(res.status, 200);
    t.match(res.body.meta, { resource: 'lookup', type: 'callsign', detail: 'basic' });
    t.same(res.body.data, {
      callsign: 'DL1ABC', ...GERMANY, name: 'Hans', gridsquare: 'JO62', location: 'Berlin', iota_ref: '', state: '', us_county: '',
      qsl_manager: 'DL0QSL', bearing: '', workedBefore: true, lotw_member: false, suffix_slash: '',
    });
    const stateful = await lookup('callsign=K1ABC');
    t.match(stateful.body.data, { dxcc: 'UNITED STATES OF AMERICA', dxcc_id: '291', cont: 'NA', state: 'CT', us_county: 'CT,Hartford', gridsquare: 'FN20' });
    const never = await lookup('callsign=G4ABC');
    t.match(never.body.data, { dxcc: 'ENGLAND', dxcc_id: '223', workedBefore: false, name: '', gridsquare: '' }, 'another owner\'s QSO is invisible');
  });

  t.test('full: the private_lookup shape with worked/confirmed flags per band and mode', async (t) => {
    const cw = await lookup('callsign=DL1ABC&detail=full&band=40m&mode=cw');
    t.equal(cw.status, 200);
    t.equal(cw.body.meta.detail, 'full');
    t.same(Object.keys(cw.body.data), [...PRIVATE_LOOKUP_FIELDS, 'dxcc_ituz', 'latlng']);
    t.same(cw.body.data, {
      callsign: 'DL1ABC', ...GERMANY, name: 'Hans', gridsquare: 'JO62', location: 'Berlin', iota_ref: '', state: '', us_county: '',
      qsl_manager: 'DL0QSL', bearing: '', call_worked: true, call_worked_band: true, call_worked_band_mode: true, lotw_member: false,
      dxcc_confirmed_on_band: true, dxcc_confirmed_on_band_mode: true, dxcc_confirmed: true, call_confirmed: true,
      call_confirmed_band: true, call_confirmed_band_mode: true, suffix_slash: '', dxcc_ituz: 28, latlng: [52.5, 13],
    });
    const usb = await lookup('callsign=DL1ABC&detail=full&band=20m&mode=USB');
    t.match(usb.body.data, {
      call_worked_band: true, call_worked_band_mode: true, call_confirmed: true, call_confirmed_band: false, call_confirmed_band_mode: false,
      dxcc_confirmed: true, dxcc_confirmed_on_band: true, dxcc_confirmed_on_band_mode: false,
    });
    const noBand = await lookup('callsign=DL1ABC&detail=full&mode=CW');
    t.match(noBand.body.data, { call_worked: true, call_worked_band: false, call_worked_band_mode: false, call_confirmed_band: false, dxcc_confirmed_on_band: false, dxcc_confirmed: true });
    const noMode = await lookup('callsign=DL1ABC&detail=full&band=40m');
    t.match(noMode.body.data, { call_worked_band: true, call_worked_band_mode: false, call_confirmed_band: true, call_confirmed_band_mode: false });
    const sat = await lookup('callsign=W1AW&detail=full&band=SAT&mode=FM');
    t.match(sat.body.data, { call_worked_band: true, call_worked_band_mode: true, dxcc_confirmed: false, dxcc_id: '291' });
    const eqslOnly = await lookup('callsign=K1ABC&detail=full&band=6m');
    t.match(eqslOnly.body.data, { call_worked: true, call_confirmed: false }, 'eQSL is no award confirmation');
  });

  t.test('full: portable forms, suffix labels and unknown prefixes', async (t) => {
    const cases: [string, Record<string, unknown>][] = [
      ['DL1ABC/P', { dxcc_id: '230', suffix_slash: 'Portable', call_worked: false }],
      ['DL1ABC/M', { dxcc_id: '230', suffix_slash: 'Mobile' }],
      ['DL1ABC/MM', { dxcc: '', dxcc_id: '', cont: '', suffix_slash: 'Maritime Mobile', dxcc_confirmed: false }],
      ['DL1ABC/KH6', { dxcc: 'HAWAII', dxcc_id: '110', cont: 'OC', suffix_slash: null, dxcc_ituz: 61 }],
      ['W1AW/KH6', { dxcc_id: '110', suffix_slash: '' }],
      ['EA8/DL1ABC', { dxcc: 'CANARY IS.', dxcc_id: '29', suffix_slash: '' }],
      ['IT9ABC', { dxcc: 'ITALY', dxcc_id: '248', dxcc_lat: '42.82' }],
      ['QQ1ABC', { dxcc: '', dxcc_id: '', dxcc_lat: '', dxcc_long: '', dxcc_cqz: '', cont: '', call_worked: false }],
    ];
    for (const [call, expected] of cases) {
      const res = await lookup(`callsign=${encodeURIComponent(call)}&detail=full`);
      t.equal(res.status, 200, call);
      t.match(res.body.data, { callsign: call, ...expected }, call);
    }
    const unknown = await lookup('callsign=QQ1ABC&detail=full');
    t.notOk('dxcc_ituz' in unknown.body.data);
  });

  t.test('station_ids narrows the lookup; foreign ids are dropped silently', async (t) => {
    const worked = async (query: string) => (await lookup(`callsign=W1AW&detail=full&${query}`)).body.data.call_worked;
    t.equal(await worked(`station_ids=${op.stationId}`), false);
    t.equal(await worked(`station_ids=${second}`), true);
    t.equal(await worked(`station_ids=${op.stationId},${other.stationId}`), false, 'the foreign id is dropped');
    t.equal(await worked(`station_ids=${other.stationId}`), true, 'none granted: all of the owner\'s');
    const g4 = await lookup(`callsign=G4ABC&station_ids=${other.stationId}`);
    t.equal(g4.body.data.workedBefore, false, 'never another owner\'s log');
    const malformed = await lookup('callsign=W1AW&station_ids=1,x');
    t.equal(malformed.status, 400);
    t.equal(malformed.body.error.details.field, 'station_ids');
  });

  t.test('callsign and detail validation', async (t) => {
    const bad = await lookup('callsign=DL%231');
    t.equal(bad.status, 400);
    t.same(bad.body.error.details, { field: 'callsign' });
    const detail = await lookup('callsign=DL1ABC&detail=everything');
    t.equal(detail.status, 400);
    t.same(detail.body.error.details, { field: 'detail', allowed: ['basic', 'full'] });
    const neither = await lookup('band=20m');
    t.equal(neither.status, 400);
    t.equal(neither.body.error.code, 'validation_error');
  });

  t.test('grid: Found / Not Found / Worked / Confirmed, through gridsquare and VUCC grids', async (t) => {
    const cases: [string, string, string][] = [
      ['grid=jo62', 'JO62', 'Found'],
      ['grid=JO62QM', 'JO62QM', 'Found'],
      ['grid=JO62&cnfm=lotw', 'JO62', 'Confirmed'],
      ['grid=JO62&cnfm=qsl', 'JO62', 'Worked'],
      ['grid=JO62&band=20m&cnfm=lotw', 'JO62', 'Worked'],
      ['grid=JO', 'JO', 'Found'],
      ['grid=IO91', 'IO91', 'Not Found'],
      ['grid=FN42', 'FN42', 'Found'],
      ['grid=FN31&band=SAT', 'FN31', 'Found'],
      ['grid=FN31&band=20m', 'FN31', 'Not Found'],
      ['grid=FN20&cnfm=eqsl', 'FN20', 'Confirmed'],
    ];
    for (const [query, gridsquare, result] of cases) {
      const res = await lookup(query);
      t.equal(res.status, 200, query);
      t.same(res.body.data, { gridsquare, result }, query);
      t.equal(res.body.meta.type, 'grid');
    }
    const cnfm = await lookup('grid=JO62&cnfm=clublog');
    t.equal(cnfm.status, 400);
    t.same(cnfm.body.error.details, { field: 'cnfm', allowed: ['qsl', 'lotw', 'eqsl'] });
    for (const grid of ['ZZ99', 'JO6', 'X']) {
      const res = await lookup(`grid=${grid}`);
      t.equal(res.status, 400, grid);
      t.same(res.body.error.details, { field: 'grid' });
    }
  });

  t.test('grid=all: every worked 4-character square', async (t) => {
    const all = await lookup('grid=all');
    t.same(all.body.data, { grids: ['FN20', 'FN31', 'FN42', 'JO62'], count: 4 });
    t.match(all.body.meta, { type: 'worked_grids', band: null, cnfm: null });
    const sat = await lookup('grid=ALL&band=SAT');
    t.same(sat.body.data.grids, ['FN31', 'FN42']);
    t.equal(sat.body.meta.band, 'SAT');
    const confirmed = await lookup('grid=all&cnfm=lotw');
    t.same(confirmed.body.data, { grids: ['JO62'], count: 1 });
    t.equal((await lookup('grid=all&cnfm=dcl')).status, 400);
    t.same((await lookup('grid=all', other.token)).body.data.grids, ['IO91']);
  });

  t.test('read-only resource: POST 405, items 404, scope checked', async (t) => {
    for (const method of ['POST', 'PATCH', 'DELETE', 'PUT']) {
      for (const path of ['/api/v2/lookup', '/api/v2/lookup/1']) {
        const res = await server.request(path, { method, token: op.token, json: { callsign: 'DL1ABC' } });
        t.equal(res.status, 405, `${method} ${path}`);
        t.equal(res.headers.get('allow'), 'GET');
        t.equal(res.body.error.code, 'method_not_allowed');
      }
    }
    const item = await server.request('/api/v2/lookup/DL1ABC', { token: op.token });
    t.equal(item.status, 404);
    t.equal(item.body.error.code, 'not_found');
    const noScope = await createOperator(db, { scopes: ['qso:read'] });
    const denied = await lookup('callsign=DL1ABC', noScope.token);
    t.equal(denied.status, 403);
    t.same(denied.body.error.details, { required_scope: 'lookup:read' });
  });

  t.test('club members below officer look up only their own QSOs', async (t) => {
    const club = await createClub(db);
    const member = await club.memberToken(3, 'DL9MEM');
    const officer = await club.memberToken(9, 'DL9OFF');
    await insertQsos(db, [
      { station_id: club.clubStationId, call: 'OH2AA', time_on: '2024-01-01 10:00:00', operator: 'DL9OFF', dxcc: 224, gridsquare: 'KP20', name: 'Pekka' },
    ]);
    const memberView = await lookup('callsign=OH2AA&detail=full', member.token);
    t.match(memberView.body.data, { call_worked: false, name: '' });
    t.equal((await lookup('grid=KP20', member.token)).body.data.result, 'Not Found');
    const officerView = await lookup('callsign=OH2AA&detail=full', officer.token);
    t.match(officerView.body.data, { call_worked: true, name: 'Pekka', dxcc: 'FINLAND' });
  });
});
