import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import type { EventPublisher } from '../../lib/services.js';
import { insertQsos } from '../helpers/qsoRows.js';

function recordingPublisher(): EventPublisher & { events: Array<{ topic: string; payload: unknown }> } {
  const events: Array<{ topic: string; payload: unknown }> = [];
  return { events, publish: (topic, payload) => void events.push({ topic, payload }), close: async () => undefined };
}

const record = (fields: Record<string, string>) =>
  Object.entries(fields).map(([name, value]) => `<${name}:${value.length}>${value}`).join(' ') + ' <EOR>\n';

t.test('POST /api/v2/qso', async (t) => {
  const publisher = recordingPublisher();
  const server = await startTestServer(t, { events: publisher, config: { max_bulk_qsos: 5 } });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1CRE' });
  const other = await createOperator(db, { callsign: 'DL2OTH' });
  const post = (json: unknown, token = op.token) => server.request('/api/v2/qso', { method: 'POST', token, json });
  const qsoCount = async (stationId = op.stationId) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [stationId])).rows[0]!.n;
  const base = { station_profile_id: op.stationId, call: 'k1abc', band: '20m', mode: 'FT4', qso_date: '2024-05-01', time_on: '1234' };

  t.test('one QSO: 201, Location, the stored object; mode split, Hz with unit suffix, DXCC and station filled', async (t) => {
    publisher.events.length = 0;
    const res = await post({ ...base, freq: '14.0805M', rst_sent: '-10', gridsquare: 'fn42', comment: 'hi', app_logbook_ref: 'x1' });
    t.equal(res.status, 201);
    const id = res.body.data.id;
    t.equal(res.headers.get('location'), `/api/v2/qso/${id}`);
    t.match(res.body.data, {
      station_id: op.stationId, call: 'K1ABC', band: '20m', mode: 'MFSK', submode: 'FT4', freq: 14080500, qso_date: '2024-05-01 12:34:00',
      time_off: '2024-05-01 12:34:00', rst_sent: '-10', gridsquare: 'FN42', comment: 'hi', station_callsign: 'DL1CRE', dxcc: 291, cont: 'NA',
    });
    t.match(res.body.meta, { resource: 'qso', method: 'POST' });
    t.same((await server.request(`/api/v2/qso/${id}`, { token: op.token })).body.data, res.body.data);
    t.same(publisher.events, [
      { topic: `station.${op.stationId}`, payload: { type: 'qso_created', qso_id: id, station_id: op.stationId } },
      { topic: `qsos_user.${op.userId}`, payload: { type: 'qso_created', qso_id: id, station_id: op.stationId } },
    ]);
    const { rows } = await db.query('SELECT extra FROM qso WHERE id = $1', [id]);
    t.same(rows[0].extra, { app_logbook_ref: 'x1' }, 'application fields are kept');
  });

  t.test('times in every accepted form, frequencies as Hz numbers', async (t) => {
    for (const [time, stored] of [['0102', '01:02:00'], ['010303', '01:03:03'], ['01:04', '01:04:00'], ['01:05:06', '01:05:06']] as const) {
      const res = await post({ ...base, call: 'K2TIM', mode: 'CW', time_on: time, freq: 7030000 });
      t.equal(res.status, 201, time);
      t.equal(res.body.data.qso_date, `2024-05-01 ${stored}`);
      t.equal(res.body.data.freq, 7030000);
    }
    t.match((await post({ ...base, call: 'K2USB', mode: 'USB' })).body.data, { mode: 'SSB', submode: 'USB' });
  });

  t.test('required fields: 400 with details.missing; blank counts as missing', async (t) => {
    const res = await post({ station_profile_id: op.stationId, call: 'K1XX', band: ' ', qso_date: '' });
    t.equal(res.status, 400);
    t.equal(res.body.error.code, 'validation_error');
    t.same(res.body.error.details, { missing: ['band', 'mode', 'qso_date', 'time_on'] });
    const noStation = await post({ call: 'K1XX' });
    t.equal(noStation.status, 400);
    t.same(noStation.body.error.details, { missing: ['station_profile_id'] });
  });

  t.test('invalid values the importer rejects: 400 with its messages', async (t) => {
    for (const body of [{ ...base, qso_date: '2024-02-30' }, { ...base, time_on: '2460' }, { ...base, call: 'K1@X' }]) {
      const res = await post(body);
      t.equal(res.status, 400, JSON.stringify(body));
      t.equal(res.body.error.code, 'validation_error');
      t.type(res.body.error.details.messages[0], 'string');
    }
  });

  t.test('unknown field names and non-scalar values are 400 naming the field', async (t) => {
    const unknown = await post({ ...base, call: 'K3UNK', colour: 'red' });
    t.equal(unknown.status, 400);
    t.equal(unknown.body.error.details.field, 'colour');
    for (const value of [{ a: 1 }, [1, 2]]) {
      const res = await post({ ...base, call: 'K3NSC', comment: value });
      t.equal(res.status, 400);
      t.equal(res.body.error.code, 'validation_error');
      t.equal(res.body.error.details.field, 'comment');
    }
    t.equal(await qsoCount(), 6, 'nothing stored by refused requests');
  });

  t.test('a duplicate (call, minute, band, main mode) is 409 conflict with details.existing_id', async (t) => {
    const first = await post({ ...base, call: 'K4DUP', time_on: '1500' });
    const again = await post({ ...base, call: 'k4dup', mode: 'MFSK', time_on: '15:00:42' });
    t.equal(again.status, 409);
    t.equal(again.body.error.code, 'conflict');
    t.same(again.body.error.details, { existing_id: first.body.data.id });
  });

  t.test('import_type: json or adif, anything else 400; station_profile_id is checked first', async (t) => {
    t.equal((await post({ ...base, call: 'K5TYP', import_type: 'JSON' })).status, 201);
    const bad = await post({ ...base, call: 'K5TYQ', import_type: 'xml' });
    t.equal(bad.status, 400);
    t.same(bad.body.error.details, { field: 'import_type', allowed: ['json', 'adif'] });
    const foreignFirst = await post({ ...base, station_profile_id: other.stationId, import_type: 'xml' });
    t.equal(foreignFirst.status, 403);
    t.equal(foreignFirst.body.error.code, 'forbidden');
    for (const value of ['abc', 0, -1, 1.5, true]) {
      const res = await post({ ...base, station_profile_id: value });
      t.equal(res.status, 403, String(value));
    }
    t.equal(await qsoCount(other.stationId), 0);
  });

  t.test('malformed bodies', async (t) => {
    const broken = await server.request('/api/v2/qso', { method: 'POST', token: op.token, body: '{"call": "K1', headers: { 'content-type': 'application/json' } });
    t.equal(broken.status, 400);
    t.equal(broken.body.error.code, 'invalid_json');
    const array = await server.request('/api/v2/qso', { method: 'POST', token: op.token, body: '[1]', headers: { 'content-type': 'application/json' } });
    t.equal(array.status, 400);
    t.equal(array.body.error.code, 'validation_error');
    const latin1 = await server.request('/api/v2/qso', { method: 'POST', token: op.token, body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) });
    t.equal(latin1.body.error.code, 'invalid_json');
    const scope = await createOperator(db, { scopes: ['qso:read'] });
    const denied = await post(base, scope.token);
    t.equal(denied.status, 403);
    t.same(denied.body.error.details, { required_scope: 'qso:write' });
  });

  t.test('a single dry run checks the QSO and stores nothing', async (t) => {
    const before = await qsoCount();
    const res = await post({ ...base, call: 'K6DRY', dryrun: true });
    t.equal(res.status, 200);
    t.same(res.body.data, { dryrun: true, parsed: 1, imported: 1, confirmed: 0, unchanged: 0, unmatched: 0, ambiguous: 0, skipped: 0, failed: 0, messages: [] }, 'the counts a real import would give');
    t.equal(await qsoCount(), before);
  });

  t.test('bulk: one summary; duplicates inside the batch and of stored QSOs are skipped', async (t) => {
    const [stored] = await insertQsos(db, [{ station_id: op.stationId, call: 'K7OLD', time_on: '2024-05-02 10:00:00', band: '40m', mode: 'CW' }]);
    t.ok(stored);
    publisher.events.length = 0;
    const before = await qsoCount();
    const res = await post({
      station_profile_id: String(op.stationId),
      qsos: [
        { call: 'K7NEW', band: '20m', mode: 'SSB', qso_date: '2024-05-02', time_on: '1000', freq: 14200000 },
        { call: 'K7NEW', band: '20m', mode: 'USB', qso_date: '2024-05-02', time_on: '100030' },
        { call: 'k7old', band: '40m', mode: 'CW', qso_date: '2024-05-02', time_on: '10:00' },
        { call: 'K7TWO', band: '40m', mode: 'CW', qso_date: '2024-05-02', time_on: '1001', gridsquare: 'jo62' },
      ],
    });
    t.equal(res.status, 201);
    t.same(res.body.data, {
      parsed: 4, imported: 2, confirmed: 0, unchanged: 0, unmatched: 0, ambiguous: 0, skipped: 2, failed: 0,
      messages: ['2 records skipped as duplicates: already in the log or earlier in this input (first: K7NEW 2024-05-02 10:00 20m SSB; K7OLD 2024-05-02 10:00 40m CW)'],
    });
    t.equal(await qsoCount(), before + 2);
    t.same(publisher.events, [
      { topic: `station.${op.stationId}`, payload: { type: 'qso_imported', station_id: op.stationId, imported: 2 } },
      { topic: `qsos_user.${op.userId}`, payload: { type: 'qso_imported', station_id: op.stationId, imported: 2 } },
    ]);
    const { rows } = await db.query("SELECT freq, gridsquare FROM qso WHERE call IN ('K7NEW', 'K7TWO') ORDER BY call");
    t.same(rows, [{ freq: 14200000, gridsquare: null }, { freq: null, gridsquare: 'JO62' }]);
  });

  t.test('bulk dry run: 200, the counts of a real import, nothing stored', async (t) => {
    const before = await qsoCount();
    const res = await post({
      station_profile_id: op.stationId, dryrun: true,
      qsos: [{ call: 'K8DRY', band: '20m', mode: 'SSB', qso_date: '2024-05-03', time_on: '1000' }, { call: 'K8DRZ', band: '20m', mode: 'SSB', qso_date: '2024-05-03', time_on: '1000' }],
    });
    t.equal(res.status, 200);
    t.same(res.body.data, { dryrun: true, parsed: 2, imported: 2, confirmed: 0, unchanged: 0, unmatched: 0, ambiguous: 0, skipped: 0, failed: 0, messages: [] });
    t.equal(await qsoCount(), before);
  });

  t.test('bulk: a bad row fails the whole request with details.index', async (t) => {
    const before = await qsoCount();
    const good = { call: 'K9GOOD', band: '20m', mode: 'SSB', qso_date: '2024-05-04', time_on: '1000' };
    const cases: Array<[unknown, Record<string, unknown>]> = [
      [[good, { call: 'K9BAD', band: '20m', qso_date: '2024-05-04', time_on: '1000' }], { index: 1, missing: ['mode'] }],
      [[good, good, 5], { index: 2 }],
      [[good, { ...good, comment: ['x'] }], { index: 1, field: 'comment' }],
      [[{ ...good, shoe_size: 44 }], { index: 0, field: 'shoe_size' }],
      ['K9', { field: 'qsos' }],
      [[], { field: 'qsos' }],
      [[good, good, good, good, good, good], { field: 'qsos', max: 5 }],
    ];
    for (const [qsos, details] of cases) {
      const res = await post({ station_profile_id: op.stationId, qsos });
      t.equal(res.status, 400, JSON.stringify(details));
      t.equal(res.body.error.code, 'validation_error');
      t.same(res.body.error.details, details);
    }
    const stray = await post({ station_profile_id: op.stationId, qsos: [good], call: 'K9X' });
    t.equal(stray.status, 400);
    t.equal(stray.body.error.details.field, 'call');
    t.equal(await qsoCount(), before);
  });

  t.test('bulk: rows the importer rejects are reported; only hard errors is 400', async (t) => {
    const partial = await post({
      station_profile_id: op.stationId,
      qsos: [{ call: 'K9PRT', band: '20m', mode: 'SSB', qso_date: '2024-05-05', time_on: '1000' }, { call: 'K9ERR', band: '20m', mode: 'SSB', qso_date: '2024-13-01', time_on: '1000' }],
    });
    t.equal(partial.status, 201);
    t.match(partial.body.data, { parsed: 2, imported: 1, skipped: 0 });
    t.match(partial.body.data.messages[0], /record 2/);
    const none = await post({ station_profile_id: op.stationId, qsos: [{ call: 'K9@', band: '20m', mode: 'SSB', qso_date: '2024-05-05', time_on: '1000' }] });
    t.equal(none.status, 400);
    t.equal(none.body.error.code, 'validation_error');
    t.match(none.body.error.details, { parsed: 1, failed: 1 });
  });

  t.test('ADIF import: MHz frequencies, summary with skipped duplicates', async (t) => {
    publisher.events.length = 0;
    const adif = 'header <EOH>\n' +
      record({ CALL: 'W1ADI', QSO_DATE: '20240506', TIME_ON: '1200', BAND: '20m', MODE: 'SSB', FREQ: '14.2005' }) +
      record({ CALL: 'W1ADJ', QSO_DATE: '20240506', TIME_ON: '1201', MODE: 'CW', FREQ: '7.0301' }) +
      record({ CALL: 'W1ADI', QSO_DATE: '20240506', TIME_ON: '1200', BAND: '20M', MODE: 'USB' });
    const res = await post({ import_type: 'adif', station_profile_id: op.stationId, adif });
    t.equal(res.status, 201);
    t.same(res.body.data, {
      parsed: 3, imported: 2, confirmed: 0, unchanged: 0, unmatched: 0, ambiguous: 0, skipped: 1, failed: 0,
      messages: ['1 record skipped as duplicates: already in the log or earlier in this input (first: W1ADI 2024-05-06 12:00 20m SSB)'],
    });
    const { rows } = await db.query("SELECT call, band, freq FROM qso WHERE call LIKE 'W1AD%' ORDER BY call");
    t.same(rows, [{ call: 'W1ADI', band: '20m', freq: 14200500 }, { call: 'W1ADJ', band: '40m', freq: 7030100 }]);
    t.same(publisher.events.map((e) => e.payload), [
      { type: 'qso_imported', station_id: op.stationId, imported: 2 },
      { type: 'qso_imported', station_id: op.stationId, imported: 2 },
    ]);
  });

  t.test('ADIF import: a missing <EOR> loses no QSO, a repeated field is reported', async (t) => {
    const adif = '<EOH><CALL:5>W1EOR<QSO_DATE:8>20240506<TIME_ON:4>1300<BAND:3>20m<MODE:3>SSB\n' +
      '<CALL:5>W2EOR<QSO_DATE:8>20240506<TIME_ON:4>1301<BAND:3>20m<MODE:3>SSB<MODE:2>CW<EOR>';
    const res = await post({ import_type: 'adif', station_profile_id: op.stationId, adif });
    t.equal(res.status, 201);
    t.same(res.body.data, {
      parsed: 2, imported: 2, confirmed: 0, unchanged: 0, unmatched: 0, ambiguous: 0, skipped: 0, failed: 0,
      messages: [
        'record 2, line 2: CALL occurs again before <EOR>: read as the start of a new record',
        "record 2, line 2: field MODE occurs twice in one record: the first value 'SSB' is kept, 'CW' is dropped",
      ],
    });
    const { rows } = await db.query("SELECT call, mode FROM qso WHERE call LIKE 'W_EOR' ORDER BY call");
    t.same(rows, [{ call: 'W1EOR', mode: 'SSB' }, { call: 'W2EOR', mode: 'SSB' }]);
  });

  t.test('ADIF dry run: 200 {dryrun, parsed} and the counts, nothing stored', async (t) => {
    const before = await qsoCount();
    const adif = record({ CALL: 'W2DRY', QSO_DATE: '20240507', TIME_ON: '1200', BAND: '20m', MODE: 'SSB' }) +
      record({ CALL: 'W2DRZ', QSO_DATE: '20240507', TIME_ON: '1200', BAND: '20m', MODE: 'SSB' });
    const res = await post({ import_type: 'adif', station_profile_id: op.stationId, adif, dryrun: true });
    t.equal(res.status, 200);
    t.same(res.body.data, { dryrun: true, parsed: 2, imported: 2, confirmed: 0, unchanged: 0, unmatched: 0, ambiguous: 0, skipped: 0, failed: 0, messages: [] });
    t.equal(await qsoCount(), before);
  });

  t.test('ADIF import errors', async (t) => {
    const before = await qsoCount();
    for (const adif of [undefined, 42, null]) {
      const res = await post({ import_type: 'adif', station_profile_id: op.stationId, adif });
      t.equal(res.status, 400, String(adif));
      t.equal(res.body.error.details.field, 'adif');
    }
    const headerOnly = await post({ import_type: 'adif', station_profile_id: op.stationId, adif: 'just a header <EOH>\n' });
    t.equal(headerOnly.status, 400);
    t.same(headerOnly.body.error.details, { parsed: 0, messages: [] });
    const notAdif = ['', ' \n', 'plain text', '\u0000\u0001\u001b[2J\u007fELF\ufffd'.repeat(5000), `<ADX><RECORDS>${'<'.repeat(1000)}`.slice(5)];
    for (const adif of notAdif) {
      for (const dryrun of [false, true]) {
        const res = await post({ import_type: 'adif', station_profile_id: op.stationId, dryrun, adif });
        t.equal(res.status, 400, JSON.stringify(adif.slice(0, 20)));
        t.match(res.body.error.message, adif === '' ? /^nothing to import: the input is empty$/ : /^nothing to import: the input is neither ADIF nor ADX \(it begins with ".{1,160}"\)$/);
        t.notMatch(res.text, /[\x00-\x1f\x7f-\x9f\ufffd]/, 'no raw control characters in the answer');
        t.same(res.body.error.details, { field: 'adif' });
      }
    }
    const allBad = await post({ import_type: 'adif', station_profile_id: op.stationId, adif: record({ QSO_DATE: '20240508', TIME_ON: '1200', BAND: '20m', MODE: 'SSB' }) });
    t.equal(allBad.status, 400);
    t.match(allBad.body.error.details, { parsed: 1, failed: 1 });
    t.match(allBad.body.error.details.messages[0], /CALL is missing/);
    const withQsos = await post({ import_type: 'adif', station_profile_id: op.stationId, adif: 'x', qsos: [] });
    t.equal(withQsos.status, 400);
    t.equal(withQsos.body.error.details.field, 'qsos');
    const adifAsJson = await post({ ...base, call: 'W3JSN', adif: record({ CALL: 'W3X' }) });
    t.equal(adifAsJson.status, 400);
    t.equal(adifAsJson.body.error.details.field, 'adif');
    const foreign = await post({ import_type: 'adif', station_profile_id: other.stationId, adif: record({ CALL: 'W3FOR', QSO_DATE: '20240508', TIME_ON: '1200', BAND: '20m', MODE: 'SSB' }) });
    t.equal(foreign.status, 403);
    t.equal(await qsoCount(), before);
    t.equal(await qsoCount(other.stationId), 0);
  });
});
