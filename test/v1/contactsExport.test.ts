import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createStation } from '../../lib/accounts/stations.js';
import { parseAdif } from '../../lib/adif/tokenizer.js';
import { bothPaths, insertQso, post, v1Key } from './helpers.js';
import { seedQsos } from '../helpers/qsoRows.js';

t.test('api/get_contacts_adif', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL7EXP' });
  const key = await v1Key(db, op.userId, 'r');
  const second = await createStation(db, { userId: op.userId, name: 'Second', callsign: 'DL7EXP/P' });
  // Ids ascend while times do not: ordering by id must not skip the later-logged older QSO.
  const ids = [
    await insertQso(db, { station_id: op.stationId, call: 'G0AAA', time_on: '2024-02-01 10:00:00', band: '20m', name: 'Jürgen', qsl_rcvd: 'Y' }),
    await insertQso(db, { station_id: op.stationId, call: 'G0AAB', time_on: '2024-01-01 10:00:00', band: '40m', lotw_qsl_rcvd: 'Y' }),
    await insertQso(db, { station_id: op.stationId, call: 'G0AAC', time_on: '2024-03-01 10:00:00', band: '2m', prop_mode: 'SAT', sat_name: 'AO-7' }),
    await insertQso(db, { station_id: op.stationId, call: 'G0AAA', time_on: '2024-03-02 10:00:00', band: '20m', mode: 'CW' }),
  ];
  const other = await insertQso(db, { station_id: second, call: 'G0AAD', time_on: '2024-03-03 10:00:00' });
  const calls = (adif: string) => parseAdif(adif).records.map((r) => r.fields.CALL);

  t.test('ADIF inside JSON, ordered by id, header included, both path forms', async (t) => {
    for (const path of bothPaths('get_contacts_adif')) {
      const res = await post(server, path, { key, station_id: op.stationId, fetchfromid: 0 });
      t.equal(res.status, 200);
      t.match(res.headers.get('content-type'), /^application\/json/);
      t.match(res.body, { status: 'successfull', message: 'Export successfull', exported_qsos: 4 });
      t.strictSame(res.body.lastfetchedid, ids[3], 'an integer, as the original sends it');
      t.same(calls(res.body.adif), ['G0AAA', 'G0AAB', 'G0AAC', 'G0AAA']);
      t.match(res.body.adif, /<EOH>/i);
      t.match(res.body.adif, /<NAME:6>Jürgen/);
      t.match(res.text, /J\\u00fcrgen/, 'non-ASCII escaped as json_encode does');
    }
  });

  t.test('fetchfromid chaining until nothing new', async (t) => {
    let fetchfromid = 0;
    const seen: string[] = [];
    for (let round = 0; round < 10; round++) {
      const res = await post(server, '/api/get_contacts_adif', { key, station_id: String(op.stationId), fetchfromid, limit: 3 });
      t.equal(res.status, 200);
      if (res.body.exported_qsos === 0) {
        t.strictSame(res.body, { status: 'successfull', message: 'No new QSOs available.', lastfetchedid: fetchfromid, exported_qsos: 0, adif: null });
        break;
      }
      seen.push(...calls(res.body.adif));
      fetchfromid = Number(res.body.lastfetchedid);
    }
    t.same(seen, ['G0AAA', 'G0AAB', 'G0AAC', 'G0AAA']);
    t.equal(fetchfromid, ids[3]);
  });

  t.test('nothing new: lastfetchedid is the integer asked from, even when sent as a string', async (t) => {
    const res = await post(server, '/api/get_contacts_adif', { key, station_id: op.stationId, fetchfromid: String(ids[3]) });
    t.strictSame(res.body, { status: 'successfull', message: 'No new QSOs available.', lastfetchedid: ids[3], exported_qsos: 0, adif: null });
  });

  t.test('filters: several stations, qsl_filter OR-combined, band incl. SAT, limit -1', async (t) => {
    const both = await post(server, '/api/get_contacts_adif', { key, station_id: [op.stationId, second], fetchfromid: 0, limit: -1 });
    t.equal(both.body.exported_qsos, 5);
    t.strictSame(both.body.lastfetchedid, other);
    const confirmed = await post(server, '/api/get_contacts_adif', { key, station_id: op.stationId, fetchfromid: 0, qsl_filter: ['qsl', 'LOTW'] });
    t.same(calls(confirmed.body.adif), ['G0AAA', 'G0AAB']);
    const none = await post(server, '/api/get_contacts_adif', { key, station_id: op.stationId, fetchfromid: 0, qsl_filter: [] });
    t.equal(none.body.exported_qsos, 4, 'an empty qsl_filter is no filter');
    const sat = await post(server, '/api/get_contacts_adif', { key, station_id: op.stationId, fetchfromid: 0, band: 'sat' });
    t.same(calls(sat.body.adif), ['G0AAC']);
    const band = await post(server, '/api/get_contacts_adif', { key, station_id: op.stationId, fetchfromid: 0, band: '20M' });
    t.same(calls(band.body.adif), ['G0AAA', 'G0AAA']);
  });

  t.test('JSON rows, unique on the selected fields', async (t) => {
    const res = await post(server, '/api/get_contacts_adif', { key, station_id: op.stationId, fetchfromid: 0, output_format: 'json', fields: ['call', 'BAND', 'SAT_NAME'] });
    t.equal(res.status, 200);
    t.same(res.body, {
      status: 'successfull', message: 'Export successfull', lastfetchedid: ids[3], exported_qsos: 4, exported_records: 3,
      qsos: [
        { CALL: 'G0AAA', BAND: '20m', SAT_NAME: null },
        { CALL: 'G0AAB', BAND: '40m', SAT_NAME: null },
        { CALL: 'G0AAC', BAND: '2m', SAT_NAME: 'AO-7' },
      ],
    });
    const all = await post(server, '/api/get_contacts_adif', { key, station_id: op.stationId, fetchfromid: ids[2], output_format: 'json' });
    t.equal(all.body.exported_records, 1);
    t.match(all.body.qsos[0], { CALL: 'G0AAA', MODE: 'CW', QSO_DATE: '20240302', STATION_CALLSIGN: 'DL7EXP' });
    const adifIgnoresFields = await post(server, '/api/get_contacts_adif', { key, station_id: op.stationId, fetchfromid: 0, fields: ['CALL'] });
    t.equal(adifIgnoresFields.body.exported_qsos, 4);
  });

  t.test('a club member below officer level exports only own QSOs', async (t) => {
    const club = await createClub(db);
    const member = await club.memberToken(3, 'DL8MEM');
    await insertQso(db, { station_id: club.clubStationId, call: 'K1AAA', time_on: '2024-01-01 00:00:00', operator: 'DL8MEM' });
    await insertQso(db, { station_id: club.clubStationId, call: 'K1AAB', time_on: '2024-01-01 00:00:00', operator: 'DL9XXX' });
    const memberKey = await v1Key(db, club.clubId, 'r', member.userId);
    const res = await post(server, '/api/get_contacts_adif', { key: memberKey, station_id: club.clubStationId, fetchfromid: 0 });
    t.same(calls(res.body.adif), ['K1AAA']);
  });

  t.test('a large export streams and parses', async (t) => {
    const station = await createStation(db, { userId: op.userId, name: 'Bulk', callsign: 'DL7EXP' });
    await seedQsos(db, [station],
      `INSERT INTO qso (station_id, call, time_on, band, mode, comment)
       SELECT $1, 'W' || n || 'AA', timestamp '2020-01-01' + n * interval '1 minute', '20m', 'FT8', repeat('x', 200) FROM generate_series(1, 3000) n`,
      [station],
    );
    const res = await post(server, '/api/get_contacts_adif', { key, station_id: station, fetchfromid: 0 });
    t.equal(res.body.exported_qsos, 3000);
    t.equal(parseAdif(res.body.adif).records.length, 3000);
  });

  t.test('error answers', async (t) => {
    const other = await createOperator(db);
    const cases: [unknown, number, string][] = [
      ['{"key":', 400, 'wrong JSON'],
      [{ key: 'nope', station_id: op.stationId, fetchfromid: 0 }, 401, 'missing api key'],
      [{ key, fetchfromid: 0 }, 400, 'Not all required fields were present in input JSON'],
      [{ key, station_id: op.stationId }, 400, 'Not all required fields were present in input JSON'],
      [{ key, station_id: [], fetchfromid: 0 }, 400, '"station_id" must not be empty'],
      [{ key, station_id: ['x'], fetchfromid: 0 }, 400, '"station_id" values must be numeric'],
      [{ key, station_id: op.stationId, fetchfromid: 0, output_format: 'xml' }, 400, 'Invalid output_format. Use "adif" or "json"'],
      [{ key, station_id: op.stationId, fetchfromid: 0, output_format: 'json', fields: 'CALL' }, 400, '"fields" must be a non-empty array'],
      [{ key, station_id: op.stationId, fetchfromid: 0, output_format: 'json', fields: ['CALL', 'NOPE', 'ADIF_VER'] }, 400, 'Unknown fields: NOPE, ADIF_VER'],
      [{ key, station_id: op.stationId, fetchfromid: 0, qsl_filter: 'lotw' }, 400, '"qsl_filter" must be an array'],
      [{ key, station_id: op.stationId, fetchfromid: 0, qsl_filter: ['lotw', 'qrz'] }, 400, 'Invalid qsl_filter values: qrz'],
      [{ key, station_id: op.stationId, fetchfromid: 0, band: '11m' }, 400, 'Invalid band value'],
      [{ key, station_id: op.stationId, fetchfromid: 'abc' }, 400, 'Invalid fetchfromid.'],
      [{ key, station_id: [op.stationId, 999999], fetchfromid: 0 }, 401, 'Station ID not accessible for this API key'],
      [{ key, station_id: [op.stationId, other.stationId], fetchfromid: 0 }, 401, 'Station ID not accessible for this API key'],
      [{ key, station_id: 99999999999, fetchfromid: 0 }, 401, 'Station ID not accessible for this API key'],
    ];
    for (const [body, status, reason] of cases) {
      const res = await post(server, '/api/get_contacts_adif', body);
      t.equal(res.status, status, reason);
      t.same(res.body, { status: 'failed', reason }, reason);
    }
  });
});
