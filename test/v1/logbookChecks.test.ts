import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { createLogbook } from '../../lib/accounts/logbooks.js';
import { createStation } from '../../lib/accounts/stations.js';
import { bothPaths, insertQso, post, v1Key } from './helpers.js';

t.test('logbook checks by public slug', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const owner = await createOperator(db, { callsign: 'DL2LOG' });
  const unlisted = await createStation(db, { userId: owner.userId, name: 'Not in the logbook', callsign: 'DL2LOG' });
  await createLogbook(db, { userId: owner.userId, name: 'Public', slug: 'dl2log', stationIds: [owner.stationId] });
  await createLogbook(db, { userId: owner.userId, name: 'Empty', slug: 'empty-book', stationIds: [] });
  // Any valid key may ask about a published logbook: here a key of somebody else.
  const visitor = await createOperator(db);
  const key = await v1Key(db, visitor.userId, 'r');

  await insertQso(db, { station_id: owner.stationId, call: 'G4ABC', time_on: '2024-05-01 10:00:00', band: '20m', gridsquare: 'IO91WM', qsl_rcvd: 'Y' });
  await insertQso(db, { station_id: owner.stationId, call: 'OE1SAT', time_on: '2024-05-02 10:00:00', band: '70cm', sat_name: 'AO-7', prop_mode: 'SAT', vucc_grids: 'JN87,JN88', lotw_qsl_rcvd: 'N' });
  await insertQso(db, { station_id: unlisted, call: 'K1HID', time_on: '2024-05-03 10:00:00', band: '40m', gridsquare: 'FN42' });

  t.test('callsign: Found / Not Found with 201, band and SAT filters, both path forms', async (t) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ callsign: 'G4ABC' }, 'Found'],
      [{ callsign: 'g4abc', band: '20M' }, 'Found'],
      [{ callsign: 'G4ABC', band: '40m' }, 'Not Found'],
      [{ callsign: 'G4ABC', band: 'All' }, 'Found'],
      [{ callsign: 'OE1SAT', band: 'SAT' }, 'Found'],
      [{ callsign: 'G4ABC', band: 'SAT' }, 'Not Found'],
      [{ callsign: 'K1HID' }, 'Not Found'],
    ];
    for (const path of bothPaths('logbook_check_callsign')) {
      for (const [fields, result] of cases) {
        const res = await post(server, path, { key, logbook_public_slug: 'dl2log', ...fields });
        t.equal(res.status, 201, JSON.stringify(fields));
        t.same(res.body, { callsign: fields.callsign, result }, JSON.stringify(fields));
      }
    }
  });

  t.test('grid: first four characters in gridsquare or VUCC grids; cnfm gives Confirmed or Worked', async (t) => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ grid: 'io91' }, 'IO91', 'Found'],
      [{ grid: 'IO91xx' }, 'IO91XX', 'Found'],
      [{ grid: 'JN88' }, 'JN88', 'Found'],
      [{ grid: 'JN88', band: 'SAT' }, 'JN88', 'Found'],
      [{ grid: 'IO91', band: '2m' }, 'IO91', 'Not Found'],
      [{ grid: 'FN42' }, 'FN42', 'Not Found'],
      [{ grid: '%' }, '%', 'Not Found'],
      [{ grid: 'IO91', cnfm: 'qsl' }, 'IO91', 'Confirmed'],
      [{ grid: 'IO91', cnfm: 'lotw' }, 'IO91', 'Worked'],
      [{ grid: 'JN87', cnfm: 'lotw' }, 'JN87', 'Worked'],
      [{ grid: 'JN87', cnfm: 'other' }, 'JN87', 'Worked'],
      [{ grid: 'AA00', cnfm: 'qsl' }, 'AA00', 'Not Found'],
    ];
    for (const path of bothPaths('logbook_check_grid')) {
      for (const [fields, grid, result] of cases) {
        const res = await post(server, path, { key, logbook_public_slug: 'dl2log', ...fields });
        t.equal(res.status, 201, JSON.stringify(fields));
        t.same(res.body, { gridsquare: grid, result }, JSON.stringify(fields));
      }
    }
  });

  t.test('the original error answers', async (t) => {
    for (const [name, field] of [['logbook_check_callsign', 'callsign'], ['logbook_check_grid', 'grid']] as const) {
      const path = `/api/${name}`;
      const wrongJson = await post(server, path, '{"key": ');
      t.equal(wrongJson.status, 200);
      t.same(wrongJson.body, { status: 'failed', reason: 'wrong JSON' });
      for (const badKey of [{}, { key: 'nope' }]) {
        const res = await post(server, path, { ...badKey, logbook_public_slug: 'dl2log', [field]: 'X' });
        t.equal(res.status, 401);
        t.same(res.body, { status: 'failed', reason: 'missing api key' });
      }
      for (const missing of [{ logbook_public_slug: 'dl2log' }, { [field]: 'G4ABC' }, { logbook_public_slug: null, [field]: 'G4ABC' }]) {
        const res = await post(server, path, { key, ...missing });
        t.equal(res.status, 401);
        t.same(res.body, { status: 'failed', reason: 'missing fields' });
      }
      for (const empty of [{ logbook_public_slug: '', [field]: 'G4ABC' }, { logbook_public_slug: 'dl2log', [field]: '' }]) {
        const res = await post(server, path, { key, ...empty });
        t.equal(res.status, 200);
        t.equal(res.text, '');
      }
      const unknown = await post(server, path, { key, logbook_public_slug: 'no-such-book', [field]: 'G4ABC' });
      t.equal(unknown.status, 404);
      t.same(unknown.body, { status: 'failed', reason: 'logbook not found' });
      // A logbook without locations has worked nothing: the original answers "Not Found", not an error.
      const empty = await post(server, path, { key, logbook_public_slug: 'empty-book', [field]: 'G4ABC' });
      t.equal(empty.status, 201);
      t.same(empty.body, { [field === 'grid' ? 'gridsquare' : 'callsign']: 'G4ABC', result: 'Not Found' });
    }
  });
});
