import { Readable } from 'node:stream';
import t from 'tap';
import { formatAdxFooter, formatAdxHeader, formatAdxRecord } from '../../lib/adif/adx.js';
import { formatAdifRecord } from '../../lib/adif/writer.js';
import { importAdif, importRecords } from '../../lib/import/pipeline.js';
import { generateAdif, generateQsos } from '../../benchmarks/generate-adif.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { adifDocument, importText, qso, qsoCount } from './helpers.js';

/** The summary counts of an import that matched nothing. */
const NO_MATCHING = { confirmed: 0, unchanged: 0, unmatched: 0, ambiguous: 0, download: null };

t.test('import pipeline', async (t) => {
  const db = await testDatabase(t);
  const pool = db.pool;

  t.test('stores normalised rows with DXCC, station callsign and extra fields', async (t) => {
    const op = await createOperator(pool, { callsign: 'DL1IMP' });
    const summary = await importText(pool, adifDocument([
      [
        ['CALL', 'g4abc'], ['QSO_DATE', '20240131'], ['TIME_ON', '235945'], ['TIME_OFF', '000015'], ['FREQ', '14.081234'],
        ['MODE', 'FT4'], ['RST_SENT', '-10'], ['SRX', '007'], ['QSLSDATE', '20240205'], ['APP_N1MM_EXCHANGE1', 'x\ty'],
        ['SWEATERSIZE', 'M'], ['MY_CITY', 'Berlin'], ['ANT_AZ', '45'], ['COMMENT', 'back\\slash\nnew line\r\nend'],
      ],
      qso('OH2XYZ', '20240201', '1200', '40M', 'CW', [['DXCC', '224'], ['STATION_CALLSIGN', 'DL1IMP/P'], ['SHOESIZE', '9']]),
    ], '<USERDEF1:3:N>EPC <USERDEF2:19:E>SweaterSize,{S,M,L}\n'), { stationId: op.stationId });
    t.same(summary, { ...NO_MATCHING, parsed: 2, imported: 2, skipped: 0, failed: 0, messages: summary.messages, firstId: summary.firstId, lastId: summary.firstId! + 1 });
    t.same(summary.messages, [
      "1 record names station callsign DL1IMP/P, not the location's DL1IMP: imported all the same (first: DL1IMP/P: OH2XYZ 2024-02-01 12:00 40m CW); import with strict_callsign=true to refuse them",
      'record 2, line 7: SHOESIZE is not an ADIF field; kept as it is (reported once)',
    ], 'fields the header declares are expected; a foreign station callsign is said once');
    const { rows } = await pool.query(
      `SELECT call, time_on::text, time_off::text, band, mode, submode, freq, rst_sent, srx, qslsdate::text, dxcc, country, cont,
              cqz, ituz, station_callsign, comment, extra FROM qso WHERE station_id = $1 ORDER BY id`,
      [op.stationId],
    );
    t.same(rows[0], {
      call: 'G4ABC', time_on: '2024-01-31 23:59:45', time_off: '2024-02-01 00:00:15', band: '20m', mode: 'MFSK', submode: 'FT4',
      freq: 14081234, rst_sent: '-10', srx: 7, qslsdate: '2024-02-05', dxcc: 223, country: 'England', cont: 'EU', cqz: 14, ituz: 27,
      station_callsign: 'DL1IMP', comment: 'back\\slash\nnew line\r\nend',
      extra: { app_n1mm_exchange1: 'x\ty', sweatersize: 'M', my_city: 'Berlin', ant_az: '45' },
    });
    t.equal(rows[1].dxcc, 224, 'a stated DXCC wins');
    t.equal(rows[1].country, 'Finland', 'country from the stated entity');
    t.equal(rows[1].cqz, 15, 'zones filled because the call resolves to the stated entity');
    t.equal(rows[1].station_callsign, 'DL1IMP/P', 'a stated station callsign is kept');
  });

  t.test('duplicate rule: station, call, minute, band, main mode; within the file and against stored rows', async (t) => {
    const op = await createOperator(pool);
    const document = adifDocument([
      qso('DL2AA', '20240301', '101500', '20m', 'FT4'),
      qso('dl2aa', '20240301', '101559', '20M', 'MFSK', [['SUBMODE', 'FT4']]), // same minute, FT4 is MFSK: duplicate
      qso('DL2AA', '20240301', '1015', '40m', 'FT4'), // other band
      qso('DL2AA', '20240301', '1016', '20m', 'FT4'), // other minute
      qso('DL2AA', '20240301', '1015', '20m', 'FT8'), // other mode
      qso('DL2AA', '20240301', '1015', '20m', 'USB'), // SSB, still another mode
      qso('DL2AA', '20240301', '101530', '20m', 'SSB', [['SUBMODE', 'LSB']]), // SSB again: duplicate of the USB one
    ]);
    t.match(await importText(pool, document, { stationId: op.stationId }), { parsed: 7, imported: 5, skipped: 2, failed: 0 });
    t.match(await importText(pool, document, { stationId: op.stationId }), { parsed: 7, imported: 0, skipped: 7, failed: 0, firstId: null, lastId: null });
    const other = await createOperator(pool);
    t.match(await importText(pool, document, { stationId: other.stationId }), { imported: 5, skipped: 2 }, 'another location is another logbook');
    t.equal(await qsoCount(pool, op.stationId), 5);
  });

  t.test('hard errors fail the record; messages name record and line; unknown fields once; the list is capped', async (t) => {
    const op = await createOperator(pool);
    const summary = await importText(pool, adifDocument([
      qso('DL3AA', '20240301', '1015', '20m', 'CW', [['FOO', '1']]),
      [['QSO_DATE', '20240301'], ['TIME_ON', '1015'], ['FOO', '2']],
      qso('DL3AB', '20240231', '1015', '20m', 'CW', [['BAR', '3']]),
      qso('DL3AC', '20240301', '1015', '20m', 'CW', [['CQZ', '99'], ['FOO', '4']]),
    ]), { stationId: op.stationId });
    t.same(summary, {
      ...NO_MATCHING, parsed: 4, imported: 2, skipped: 0, failed: 2, firstId: summary.firstId, lastId: summary.lastId,
      messages: [
        'record 1, line 3: FOO is not an ADIF field; kept as it is (reported once)',
        'record 2, line 4: not imported: CALL is missing',
        'record 3, line 5: BAR is not an ADIF field; kept as it is (reported once)',
        'record 3, line 5: not imported: QSO_DATE "20240231" is not a valid date',
        'record 4, line 6: CQZ "99" is not an integer from 1 to 40; field dropped',
      ],
    });
    // Unknown field names without digits: each is a message of its own kind.
    const name = (i: number) => `X${i.toString(26).replace(/\d/g, (digit) => 'qrstuvwxyz'[Number(digit)]!)}`;
    const many = adifDocument(Array.from({ length: 1005 }, (_, i) => qso('DL3AD', '20240301', '1015', '20m', 'CW', [[name(i), '1']])));
    const capped = await importText(pool, many, { stationId: op.stationId });
    t.equal(capped.skipped, 1004);
    t.equal(capped.messages[0], '1004 records skipped as duplicates: already in the log or earlier in this input (first: DL3AD 2024-03-01 10:15 20m CW; DL3AD 2024-03-01 10:15 20m CW; DL3AD 2024-03-01 10:15 20m CW; DL3AD 2024-03-01 10:15 20m CW; DL3AD 2024-03-01 10:15 20m CW; …)');
    t.equal(capped.messages[1], `record 1, line 3: ${name(0).toUpperCase()} is not an ADIF field; kept as it is (reported once)`);
    t.ok(Buffer.byteLength(JSON.stringify(capped.messages)) <= 17 * 1024, 'the messages are bounded in bytes');
    t.match(capped.messages.at(-1), /^\.\.\. and \d+ more message lines$/, 'what does not fit is counted');
  });

  t.test('messages of one kind are one line with a count and the first records', async (t) => {
    const op = await createOperator(pool);
    const records = Array.from({ length: 185 }, (_, i) => qso('DL3GA', '20240301', `${10 + Math.floor(i / 60)}${String(i % 60).padStart(2, '0')}`, '20m', 'FT8', [['TX_PWR', 'QDX']]));
    records.push(qso('DL3GZ', '20240302', '1015', '20m', 'FT8', [['TX_PWR', 'QRP']]), qso('DL3GY', '20240229', '1015', '20m', 'FT8', [['CQZ', '77']]));
    const summary = await importText(pool, adifDocument(records), { stationId: op.stationId });
    t.same(summary.messages, [
      'record 1, line 3: TX_PWR "QDX" is not a number of at least 0; field dropped [186 times: record 1, line 3; record 2, line 4; record 3, line 5; record 4, line 6; record 5, line 7; …]',
      'record 187, line 189: CQZ "77" is not an integer from 1 to 40; field dropped',
    ]);
  });

  t.test('reader problems are passed on as messages', async (t) => {
    const op = await createOperator(pool);
    const summary = await importText(pool, `<EOH>\n<CALL:5>DL4AA <QSO_DATE:8>20240301 <TIME_ON:4>1015 <RST_RCVD:-16>599 <EOR>\n`, { stationId: op.stationId });
    t.equal(summary.imported, 1);
    t.match(summary.messages, [/^record 1, line 2: /]);
  });

  t.test('v1 station callsign check skips and reports', async (t) => {
    const op = await createOperator(pool, { callsign: 'DL5ST' });
    const summary = await importText(pool, adifDocument([
      qso('DL5AA', '20240301', '1015', '20m', 'CW', [['STATION_CALLSIGN', 'dl5st']]),
      qso('DL5AB', '20240301', '1015', '20m', 'CW', [['STATION_CALLSIGN', 'DL9XX']]),
      qso('DL5AC', '20240301', '1015', '20m', 'CW'),
    ]), { stationId: op.stationId, checkStationCallsign: true });
    t.match(summary, { parsed: 3, imported: 2, failed: 1 });
    t.same(summary.messages, ["record 2, line 4: not imported: STATION_CALLSIGN DL9XX differs from the station location's callsign DL5ST"]);
    const unchecked = await importText(pool, adifDocument([qso('DL5AD', '20240301', '1015', '20m', 'CW', [['STATION_CALLSIGN', 'DL9XX']])]), { stationId: op.stationId });
    t.equal(unchecked.imported, 1, 'v2 and CLI imports do not check');
  });

  t.test('forced operator', async (t) => {
    const op = await createOperator(pool);
    await importText(pool, adifDocument([qso('DL6AA', '20240301', '1015', '20m', 'CW', [['OPERATOR', 'DL6OFF']])]), { stationId: op.stationId, operator: 'DL6MBR' });
    const { rows } = await pool.query('SELECT operator FROM qso WHERE station_id = $1', [op.stationId]);
    t.same(rows, [{ operator: 'DL6MBR' }]);
  });

  t.test('dry run: counts what the real run would import, skip and fail, and stores nothing', async (t) => {
    const op = await createOperator(pool);
    await importText(pool, adifDocument([qso('DL7AS', '20240301', '0900', '20m', 'CW')]), { stationId: op.stationId });
    const document = adifDocument([
      qso('DL7AA', '20240301', '1015', '20m', 'CW'),
      qso('DL7AA', '20240301', '1015', '20m', 'CW'),
      [['CALL', 'DL7AB']],
      qso('DL7AS', '20240301', '0900', '20m', 'CW'),
    ]);
    const summary = await importText(pool, document, { stationId: op.stationId, dryRun: true });
    t.same(summary, {
      ...NO_MATCHING, parsed: 4, imported: 1, skipped: 2, failed: 1, firstId: null, lastId: null,
      messages: [
        '2 records skipped as duplicates: already in the log or earlier in this input (first: DL7AA 2024-03-01 10:15 20m CW; DL7AS 2024-03-01 09:00 20m CW)',
        'record 3, line 5: not imported: QSO_DATE is missing; TIME_ON is missing',
      ],
    });
    t.equal(await qsoCount(pool, op.stationId), 1);
    const real = await importText(pool, document, { stationId: op.stationId });
    t.match(real, { parsed: summary.parsed, imported: summary.imported, skipped: summary.skipped, failed: summary.failed });
  });

  t.test('unknown station location', async (t) => {
    await t.rejects(importText(pool, adifDocument([qso('DL8AA', '20240301', '1015', '20m', 'CW')]), { stationId: 999999 }), /station location 999999 does not exist/);
    await t.rejects(importText(pool, '', { stationId: 999999, dryRun: true }), /does not exist/);
  });

  t.test('ADX documents are sniffed and imported; an empty or unreadable input fails, a document without records imports nothing', async (t) => {
    const op = await createOperator(pool);
    const header = { programId: 'test', programVersion: '1', createdAt: new Date(0), adifVersion: '3.1.6' };
    const adx = `\uFEFF  ${formatAdxHeader(header)}${formatAdxRecord(qso('DL9AA', '20240301', '1015', '20m', 'CW', [['APP_X_Y', 'z']]))}${formatAdxFooter()}`;
    t.match(await importText(pool, adx, { stationId: op.stationId }), { parsed: 1, imported: 1 });
    const { rows } = await pool.query('SELECT call, extra FROM qso WHERE station_id = $1', [op.stationId]);
    t.same(rows, [{ call: 'DL9AA', extra: { app_x_y: 'z' } }]);
    await t.rejects(importText(pool, '', { stationId: op.stationId }), { name: 'UnreadableInputError', message: 'nothing to import: the input is empty' });
    await t.rejects(importText(pool, '<?xml version="1.0"?><LOG></LOG>', { stationId: op.stationId }), { name: 'UnreadableInputError' });
    await t.rejects(importText(pool, 'text<x>', { stationId: op.stationId, dryRun: true }), { name: 'UnreadableInputError' });
    t.match(await importText(pool, '<ADX><HEADER></HEADER></ADX>', { stationId: op.stationId }), { parsed: 0, imported: 0, firstId: null });
    t.match(await importText(pool, 'a log\n<EOH>\n', { stationId: op.stationId }), { parsed: 0, imported: 0, firstId: null });
    // The first bytes arrive one at a time: sniffing waits for enough of them.
    const bytes = Buffer.from(adifDocument([qso('DL9AB', '20240301', '1015', '20m', 'CW')]));
    const oneByOne = await importAdif(pool, Readable.from([...bytes].map((byte) => Buffer.from([byte]))), { stationId: op.stationId, frequencyUnit: 'MHz' });
    t.match(oneByOne, { parsed: 1, imported: 1 });
  });

  t.test('a large chunk (v1 sends the whole document as one) is read in slices: the event loop is never held long', async (t) => {
    const op = await createOperator(pool);
    const doc = Buffer.from(adifDocument(Array.from({ length: 60_000 }, (_, i) => qso(`K${i}EL`, '20240301', '1015', '20m', 'CW'))));
    let last = performance.now();
    let worst = 0;
    const probe = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 2);
    try {
      const summary = await importAdif(pool, Readable.from([doc]), { stationId: op.stationId, frequencyUnit: 'MHz', dryRun: true });
      t.equal(summary.parsed, 60_000);
    } finally {
      clearInterval(probe);
    }
    // A block at the very end would otherwise go unmeasured: the probe never ran after it.
    worst = Math.max(worst, performance.now() - last);
    // Read in one piece, this chunk held the event loop for over a second (a 64 KiB slice takes about 25 ms, measured unloaded).
    t.ok(worst < 400, `longest time the event loop waited: ${Math.round(worst)} ms`);
  });

  t.test('JSON records: lower-case names, Hz', async (t) => {
    const op = await createOperator(pool);
    const progress: number[] = [];
    const summary = await importRecords(pool, [
      { call: 'dl1js', qso_date: '2024-03-01', time_on: '10:15', band: '20m', mode: 'USB', freq: 14250000, cqz: 14, app_x_y: true },
      { call: 'DL1JS', qso_date: '2024-03-01', time_on: '10:15:30', band: '20m', mode: 'SSB' },
      { qso_date: '2024-03-01' },
    ], { stationId: op.stationId, frequencyUnit: 'Hz', onProgress: ({ records }) => progress.push(records) });
    t.same(summary, {
      ...NO_MATCHING, parsed: 3, imported: 1, skipped: 1, failed: 1, firstId: summary.firstId, lastId: summary.firstId,
      messages: ['1 record skipped as duplicates: already in the log or earlier in this input (first: DL1JS 2024-03-01 10:15 20m SSB)', 'record 3: not imported: CALL is missing; TIME_ON is missing'],
    });
    t.equal(progress.at(-1), 3);
    const { rows } = await pool.query('SELECT call, freq, mode, submode, cqz, extra FROM qso WHERE station_id = $1', [op.stationId]);
    t.same(rows, [{ call: 'DL1JS', freq: 14250000, mode: 'SSB', submode: 'USB', cqz: 14, extra: { app_x_y: 'Y' } }]);
  });

  t.test('values COPY must escape, and NUL, arrive intact', async (t) => {
    const op = await createOperator(pool);
    const tricky = 'tab\there\\N back\\\\slash \r\n crlf \u0000nul \\. end 😀';
    await importText(pool, adifDocument([qso('DL2ESC', '20240301', '1015', '20m', 'CW', [['NAME', tricky], ['APP_T_X', tricky], ['NOTES', '\\N']])]), { stationId: op.stationId });
    const { rows } = await pool.query('SELECT name, notes, extra FROM qso WHERE station_id = $1', [op.stationId]);
    const expected = tricky.replace('\u0000', '');
    t.same(rows, [{ name: expected, notes: '\\N', extra: { app_t_x: expected } }]);
  });

  t.test('progress reports records and bytes', async (t) => {
    const op = await createOperator(pool);
    const text = adifDocument([qso('DL3PRG', '20240301', '1015', '20m', 'CW'), qso('DL3PRH', '20240301', '1015', '20m', 'CW')]);
    const seen: Array<{ records: number; bytes: number }> = [];
    await importText(pool, text, { stationId: op.stationId, onProgress: (p) => seen.push(p) });
    t.same(seen.at(-1), { records: 2, bytes: Buffer.byteLength(text) });
  });

  t.test('a record split over chunks and a header-less file', async (t) => {
    const op = await createOperator(pool);
    const record = formatAdifRecord(qso('DL4CHK', '20240301', '1015', '20m', 'CW'));
    const input = Readable.from([Buffer.from(record.slice(0, 7)), Buffer.from(record.slice(7))]);
    t.match(await importAdif(pool, input, { stationId: op.stationId, frequencyUnit: 'MHz', format: 'adi' }), { parsed: 1, imported: 1 });
  });
});

t.test('a large import goes through several staging batches', async (t) => {
  const db = await testDatabase(t);
  const op = await createOperator(db.pool);
  const count = 26_000; // staging batches hold 25,000 rows
  const summary = await importAdif(db.pool, Readable.from(generateAdif(count, 7)), { stationId: op.stationId, frequencyUnit: 'MHz' });
  t.match(summary, { parsed: count, imported: count, skipped: 0, failed: 0 });
  t.equal(summary.lastId! - summary.firstId! + 1, count, 'ids are contiguous');
  const calls = [...generateQsos(count, 7)].map((fields) => fields.find(([name]) => name === 'CALL')![1]);
  const { rows } = await db.pool.query('SELECT call FROM qso WHERE id = ANY($1::bigint[]) ORDER BY id', [[summary.firstId, summary.lastId]]);
  t.same(rows.map((r) => r.call), [calls[0], calls[count - 1]], 'stored in file order');
  t.equal(await qsoCount(db.pool, op.stationId), count);
});
