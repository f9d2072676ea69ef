import { PassThrough, Writable } from 'node:stream';
import t from 'tap';
import { parseAdif } from '../../lib/adif/tokenizer.js';
import { writeWithBackPressure } from '../../lib/export/backPressure.js';
import { exportAdifRecords, exportAdifStream, type ExportFilter } from '../../lib/export/query.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { adifDocument, importText, qso } from '../import/helpers.js';

async function collect(records: AsyncIterable<{ id: number; adif: string }>): Promise<Array<{ id: number; adif: string }>> {
  const list = [];
  for await (const record of records) list.push(record);
  return list;
}

/** Exports into a string. */
async function exportText(pool: import('pg').Pool, filter: ExportFilter, options?: Parameters<typeof exportAdifStream>[3]) {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const outcome = await exportAdifStream(pool, filter, out, options);
  return { ...outcome, text: Buffer.concat(chunks).toString('utf8') };
}

t.test('ADIF export', async (t) => {
  const db = await testDatabase(t);
  const pool = db.pool;
  const op = await createOperator(pool, { callsign: 'DL1EXP' });
  await pool.query(
    `UPDATE stations SET city = 'Berlin', country = 'Fed. Rep. of Germany', dxcc = 230, cq = 14, itu = 28, iota = 'EU-001',
       sota = 'DL/BE-001', wwff = 'DLFF-0001', pota = 'DE-0001', sig = 'GMA', sig_info = 'X1', state = 'BE', cnty = 'Mitte'
     WHERE id = $1`,
    [op.stationId],
  );
  const second = await createOperator(pool, { callsign: 'DL2EXP' });
  const summary = await importText(pool, adifDocument([
    qso('OH1AA', '20240301', '101530', '20m', 'FT4', [
      ['FREQ', '14.0805'], ['RST_SENT', '-10'], ['APP_LOG_X', 'app'], ['ADDRESS', 'Street 1\r\nTown'], ['QSLRDATE', '20240310'],
      ['QSL_RCVD', 'Y'], ['OPERATOR', 'DL1OPA'], ['MY_CITY', 'Potsdam'], ['EQSL_AG', 'Y'], ['ZZZ_OWN', 'mine'],
    ]),
    qso('OH1AB', '20240301', '1020', '2m', 'FM', [['PROP_MODE', 'SAT'], ['SAT_NAME', 'SO-50'], ['LOTW_QSL_RCVD', 'Y'], ['OPERATOR', 'DL1OPB']]),
    qso('OH1AC', '20240301', '1025', '20m', 'CW', [['TIME_OFF', '1030'], ['OPERATOR', 'DL1OPA']]),
  ]), { stationId: op.stationId });
  const [firstId, secondId, thirdId] = [summary.firstId!, summary.firstId! + 1, summary.firstId! + 2];
  await importText(pool, adifDocument([qso('OH2ZZ', '20240301', '1015', '20m', 'CW')]), { stationId: second.stationId });
  const all: ExportFilter = { stationIds: [op.stationId] };

  t.test('one record per line in the original field order; station profile fills what the QSO lacks', async (t) => {
    const records = await collect(exportAdifRecords(pool, all));
    t.same(records.map((r) => r.id), [firstId, secondId, thirdId], 'ascending id');
    t.equal(
      records[0]!.adif,
      '<ADDRESS:14>Street 1\r\nTown <BAND:3>20m <CALL:5>OH1AA <CONT:2>EU <COUNTRY:7>Finland <CQZ:2>15 <DXCC:3>224 <ITUZ:2>18 ' +
        '<MODE:4>MFSK <OPERATOR:6>DL1OPA <QSL_RCVD:1>Y <QSL_SENT:1>N <RST_SENT:3>-10 <SUBMODE:3>FT4 <QSLRDATE:8>20240310 <FREQ:7>14.0805 ' +
        '<QSO_DATE:8>20240301 <TIME_ON:6>101530 <QSO_DATE_OFF:8>20240301 <TIME_OFF:6>101530 <STATION_CALLSIGN:6>DL1EXP ' +
        '<MY_CITY:7>Potsdam <MY_COUNTRY:20>Fed. Rep. of Germany <MY_DXCC:3>230 <MY_GRIDSQUARE:6>JO62QM <MY_IOTA:6>EU-001 ' +
        '<MY_SOTA_REF:9>DL/BE-001 <MY_WWFF_REF:9>DLFF-0001 <MY_POTA_REF:7>DE-0001 <MY_CQ_ZONE:2>14 <MY_ITU_ZONE:2>28 ' +
        '<MY_STATE:2>BE <MY_CNTY:5>Mitte <MY_SIG:3>GMA <MY_SIG_INFO:2>X1 <EQSL_AG:1>Y <APP_LOG_X:3>app <ZZZ_OWN:4>mine <EOR>\n',
    );
  });

  t.test('since_id, band, SAT, confirmations, operator, limit and offset', async (t) => {
    const ids = async (filter: Partial<ExportFilter>) => (await collect(exportAdifRecords(pool, { ...all, ...filter }))).map((r) => r.id);
    t.same(await ids({ sinceId: firstId }), [secondId, thirdId]);
    t.same(await ids({ band: '20m' }), [firstId, thirdId]);
    t.same(await ids({ band: 'SAT' }), [secondId]);
    t.same(await ids({ band: '40m' }), []);
    t.same(await ids({ band: "20m' OR true; --" }), [], 'filter values reach the server as bound values, never as SQL');
    t.same(await ids({ qslTypes: ['lotw'] }), [secondId]);
    t.same(await ids({ qslTypes: ['lotw', 'qsl'] }), [firstId, secondId]);
    t.same(await ids({ qslTypes: [] }), [firstId, secondId, thirdId], 'an empty list is no filter');
    t.same(await ids({ operator: 'DL1OPA' }), [firstId, thirdId]);
    t.same(await ids({ limit: 1, offset: 1 }), [secondId]);
    t.same(await ids({ stationIds: [] }), []);
    t.equal((await ids({ stationIds: [op.stationId, second.stationId] })).length, 4);
  });

  t.test('the stream: header, count, lastFetchedId', async (t) => {
    const full = await exportText(pool, all);
    t.equal(full.exported, 3);
    t.equal(full.lastFetchedId, thirdId);
    const parsed = parseAdif(full.text);
    t.equal(parsed.header.fields.PROGRAMID, 'logbook');
    t.equal(parsed.header.fields.ADIF_VER, '3.1.6');
    t.same(parsed.records.map((r) => r.fields.CALL), ['OH1AA', 'OH1AB', 'OH1AC']);
    t.same(parsed.problems, []);
    const rest = await exportText(pool, { ...all, sinceId: secondId }, { header: false });
    t.same({ exported: rest.exported, lastFetchedId: rest.lastFetchedId }, { exported: 1, lastFetchedId: thirdId });
    t.ok(rest.text.startsWith('<BAND:3>20m <CALL:5>OH1AC'), 'no header');
    t.same(await exportText(pool, { ...all, sinceId: thirdId }, { header: false }), { exported: 0, lastFetchedId: thirdId, text: '' }, 'nothing new: since_id stays');
    const none = await exportText(pool, { stationIds: [] });
    t.same({ exported: none.exported, lastFetchedId: none.lastFetchedId }, { exported: 0, lastFetchedId: null });
  });

  t.test('progress: the QSOs and bytes written so far, after each piece, up to the whole document', async (t) => {
    const heard: Array<{ records: number; bytes: number }> = [];
    const full = await exportText(pool, all, { onProgress: (progress) => heard.push(progress) });
    t.ok(heard.length >= 1);
    t.same(heard.at(-1), { records: 3, bytes: Buffer.byteLength(full.text) });
    t.ok(heard.every((p, i) => i === 0 || (p.records >= heard[i - 1]!.records && p.bytes > heard[i - 1]!.bytes)), 'never backwards');
    const none: unknown[] = [];
    await exportText(pool, { ...all, sinceId: thirdId }, { onProgress: (progress) => none.push(progress) });
    t.same(none, [], 'nothing written, nothing heard');
  });

  t.test('station grids and US counties', async (t) => {
    const us = await createOperator(pool, { callsign: 'W1EXP' });
    await pool.query(`UPDATE stations SET gridsquare = 'FN42,FN43', dxcc = 291, state = 'MA', cnty = 'Middlesex' WHERE id = $1`, [us.stationId]);
    await importText(pool, adifDocument([qso('K1AA', '20240301', '1015', '20m', 'CW'), qso('K1AB', '20240301', '1015', '20m', 'CW', [['MY_GRIDSQUARE', 'FN42AA']])]), { stationId: us.stationId });
    const [plain, ownGrid] = await collect(exportAdifRecords(pool, { stationIds: [us.stationId] }));
    t.match(plain!.adif, /<MY_VUCC_GRIDS:9>FN42,FN43 /);
    t.notMatch(plain!.adif, /<MY_GRIDSQUARE:/);
    t.match(plain!.adif, /<MY_CNTY:12>MA,Middlesex /);
    t.match(ownGrid!.adif, /<MY_GRIDSQUARE:6>FN42AA /);
    t.notMatch(ownGrid!.adif, /MY_VUCC_GRIDS/, 'the QSO grid stands alone');
  });

  t.test('a destination that goes away ends the export with an error', async (t) => {
    const closed = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    closed.destroy();
    await t.rejects(exportAdifStream(pool, all, closed), /closed/);
    const big = 'x'.repeat(2 * 1024 * 1024);
    const stalled = new Writable({ highWaterMark: 1, write: () => undefined });
    const waiting = writeWithBackPressure(stalled, big);
    stalled.destroy();
    await t.rejects(waiting, /closed before the export ended/);
    const failing = new Writable({ highWaterMark: 1, write: () => undefined });
    const failed = writeWithBackPressure(failing, big);
    failing.destroy(new Error('EPIPE'));
    await t.rejects(failed, /EPIPE/);
    t.match(await exportText(pool, all), { exported: 3 }, 'connections are fine afterwards');
  });

  t.test('a consumer that stops early releases the cursor', async (t) => {
    for (let i = 0; i < 15; i++) {
      for await (const record of exportAdifRecords(pool, all)) {
        t.equal(record.id, firstId);
        break;
      }
    }
    t.match(await exportText(pool, all), { exported: 3 }, 'the pool (10 connections) was not exhausted');
  });
});
