import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { parseAdif } from '../../lib/adif/tokenizer.js';
import { post, v1Key } from './helpers.js';
import { runCli } from '../helpers/cli.js';

// The fields Wavelog writes into get_contacts_adif records, from a location the CLI creates.
t.test('get_contacts_adif records carry what the original writes', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL4FLD' });
  const cli = (...args: string[]) => runCli(args, { ...process.env, DATABASE_URL: server.db.url, LOGBOOK_QUIET: '1' });
  const stationOf = async (id: number) =>
    (await db.query('SELECT city, dxcc, country, cq, itu, gridsquare FROM stations WHERE id = $1', [id])).rows[0];

  t.test('station add: city, DXCC and zones, the latter from the callsign by default', async (t) => {
    const derived = await cli('station', 'add', '--user', String(op.userId), '--name', 'Home', '--callsign', 'dl4fld', '--gridsquare', 'JO62QM', '--city', 'Berlin', '--json');
    t.equal(derived.status, 0, derived.stderr);
    t.strictSame(await stationOf(JSON.parse(derived.stdout).id), {
      city: 'Berlin', dxcc: 230, country: 'Federal Republic Of Germany', cq: 14, itu: 28, gridsquare: 'JO62QM',
    });
    // A DXCC other than the callsign's: no zones are guessed; given zones are kept.
    const given = await cli('station', 'add', '--user', String(op.userId), '--name', 'Abroad', '--callsign', 'DL4FLD', '--dxcc', '291', '--cq', '5', '--json');
    t.equal(given.status, 0, given.stderr);
    t.strictSame(await stationOf(JSON.parse(given.stdout).id), {
      city: '', dxcc: 291, country: 'United States Of America', cq: 5, itu: null, gridsquare: '',
    });
    const unknownPrefix = await cli('station', 'add', '--user', String(op.userId), '--name', 'Nowhere', '--callsign', 'QQ1ABC', '--json');
    t.equal(unknownPrefix.status, 0, unknownPrefix.stderr);
    t.strictSame(await stationOf(JSON.parse(unknownPrefix.stdout).id), { city: '', dxcc: null, country: '', cq: null, itu: null, gridsquare: '' });
    for (const [option, value] of [['--dxcc', '1000'], ['--dxcc', '8'], ['--cq', '41'], ['--itu', '0'], ['--itu', 'x']] as const) {
      const bad = await cli('station', 'add', '--user', String(op.userId), '--name', 'Bad', '--callsign', 'DL4FLD', option, value, '--json');
      t.equal(bad.status, 2, `${option} ${value}`);
      t.match(bad.stderr, option.slice(2), 'the message names the option');
    }
    t.equal((await db.query("SELECT 1 FROM stations WHERE name = 'Bad'")).rowCount, 0, 'nothing stored on a usage error');
  });

  t.test('QSL N when unset, DISTANCE, MY_* of the location, COUNTRY as the entity name, lastfetchedid an integer', async (t) => {
    const created = await cli('station', 'add', '--user', String(op.userId), '--name', 'Export', '--callsign', 'DL4FLD', '--gridsquare', 'JO62QM', '--city', 'Berlin', '--json');
    const stationId = JSON.parse(created.stdout).id as number;
    const key = await v1Key(db, op.userId, 'rw');
    const records = [
      '<CALL:5>G4FLD <QSO_DATE:8>20240501 <TIME_ON:4>1000 <BAND:3>20m <MODE:3>SSB <GRIDSQUARE:6>IO91WM <EOR>',
      '<CALL:6>DL9FLD <QSO_DATE:8>20240501 <TIME_ON:4>1001 <BAND:3>20m <MODE:3>SSB <GRIDSQUARE:4>JO31 <ANT_PATH:1>L <QSL_SENT:1>Y <EOR>',
      '<CALL:5>W1FLD <QSO_DATE:8>20240501 <TIME_ON:4>1002 <BAND:3>20m <MODE:3>SSB <GRIDSQUARE:4>FN31 <DISTANCE:4>6000 <EOR>',
      '<CALL:5>F5FLD <QSO_DATE:8>20240501 <TIME_ON:4>1003 <BAND:3>20m <MODE:3>SSB <EOR>',
    ];
    const stored = await post(server, '/api/qso', { key, station_profile_id: stationId, type: 'adif', string: records.join('\n') });
    t.equal(stored.status, 201, JSON.stringify(stored.body));
    const res = await post(server, '/api/get_contacts_adif', { key, station_id: stationId, fetchfromid: 0 });
    t.equal(res.status, 200);
    t.ok(Number.isSafeInteger(res.body.lastfetchedid) && res.body.lastfetchedid > 0, 'lastfetchedid a positive integer');
    const [london, cologne, boston, paris] = parseAdif(res.body.adif).records.map((r) => r.fields);
    for (const fields of [london, cologne, boston, paris]) {
      t.match(fields, {
        MY_CITY: 'Berlin', MY_COUNTRY: 'Federal Republic Of Germany', MY_DXCC: '230', MY_CQ_ZONE: '14', MY_ITU_ZONE: '28',
        MY_GRIDSQUARE: 'JO62QM', QSL_RCVD: 'N',
      });
    }
    t.strictSame([london!.QSL_SENT, cologne!.QSL_SENT], ['N', 'Y'], 'N only where the QSO has no value');
    t.strictSame([london!.COUNTRY, cologne!.COUNTRY, boston!.COUNTRY, paris!.COUNTRY], ['England', 'Federal Republic Of Germany', 'United States Of America', 'France']);
    // Berlin to London is about 930 km; Cologne the long way round is the rest of the circumference.
    t.ok(Number(london!.DISTANCE) > 900 && Number(london!.DISTANCE) < 960, `London ${london!.DISTANCE} km`);
    t.ok(Number(cologne!.DISTANCE) > 39_400 && Number(cologne!.DISTANCE) < 39_700, `Cologne long path ${cologne!.DISTANCE} km`);
    t.match(london!.DISTANCE, /^\d+$/, 'whole km');
    t.equal(boston!.DISTANCE, '6000', 'a DISTANCE the record states is kept');
    t.notOk('DISTANCE' in paris!, 'no grid, no distance');
  });
});
