import { Readable } from 'node:stream';
import t from 'tap';
import type pg from 'pg';
import { importAdif } from '../../lib/import/pipeline.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { clublogDownload, eqslInbox, lotwReport, qrzDownload } from './downloadFixtures.js';
import { adifDocument, importText, qso, qsoCount } from './helpers.js';

/** Confirmations flowing into stored QSOs: recognised downloads and the confirm/merge policies. */

async function rows(pool: pg.Pool, stationId: number, columns: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await pool.query(`SELECT ${columns} FROM qso WHERE station_id = $1 ORDER BY time_on, id`, [stationId]);
  return rows;
}

t.test('confirmations', async (t) => {
  const db = await testDatabase(t);
  const pool = db.pool;

  /** A location holding these QSOs (call, date, time, band, mode, more). */
  async function logWith(records: Parameters<typeof adifDocument>[0], callsign?: string) {
    const op = await createOperator(pool, callsign ? { callsign } : {});
    const stored = await importText(pool, adifDocument(records), { stationId: op.stationId });
    t.equal(stored.imported, records.length, 'the log is set up');
    return op;
  }

  t.test('a LoTW report confirms by LoTW; unmatched records are named, not inserted; the same report again changes nothing', async (t) => {
    const op = await logWith([
      qso('K1LTA', '20240301', '1015', '20m', 'FT8'),
      qso('K1LTB', '20240301', '1100', '40m', 'CW'),
      qso('K1LTC', '20240302', '0800', '20m', 'FT4'),
    ]);
    const report = lotwReport(op.callsign, [
      { call: 'K1LTA', date: '20240301', time: '101542', band: '20M', mode: 'FT8' },
      { call: 'K1LTB', date: '20240301', time: '1102', band: '40M', mode: 'CW', qslrdate: '20240316', more: [['STATE', 'OK'], ['GRIDSQUARE', 'EM15']] },
      { call: 'K1LTC', date: '20240302', time: '0800', band: '20M', mode: 'FT4' },
      { call: 'K1LTZ', date: '20240303', time: '1200', band: '15M', mode: 'SSB' },
    ]);
    const summary = await importText(pool, report, { stationId: op.stationId });
    t.match(summary, { parsed: 4, imported: 0, confirmed: 3, unchanged: 0, unmatched: 1, ambiguous: 0, skipped: 0, failed: 0, download: 'lotw' });
    t.same(summary.messages, ['1 record matched no QSO in the log and was not imported (first: K1LTZ 2024-03-03 12:00 15m SSB); import with insert_unmatched=true to store them']);
    t.same(await rows(pool, op.stationId, 'call, lotw_qsl_rcvd, lotw_qslrdate::text, qsl_rcvd, qslrdate, state, gridsquare'), [
      { call: 'K1LTA', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-15', qsl_rcvd: null, qslrdate: null, state: null, gridsquare: null },
      { call: 'K1LTB', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-16', qsl_rcvd: null, qslrdate: null, state: null, gridsquare: null },
      { call: 'K1LTC', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-15', qsl_rcvd: null, qslrdate: null, state: null, gridsquare: null },
    ], 'QSL_RCVD of a LoTW report is the LoTW confirmation; confirm fills no other field');
    t.equal(await qsoCount(pool, op.stationId), 3);
    const { rows: confirmed } = await pool.query(`SELECT count(*)::int AS n FROM qso WHERE station_id = $1 AND updated_at IS NOT NULL`, [op.stationId]);
    t.equal(confirmed[0].n, 3, 'changed rows carry updated_at');

    const again = await importText(pool, report, { stationId: op.stationId });
    t.match(again, { confirmed: 0, unchanged: 3, unmatched: 1, imported: 0 }, 'idempotent: the second time only unchanged');
  });

  t.test('a status only moves forward, a date is only filled or advanced, and only with its status', async (t) => {
    const op = await logWith([
      qso('K2FWA', '20240301', '1000', '20m', 'CW', [['LOTW_QSL_RCVD', 'Y'], ['LOTW_QSLRDATE', '20240310']]),
      qso('K2FWB', '20240301', '1010', '20m', 'CW', [['LOTW_QSL_RCVD', 'R']]),
      qso('K2FWC', '20240301', '1020', '20m', 'CW', [['LOTW_QSL_RCVD', 'Y'], ['LOTW_QSLRDATE', '20240310']]),
      qso('K2FWD', '20240301', '1030', '20m', 'CW', [['LOTW_QSL_RCVD', 'I']]),
    ]);
    const summary = await importText(pool, lotwReport(op.callsign, [
      { call: 'K2FWA', date: '20240301', time: '1000', band: '20M', mode: 'CW', rcvd: 'N', qslrdate: '20240301' },
      { call: 'K2FWB', date: '20240301', time: '1010', band: '20M', mode: 'CW', rcvd: 'N' },
      { call: 'K2FWC', date: '20240301', time: '1020', band: '20M', mode: 'CW', rcvd: 'Y', qslrdate: '20240320' },
      { call: 'K2FWD', date: '20240301', time: '1030', band: '20M', mode: 'CW', rcvd: 'R' },
    ]), { stationId: op.stationId });
    t.match(summary, { confirmed: 2, unchanged: 2 });
    t.same(await rows(pool, op.stationId, 'call, lotw_qsl_rcvd, lotw_qslrdate::text'), [
      { call: 'K2FWA', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-10' },
      { call: 'K2FWB', lotw_qsl_rcvd: 'R', lotw_qslrdate: null },
      { call: 'K2FWC', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-20' },
      { call: 'K2FWD', lotw_qsl_rcvd: 'I', lotw_qslrdate: '2024-03-15' },
    ], 'Y never back to N; R not back to N (nor does its date come with the N); a later date advances with its Y; I and R are one rank');
  });

  t.test('a status that is not applied does not move its date (R under Y)', async (t) => {
    const op = await logWith([
      qso('K2RUY', '20240301', '1000', '20m', 'CW', [['LOTW_QSL_RCVD', 'Y'], ['LOTW_QSLRDATE', '20240310'], ['QSL_RCVD', 'Y'], ['QSLRDATE', '20240311']]),
    ]);
    const file = adifDocument([qso('K2RUY', '20240301', '1000', '20m', 'CW', [['LOTW_QSL_RCVD', 'R'], ['LOTW_QSLRDATE', '20240420'], ['QSL_RCVD', 'Y'], ['QSLRDATE', '20240421']])]);
    await importText(pool, file, { stationId: op.stationId, onDuplicate: 'confirm' });
    t.same(await rows(pool, op.stationId, 'lotw_qsl_rcvd, lotw_qslrdate::text, qsl_rcvd, qslrdate::text'), [
      { lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-10', qsl_rcvd: 'Y', qslrdate: '2024-04-21' },
    ], "the R's date stays out; the card's Y (same rank) advances its own date");
  });

  t.test('matching: ±30 minutes, band, mode group; the nearest wins; ties and double claims are reported', async (t) => {
    const op = await logWith([
      qso('K3MTA', '20240301', '1000', '20m', 'FT4'),
      qso('K3MTB', '20240301', '1000', '20m', 'USB'),
      qso('K3MTC', '20240301', '1000', '20m', 'CW'),
      qso('K3MTC', '20240301', '1020', '20m', 'CW'),
      qso('K3MTD', '20240301', '1000', '20m', 'CW'),
      qso('K3MTD', '20240301', '1020', '20m', 'CW'),
      qso('K3MTE', '20240301', '1010', '20m', 'CW'),
      qso('K3MTF', '20240301', '2350', '20m', 'RTTY'),
    ]);
    const summary = await importText(pool, lotwReport(op.callsign, [
      { call: 'K3MTA', date: '20240301', time: '1029', band: '20M', mode: 'DATA' },
      { call: 'K3MTB', date: '20240301', time: '0931', band: '20M', mode: 'PHONE' },
      { call: 'K3MTC', date: '20240301', time: '1012', band: '20M', mode: 'CW' },
      { call: 'K3MTD', date: '20240301', time: '1010', band: '20M', mode: 'CW' },
      { call: 'K3MTE', date: '20240301', time: '1005', band: '20M', mode: 'CW' },
      { call: 'K3MTE', date: '20240301', time: '1008', band: '20M', mode: 'CW' },
      { call: 'K3MTF', date: '20240302', time: '0015', band: '20M', mode: 'FT8' },
      { call: 'K3MTA', date: '20240301', time: '1031', band: '20M', mode: 'FT4' },
      { call: 'K3MTB', date: '20240301', time: '1000', band: '40M', mode: 'SSB' },
      { call: 'K3MTC', date: '20240301', time: '1000', band: '20M', mode: 'SSB' },
    ]), { stationId: op.stationId });
    t.match(summary, { parsed: 10, confirmed: 5, unmatched: 3, ambiguous: 2 });
    t.same(summary.messages, [
      `1 record matched two QSOs equally near and was not applied (first: K3MTD 2024-03-01 10:10 20m CW (QSO ${await idOf(pool, op.stationId, 'K3MTD', '10:00')}))`,
      `1 record matched a QSO that a nearer record of this input confirms and was not applied (first: K3MTE 2024-03-01 10:05 20m CW (QSO ${await idOf(pool, op.stationId, 'K3MTE', '10:10')}))`,
      '3 records matched no QSO in the log and were not imported (first: K3MTA 2024-03-01 10:31 20m MFSK; K3MTB 2024-03-01 10:00 40m SSB; K3MTC 2024-03-01 10:00 20m SSB); import with insert_unmatched=true to store them',
    ]);
    t.same(await rows(pool, op.stationId, "call, to_char(time_on, 'HH24:MI') AS time, lotw_qsl_rcvd"), [
      { call: 'K3MTA', time: '10:00', lotw_qsl_rcvd: 'Y' },
      { call: 'K3MTB', time: '10:00', lotw_qsl_rcvd: 'Y' },
      { call: 'K3MTC', time: '10:00', lotw_qsl_rcvd: null },
      { call: 'K3MTD', time: '10:00', lotw_qsl_rcvd: null },
      { call: 'K3MTE', time: '10:10', lotw_qsl_rcvd: 'Y' },
      { call: 'K3MTC', time: '10:20', lotw_qsl_rcvd: 'Y' },
      { call: 'K3MTD', time: '10:20', lotw_qsl_rcvd: null },
      { call: 'K3MTF', time: '23:50', lotw_qsl_rcvd: 'Y' },
    ], 'DATA finds FT4 (MFSK), PHONE finds USB (SSB) 29 minutes away, across midnight too; the nearer of two QSOs wins');
  });

  t.test('two records claiming one QSO in different batches: the first stands, the second is named, not applied', async (t) => {
    const op = await logWith([qso('K3XBA', '20240301', '1000', '20m', 'CW')]);
    const report = lotwReport(op.callsign, [
      { call: 'K3XBA', date: '20240301', time: '1010', band: '20M', mode: 'CW', qslrdate: '20240310' },
      { call: 'K3XBA', date: '20240301', time: '1000', band: '20M', mode: 'CW', qslrdate: '20240320' },
    ]);
    // One record per input chunk, one row per batch: each record is matched by a statement of its own.
    const cut = report.indexOf('<eor>', report.indexOf('<eoh>')) + 5;
    const summary = await importAdif(pool, Readable.from([report.slice(0, cut), report.slice(cut)]), { stationId: op.stationId, frequencyUnit: 'MHz', rowsPerBatch: 1 });
    const id = await idOf(pool, op.stationId, 'K3XBA', '10:00');
    t.match(summary, { parsed: 2, confirmed: 1, unchanged: 0, ambiguous: 1 });
    t.same(summary.messages, [`1 record matched a QSO that an earlier record of this input confirmed and was not applied (first: K3XBA 2024-03-01 10:00 20m CW (QSO ${id}))`]);
    t.same(await rows(pool, op.stationId, 'lotw_qsl_rcvd, lotw_qslrdate::text'), [{ lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-10' }], 'the second claim did not move the date');
  });

  t.test('the insert option stores unmatched records of a download, as LoTW-confirmed QSOs', async (t) => {
    const op = await logWith([qso('K4INA', '20240301', '1000', '20m', 'CW')]);
    const summary = await importText(pool, lotwReport(op.callsign, [
      { call: 'K4INA', date: '20240301', time: '1000', band: '20M', mode: 'CW' },
      { call: 'K4INB', date: '20240301', time: '1100', band: '20M', mode: 'CW' },
    ]), { stationId: op.stationId, insertUnmatched: true });
    t.match(summary, { imported: 1, confirmed: 1, unmatched: 1 });
    t.same(summary.messages, ['1 record matched no QSO in the log and was imported as new QSOs (first: K4INB 2024-03-01 11:00 20m CW)'], 'asked for: no hint');
    t.equal(summary.firstId, summary.lastId);
    t.same(await rows(pool, op.stationId, 'call, lotw_qsl_rcvd, qsl_rcvd, extra'), [
      { call: 'K4INA', lotw_qsl_rcvd: 'Y', qsl_rcvd: null, extra: null },
      { call: 'K4INB', lotw_qsl_rcvd: 'Y', qsl_rcvd: null, extra: { my_dxcc: '230', app_lotw_owncall: op.callsign, app_lotw_modegroup: 'CW', app_lotw_qso_timestamp: '2024-03-01T11:00:00Z', app_lotw_rxqsl: '2024-03-15 11:22:33' } },
    ]);
    const skipPolicy = await importText(pool, lotwReport(op.callsign, [{ call: 'K4INC', date: '20240301', time: '1200', band: '20M', mode: 'CW' }]), { stationId: op.stationId, onDuplicate: 'skip' });
    t.match(skipPolicy, { imported: 1, confirmed: 0 }, 'skip imports a download as today, its QSL_RCVD still read as LoTW');
    t.same((await rows(pool, op.stationId, 'call, lotw_qsl_rcvd, qsl_rcvd')).at(-1), { call: 'K4INC', lotw_qsl_rcvd: 'Y', qsl_rcvd: null });
  });

  t.test('QRZ logbook, eQSL inbox and Club Log downloads confirm by their own service', async (t) => {
    const op = await logWith([
      qso('K5DLA', '20240301', '1000', '20m', 'SSB'),
      qso('K5DLB', '20240301', '1100', '20m', 'SSB'),
      qso('K5DLC', '20240301', '1200', '20m', 'FT8', [['RST_RCVD', '-05']]),
      qso('K5DLD', '20240301', '1300', '20m', 'CW'),
    ]);
    const qrz = await importText(pool, qrzDownload(op.callsign, [
      { call: 'K5DLA', date: '20240301', time: '1001', band: '20m', mode: 'SSB', status: 'C', qsldate: '20240305' },
      { call: 'K5DLB', date: '20240301', time: '1100', band: '20m', mode: 'SSB', status: 'N' },
    ]), { stationId: op.stationId });
    t.match(qrz, { download: 'qrz', confirmed: 2, unmatched: 0 });
    const eqsl = await importText(pool, eqslInbox(op.callsign, [
      { call: 'K5DLC', date: '20240301', time: '1203', band: '20M', mode: 'FT8' },
      { call: 'K5DLZ', date: '20240301', time: '1203', band: '20M', mode: 'FT8' },
    ]), { stationId: op.stationId });
    t.match(eqsl, { download: 'eqsl', confirmed: 1, unmatched: 1 });
    const clublog = await importText(pool, clublogDownload(op.callsign, [{ call: 'K5DLD', date: '20240301', time: '1300', band: '20M', mode: 'CW' }]), { stationId: op.stationId });
    t.match(clublog, { download: 'clublog', confirmed: 1 });
    t.same(await rows(pool, op.stationId, `call, qrzcom_qso_download_status AS qrz, qrzcom_qso_download_date::text AS qrz_date, lotw_qsl_sent,
      eqsl_qsl_rcvd, eqsl_qslrdate::text AS eqsl_date, qsl_sent, rst_rcvd, qslmsg_rcvd, clublog_qso_download_status AS clublog`), [
      { call: 'K5DLA', qrz: 'Y', qrz_date: '2024-03-05', lotw_qsl_sent: 'Y', eqsl_qsl_rcvd: null, eqsl_date: null, qsl_sent: null, rst_rcvd: null, qslmsg_rcvd: null, clublog: null },
      { call: 'K5DLB', qrz: 'N', qrz_date: null, lotw_qsl_sent: 'Y', eqsl_qsl_rcvd: null, eqsl_date: null, qsl_sent: null, rst_rcvd: null, qslmsg_rcvd: null, clublog: null },
      { call: 'K5DLC', qrz: null, qrz_date: null, lotw_qsl_sent: null, eqsl_qsl_rcvd: 'Y', eqsl_date: '2024-03-20', qsl_sent: null, rst_rcvd: '-05', qslmsg_rcvd: 'TNX QSO 73', clublog: null },
      { call: 'K5DLD', qrz: null, qrz_date: null, lotw_qsl_sent: null, eqsl_qsl_rcvd: null, eqsl_date: null, qsl_sent: null, rst_rcvd: null, qslmsg_rcvd: null, clublog: 'Y' },
    ], "QRZ's C is Y with its date; the eQSL sender's QSL_SENT is our receipt, their report not our RST_RCVD under confirm");
  });

  t.test('an ordinary file: skip by default; confirm applies QSL state of duplicates; merge also fills empty fields', async (t) => {
    const op = await logWith([qso('K6POA', '20240301', '1000', '20m', 'CW', [['NAME', 'Ann']]), qso('K6POB', '20240301', '1100', '20m', 'CW')]);
    const file = adifDocument([
      qso('K6POA', '20240301', '1000', '20m', 'CW', [['NAME', 'Anne'], ['QTH', 'Boston'], ['QSL_RCVD', 'Y'], ['QSLRDATE', '20240401'], ['APP_X_NOTE', 'n']]),
      qso('K6POB', '20240301', '1100', '20m', 'CW', [['QSL_SENT', 'Y'], ['QSL_VIA', 'BURO']]),
      qso('K6POC', '20240301', '1200', '20m', 'CW'),
    ]);
    t.match(await importText(pool, file, { stationId: op.stationId, dryRun: true, onDuplicate: 'merge' }), { imported: 1, confirmed: 2, skipped: 0 }, 'a dry run counts the same');
    t.equal(await qsoCount(pool, op.stationId), 2, 'and writes nothing');
    t.match(await importText(pool, file, { stationId: op.stationId }), { imported: 1, skipped: 2, confirmed: 0 });
    t.match(await importText(pool, file, { stationId: op.stationId, onDuplicate: 'confirm' }), { imported: 0, confirmed: 2, skipped: 0, unchanged: 1 });
    t.same(await rows(pool, op.stationId, 'call, name, qth, qsl_rcvd, qslrdate::text, qsl_sent, qsl_via, extra'), [
      { call: 'K6POA', name: 'Ann', qth: null, qsl_rcvd: 'Y', qslrdate: '2024-04-01', qsl_sent: null, qsl_via: null, extra: null },
      { call: 'K6POB', name: null, qth: null, qsl_rcvd: null, qslrdate: null, qsl_sent: 'Y', qsl_via: 'BURO', extra: null },
      { call: 'K6POC', name: null, qth: null, qsl_rcvd: null, qslrdate: null, qsl_sent: null, qsl_via: null, extra: null },
    ]);
    t.match(await importText(pool, file, { stationId: op.stationId, onDuplicate: 'merge' }), { confirmed: 1, unchanged: 2 });
    t.same((await rows(pool, op.stationId, 'name, qth, extra'))[0], { name: 'Ann', qth: 'Boston', extra: { app_x_note: 'n' } }, 'merge fills, never overwrites');
  });

  t.test('a club member below officer level confirms only the QSOs they operated', async (t) => {
    const op = await logWith([
      qso('K7OPA', '20240301', '1000', '20m', 'CW', [['OPERATOR', 'DL7MBR']]),
      qso('K7OPB', '20240301', '1100', '20m', 'CW', [['OPERATOR', 'DL7OTH']]),
    ]);
    const report = lotwReport(op.callsign, [
      { call: 'K7OPA', date: '20240301', time: '1000', band: '20M', mode: 'CW' },
      { call: 'K7OPB', date: '20240301', time: '1100', band: '20M', mode: 'CW' },
    ]);
    const summary = await importText(pool, report, { stationId: op.stationId, operator: 'DL7MBR' });
    t.match(summary, { confirmed: 1, unmatched: 1 });
    t.same(await rows(pool, op.stationId, 'call, lotw_qsl_rcvd'), [{ call: 'K7OPA', lotw_qsl_rcvd: 'Y' }, { call: 'K7OPB', lotw_qsl_rcvd: null }]);
  });
});

/** `text` in pieces of `size` characters, each after a turn of the event loop, then `failWhen`'s error if given. */
function slowly(text: string, size: number, failWhen?: () => Promise<Error>): Readable {
  return Readable.from((async function* () {
    for (let at = 0; at < text.length; at += size) {
      await new Promise((resolve) => setImmediate(resolve));
      yield Buffer.from(text.slice(at, at + size));
    }
    if (failWhen) throw await failWhen();
  })());
}

t.test('a merge is all or nothing, and serialised with imports into the same location', async (t) => {
  const db = await testDatabase(t);
  const pool = db.pool;
  const times = Array.from({ length: 30 }, (_, i) => `${10 + Math.floor(i / 60)}${String(i % 60).padStart(2, '0')}`);

  t.test('a report that fails after several batches were applied changes nothing', async (t) => {
    const op = await createOperator(pool);
    await importText(pool, adifDocument(times.map((time) => qso('K8AON', '20240301', time, '20m', 'CW'))), { stationId: op.stationId });
    const report = lotwReport(op.callsign, times.map((time) => ({ call: 'K8AON', date: '20240301', time, band: '20M', mode: 'CW' })));
    // Records 1-20 arrive (two batches of 10 are matched and applied, no COPY is open), then the upload breaks off.
    let cut = report.indexOf('<eoh>');
    for (let i = 0; i < 20; i++) cut = report.indexOf('<eor>', cut + 1);
    // The import's UPDATEs lock the rows they changed until it ends: SKIP LOCKED tells from outside.
    const unlocked = async () => (await pool.query(`SELECT id FROM qso WHERE station_id = $1 FOR UPDATE SKIP LOCKED`, [op.stationId])).rowCount;
    let lockedAtFailure = 0;
    const afterTwoBatches = async () => {
      while ((lockedAtFailure = times.length - (await unlocked())!) < 20) await new Promise((resolve) => setTimeout(resolve, 10));
      return new Error('upload broke off');
    };
    const failing = importAdif(pool, slowly(report.slice(0, cut + 5), 512, afterTwoBatches), { stationId: op.stationId, frequencyUnit: 'MHz', rowsPerBatch: 10 });
    await t.rejects(failing, /upload broke off/);
    t.equal(lockedAtFailure, 20, 'the input failed after two batches were applied');
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM qso WHERE station_id = $1 AND (lotw_qsl_rcvd IS NOT NULL OR updated_at IS NOT NULL)`, [op.stationId]);
    t.equal(rows[0].n, 0, 'no QSO confirmed');
  });

  t.test('a report racing an import of the QSOs it confirms sees all of them or none, many rounds', async (t) => {
    const rounds = 12;
    let reportFirst = 0;
    for (let round = 0; round < rounds; round++) {
      const op = await createOperator(pool);
      const old = times.slice(0, 15);
      const fresh = times.slice(15);
      // The new QSOs on another band: a report that runs first finds no QSO for them.
      const band = (time: string) => (fresh.includes(time) ? '40m' : '20m');
      await importText(pool, adifDocument(old.map((time) => qso('K9RAC', '20240301', time, '20m', 'CW'))), { stationId: op.stationId });
      const file = adifDocument(times.map((time) => qso('K9RAC', '20240301', time, band(time), 'CW')));
      const report = lotwReport(op.callsign, times.map((time) => ({ call: 'K9RAC', date: '20240301', time, band: band(time).toUpperCase(), mode: 'CW' })));
      const options = { stationId: op.stationId, frequencyUnit: 'MHz' as const, rowsPerBatch: 4 };
      // Seeded start order and piece sizes: each round interleaves the two inputs differently.
      const pieces = [97, 211, 389][round % 3]!;
      const [merge, plain] = round % 2 === 0
        ? await Promise.all([importAdif(pool, slowly(report, pieces), options), importAdif(pool, slowly(file, pieces + 50), options)])
        : await Promise.all([importAdif(pool, slowly(file, pieces + 50), options), importAdif(pool, slowly(report, pieces), options)]).then(([a, b]) => [b, a] as const);
      t.equal(plain.imported, fresh.length, `round ${round}: the import stores the new QSOs`);
      const sawImport = merge.confirmed === times.length;
      if (!sawImport) reportFirst++;
      t.same(
        { confirmed: merge.confirmed, unmatched: merge.unmatched, ambiguous: merge.ambiguous },
        sawImport ? { confirmed: times.length, unmatched: 0, ambiguous: 0 } : { confirmed: old.length, unmatched: fresh.length, ambiguous: 0 },
        `round ${round}: the report ran wholly before or wholly after the import`,
      );
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM qso WHERE station_id = $1 AND lotw_qsl_rcvd = 'Y'`, [op.stationId]);
      t.equal(rows[0].n, merge.confirmed, `round ${round}: the summary says what happened`);
    }
    t.comment(`the report ran first in ${reportFirst} of ${rounds} rounds`);
  });
});

async function idOf(pool: pg.Pool, stationId: number, call: string, time: string): Promise<number> {
  const { rows } = await pool.query(`SELECT id FROM qso WHERE station_id = $1 AND call = $2 AND to_char(time_on, 'HH24:MI') = $3`, [stationId, call, time]);
  return Number(rows[0].id);
}
