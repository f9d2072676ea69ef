import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import type { EventPublisher } from '../../lib/services.js';
import { bothPaths, post, v1Key } from './helpers.js';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { importAdif } from '../../lib/import/pipeline.js';

interface Published {
  topic: string;
  payload: unknown;
}

t.test('api/qso', async (t) => {
  const published: Published[] = [];
  const events: EventPublisher = { publish: (topic, payload) => void published.push({ topic, payload }), close: async () => undefined };
  const server = await startTestServer(t, { events });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL5QSO' });
  const key = await v1Key(db, op.userId, 'rw');
  const stored = async (call: string) =>
    (await db.query('SELECT *, time_on::text AS time_on_text FROM qso WHERE station_id = $1 AND call = $2', [op.stationId, call])).rows;

  t.test('one record, both path forms, 201 with truthful counts, one event', async (t) => {
    const [plain, indexed] = bothPaths('qso');
    const first = await post(server, plain, {
      key, station_profile_id: op.stationId, type: 'adif',
      string: '<call:5>G4AAA<band:3>20m<mode:3>SSB<freq:6>14.200<qso_date:8>20240301<time_on:4>1200<rst_sent:2>59<rst_rcvd:2>57<eor>',
    });
    t.equal(first.status, 201);
    t.same(first.body, { status: 'created', type: 'adif', string: '', adif_count: 1, adif_errors: 0, messages: [''] });
    const [row] = await stored('G4AAA');
    t.match(row, { band: '20m', mode: 'SSB', freq: '14200000', rst_sent: '59', rst_rcvd: '57', station_callsign: 'DL5QSO' });
    t.equal(row.time_on_text, '2024-03-01 12:00:00');
    const stationEvents = published.filter((p) => p.topic === `station.${op.stationId}`);
    t.same(stationEvents, [{ topic: `station.${op.stationId}`, payload: { type: 'qso_imported', station_id: op.stationId, imported: 1 } }]);

    const second = await post(server, indexed, {
      key, station_profile_id: String(op.stationId), type: 'adif',
      string: '<call:5>G4AAB<band:3>40m<mode:2>CW<qso_date:8>20240301<time_on:6>120500<eor>',
    });
    t.equal(second.status, 201);
    t.equal(second.body.adif_count, 1);
    t.equal((await stored('G4AAB')).length, 1);
  });

  t.test('what real clients send, byte for byte', async (t) => {
    const bodies: [string, string, Record<string, unknown>][] = [
      // Integer station id, lower-case tags separated by spaces, a line break after <eor> inside the JSON string.
      [
        `{"key":"${key}","station_profile_id":${op.stationId},"type":"adif","string":"<call:6>DL1XYZ <gridsquare:4>JO40 <mode:3>FT4 <rst_sent:3>-10 <rst_rcvd:3>-07 <qso_date:8>20240302 <time_on:6>081500 <qso_date_off:8>20240302 <time_off:6>081530 <band:3>20m <freq:9>14.080000 <station_callsign:6>DL5QSO <my_gridsquare:6>JO62QM <tx_pwr:3>50W <eor>\n"}`,
        'DL1XYZ',
        { mode: 'MFSK', submode: 'FT4', gridsquare: 'JO40', rst_sent: '-10', freq: '14080000', tx_pwr: '50', band: '20m' },
      ],
      // String station id, upper-case tags without separators, header fields inside the record.
      [
        `{"key":"${key}","station_profile_id":"${op.stationId}","type":"adif","string":"<ADIF_VER:5>3.1.4<PROGRAMID:6>WSJT-X<CALL:5>OK1AB<GRIDSQUARE:4>JN79<MODE:3>FT8<RST_SENT:3>+02<RST_RCVD:3>-15<QSO_DATE:8>20240303<TIME_ON:6>190000<BAND:3>40m<FREQ:8>7.074000<EOR>"}`,
        'OK1AB',
        { mode: 'FT8', submode: null, gridsquare: 'JN79', rst_rcvd: '-15', freq: '7074000', band: '40m' },
      ],
      // A slashed zero in the worked callsign (length counted in characters), CRLF after <EOR>.
      [
        `{"key":"${key}","station_profile_id":${op.stationId},"type":"adif","string":"<CALL:6>SMØXYZ<BAND:2>2m<MODE:2>FM<QSO_DATE:8>20240304<TIME_ON:4>0930<EOR>\r\n"}`,
        'SM0XYZ',
        { band: '2m', mode: 'FM' },
      ],
    ];
    for (const [raw, call, expected] of bodies) {
      const res = await post(server, '/api/qso', raw);
      t.equal(res.status, 201, call);
      t.equal(res.body.adif_count, 1, call);
      t.equal(res.body.adif_errors, 0, call);
      const rows = await stored(call);
      t.equal(rows.length, 1, call);
      t.match(rows[0], expected, call);
    }
    // The header fields did not end up as QSO data.
    const [ok1ab] = await stored('OK1AB');
    t.notOk(JSON.stringify(ok1ab.extra ?? {}).includes('WSJT-X'));
  });

  t.test('several records: stored, duplicates skipped and reported, not errors', async (t) => {
    const adif = [
      '<call:5>F5AAA<band:3>20m<mode:3>SSB<qso_date:8>20240305<time_on:4>1000<eor>',
      '<call:5>F5AAB<band:3>20m<mode:3>USB<qso_date:8>20240305<time_on:4>1001<eor>',
      '<call:5>F5AAA<band:3>20m<mode:3>SSB<qso_date:8>20240305<time_on:6>100030<eor>',
    ].join('');
    const res = await post(server, '/api/qso', { key, station_profile_id: op.stationId, type: 'adif', string: adif });
    t.equal(res.status, 201);
    t.same(res.body, { status: 'created', type: 'adif', string: '', adif_count: 2, adif_errors: 0, messages: ['1 duplicate QSO(s) skipped: already in the log'] });
    const again = await post(server, '/api/qso', { key, station_profile_id: op.stationId, type: 'adif', string: adif });
    t.equal(again.status, 201);
    t.equal(again.body.adif_count, 0);
    t.same(again.body.messages, ['3 duplicate QSO(s) skipped: already in the log']);
    t.equal((await stored('F5AAA')).length, 1);
  });

  t.test('a refused record makes the answer 400 abort; the others are stored', async (t) => {
    const res = await post(server, '/api/qso', {
      key, station_profile_id: op.stationId, type: 'adif',
      string: '<call:5>EA1AA<band:3>20m<mode:3>SSB<qso_date:8>20240306<time_on:4>1000<station_callsign:6>DL9XXX<eor>'
        + '<call:5>EA1AB<band:3>20m<mode:3>SSB<qso_date:8>20240306<time_on:4>1001<eor>',
    });
    t.equal(res.status, 400);
    t.match(res.body, { status: 'abort', type: 'adif', string: '', adif_count: 1, adif_errors: 1 });
    t.match(res.body.messages.join('\n'), /DL9XXX/);
    t.equal((await stored('EA1AA')).length, 0);
    t.equal((await stored('EA1AB')).length, 1);
  });

  t.test('dry run: a truthy last segment stores nothing', async (t) => {
    const string = '<call:5>I1DRY<band:3>20m<mode:3>SSB<qso_date:8>20240307<time_on:4>1000<eor>';
    for (const path of ['/api/qso/1', '/index.php/api/qso/true/']) {
      const res = await post(server, path, { key, station_profile_id: op.stationId, type: 'adif', string });
      t.equal(res.status, 201, path);
      t.same(res.body, { status: 'created', type: 'adif', string: '', adif_count: 0, adif_errors: 0, messages: ['Dryrun works'] });
    }
    t.equal((await stored('I1DRY')).length, 0);
    const real = await post(server, '/api/qso/0', { key, station_profile_id: op.stationId, type: 'adif', string });
    t.equal(real.body.adif_count, 1, '"0" is not a dry run');
  });

  t.test('club keys: a member below officer level logs as themself', async (t) => {
    const club = await createClub(db, 'DL0QSO');
    const member = await club.memberToken(3, 'DL6MEM');
    const memberKey = await v1Key(db, club.clubId, 'rw', member.userId);
    const res = await post(server, '/api/qso', {
      key: memberKey, station_profile_id: club.clubStationId, type: 'adif',
      string: '<call:5>PA1AA<band:3>20m<mode:3>SSB<qso_date:8>20240308<time_on:4>1000<operator:6>DL0QSO<eor>'
        + '<call:5>PA1AB<band:3>20m<mode:3>SSB<qso_date:8>20240308<time_on:4>1001<eor>',
    });
    t.equal(res.status, 201);
    const { rows } = await db.query('SELECT call, operator FROM qso WHERE station_id = $1 ORDER BY call', [club.clubStationId]);
    t.same(rows, [{ call: 'PA1AA', operator: 'DL6MEM' }, { call: 'PA1AB', operator: 'DL6MEM' }]);
  });

  t.test('club keys: records of an officer without an operator (or naming the club) get the officer', async (t) => {
    const club = await createClub(db, 'DL0OFF');
    const officer = await club.memberToken(9, 'DL9OFF');
    const officerKey = await v1Key(db, club.clubId, 'rw', officer.userId);
    const res = await post(server, '/api/qso', {
      key: officerKey, station_profile_id: club.clubStationId, type: 'adif',
      string: '<call:5>PA2AA<band:3>20m<mode:3>SSB<qso_date:8>20240308<time_on:4>1000<operator:6>DL0OFF<eor>'
        + '<call:5>PA2AB<band:3>20m<mode:3>SSB<qso_date:8>20240308<time_on:4>1001<eor>'
        + '<call:5>PA2AC<band:3>20m<mode:3>SSB<qso_date:8>20240308<time_on:4>1002<operator:6>DL7GST<eor>',
    });
    t.equal(res.status, 201);
    const { rows } = await db.query('SELECT call, operator FROM qso WHERE station_id = $1 ORDER BY call', [club.clubStationId]);
    t.same(rows, [
      { call: 'PA2AA', operator: 'DL9OFF' },
      { call: 'PA2AB', operator: 'DL9OFF' },
      { call: 'PA2AC', operator: 'DL7GST' },
    ], 'a named guest operator is kept');
  });

  t.test('records without <EOR> between them are each stored, with a message', async (t) => {
    const res = await post(server, '/api/qso', {
      key, station_profile_id: op.stationId, type: 'adif',
      string: '<call:5>G4EOR<band:3>20m<mode:3>SSB<qso_date:8>20240301<time_on:4>1300<call:5>G5EOR<band:3>20m<mode:3>SSB<qso_date:8>20240301<time_on:4>1301<rst_sent:2>59<rst_sent:2>55<eor>',
    });
    t.equal(res.status, 201);
    t.match(res.body, { status: 'created', adif_count: 2, adif_errors: 0 });
    t.same(res.body.messages, [
      'record 2, line 1: CALL occurs again before <EOR>: read as the start of a new record',
      "record 2, line 1: field RST_SENT occurs twice in one record: the first value '59' is kept, '55' is dropped",
    ]);
    t.same((await stored('G4EOR')).length, 1);
    t.match(await stored('G5EOR'), [{ rst_sent: '59' }]);
  });

  t.test('a string with nothing readable as ADIF is 400 failed, quoted only as a short escaped excerpt', async (t) => {
    const count = async () => (await db.query('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [op.stationId])).rows[0].n;
    const before = await count();
    let state = 7;
    const binary = String.fromCharCode(...Array.from({ length: 100_000 }, () => (state = (state * 1103515245 + 12345) >>> 0) >>> 24));
    for (const string of [binary.slice(0, 1000), binary, ' \r\n', 'hello']) {
      for (const path of ['/api/qso', '/api/qso/1']) {
        const res = await post(server, path, { key, station_profile_id: op.stationId, type: 'adif', string });
        t.equal(res.status, 400, `${string.length} characters to ${path}`);
        t.equal(res.body.status, 'failed');
        t.match(res.body.reason, /^nothing to import: the input is neither ADIF nor ADX \(it begins with ".{1,160}"\)$/);
        t.notMatch(res.text, /[\x00-\x1f\x7f-\x9f\ufffd]/);
      }
    }
    t.equal(await count(), before, 'nothing stored');
  });

  t.test('error answers', async (t) => {
    const wrongJson = await post(server, '/api/qso', '{"key":"x","string":"<call:3>ABC\n<eor>"}');
    t.equal(wrongJson.status, 200);
    t.same(wrongJson.body, { status: 'failed', reason: 'wrong JSON' });
    for (const badKey of [{}, { key: 'nope' }, { key: op.token }]) {
      const res = await post(server, '/api/qso', { ...badKey, station_profile_id: op.stationId, type: 'adif', string: '<call:3>ABC<eor>' });
      t.equal(res.status, 401);
      t.same(res.body, { status: 'failed', reason: 'missing or wrong api key' });
    }
    const readOnly = await post(server, '/api/qso', { key: await v1Key(db, op.userId, 'r'), station_profile_id: op.stationId, type: 'adif', string: '<call:3>ABC<eor>' });
    t.equal(readOnly.status, 403);
    t.same(readOnly.body, { status: 'failed', reason: 'API key does not have write permissions' });
    const other = await createOperator(db);
    for (const stationId of [other.stationId, undefined, 'abc', 0]) {
      const res = await post(server, '/api/qso', { key, station_profile_id: stationId, type: 'adif', string: '<call:3>ABC<eor>' });
      t.equal(res.status, 401);
      t.same(res.body, { status: 'failed', reason: 'station id does not belong to the API key owner.' });
    }
    for (const fields of [{ type: 'json', string: '<call:3>ABC<eor>' }, { type: 'adif', string: '' }, { type: 'adif' }]) {
      const res = await post(server, '/api/qso', { key, station_profile_id: op.stationId, ...fields });
      t.equal(res.status, 200);
      t.equal(res.text, '');
    }
  });

  t.test('a few QSOs do not wait for an import into the same location', async (t) => {
    // An import holds the location's import lock for its whole transaction.
    const importer = await db.connect();
    t.teardown(() => importer.release());
    await importer.query('BEGIN');
    await importer.query('SELECT pg_advisory_xact_lock($1, $2)', [0x51_0a, op.stationId]);
    const res = await Promise.race([
      post(server, '/api/qso', { key, station_profile_id: op.stationId, type: 'adif', string: '<call:5>S51LK<band:3>20m<mode:3>SSB<qso_date:8>20240309<time_on:4>1000<eor>' }),
      sleep(5000).then(() => null),
    ]);
    await importer.query('ROLLBACK');
    t.ok(res, 'answered while the import lock was held');
    t.equal(res?.status, 201);
    t.equal(res?.body.adif_count, 1);
  });

  t.test('a single QSO racing an import of the same QSO: stored once, both answers truthful', async (t) => {
    const qso = (call: string, minute: number, comment: string) =>
      `<call:${call.length}>${call}<band:3>20m<mode:3>SSB<qso_date:8>20240310<time_on:4>${String(1000 + minute)}<comment:${comment.length}>${comment}<eor>\n`;
    for (let round = 0; round < 12; round++) {
      const call = `OH${round}RC`;
      // v1 writes the shared QSO sometimes before the import stores its rows, sometimes after (6 of 12 rounds each here).
      const chunks = async function* () {
        for (let minute = 0; minute < 30; minute++) {
          yield Buffer.from(qso(call, minute, 'IMPORT'));
          if (minute % 10 === 0) await sleep(1);
        }
      };
      const [summary, single] = await Promise.all([
        importAdif(db, Readable.from(chunks()), { stationId: op.stationId, frequencyUnit: 'MHz' }),
        sleep(round * 3).then(() => post(server, '/api/qso', { key, station_profile_id: op.stationId, type: 'adif', string: qso(call, 15, 'V1') })),
      ]);
      const rows = await stored(call);
      t.equal(rows.length, 30, `round ${round}: one row per minute`);
      const v1Won = rows.find((row) => row.comment === 'V1') !== undefined;
      t.equal(single.status, 201);
      t.equal(single.body.adif_count, v1Won ? 1 : 0, `round ${round}: v1 count`);
      t.same(single.body.messages, v1Won ? [''] : ['1 duplicate QSO(s) skipped: already in the log']);
      t.equal(summary.imported, v1Won ? 29 : 30, `round ${round}: import count`);
      t.equal(summary.skipped, v1Won ? 1 : 0);
    }
  });
});
