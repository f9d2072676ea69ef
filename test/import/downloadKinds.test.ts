import t from 'tap';
import type pg from 'pg';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { clublogDownload, lotwReport, qrzDownload, type DownloadQso } from './downloadFixtures.js';
import { adifDocument, importText, qso, qsoCount } from './helpers.js';

/**
 * Downloads by what they are: a QRZ logbook or Club Log download is the user's whole log (its
 * unmatched records are inserted), a LoTW report holds confirmations (its unmatched records are
 * reported, with the option that would store them), and any download into a location without
 * QSOs is imported whole. Also: Hz frequencies of any digit count, foreign station callsigns.
 */

async function rows(pool: pg.Pool, stationId: number, columns: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await pool.query(`SELECT ${columns} FROM qso WHERE station_id = $1 ORDER BY time_on, id`, [stationId]);
  return rows;
}

const QRZ_QSOS: ReadonlyArray<DownloadQso & { status: string; qsldate?: string }> = [
  { call: 'K1QRA', date: '20240301', time: '1000', band: '20m', mode: 'SSB', status: 'C', qsldate: '20240305' },
  { call: 'K1QRB', date: '20240301', time: '1100', band: '40m', mode: 'CW', status: 'N' },
  { call: 'K1QRC', date: '20240302', time: '0900', band: '15m', mode: 'FT8', status: 'C', qsldate: '20240306' },
];

t.test('downloads by what they are', async (t) => {
  const db = await testDatabase(t);
  const pool = db.pool;

  t.test('a QRZ logbook download into an empty location imports every record with its confirmation', async (t) => {
    const op = await createOperator(pool, { callsign: 'DL1QRZ' });
    const summary = await importText(pool, qrzDownload(op.callsign, QRZ_QSOS), { stationId: op.stationId });
    t.match(summary, { download: 'qrz', parsed: 3, imported: 3, unmatched: 3, confirmed: 0, failed: 0 });
    t.same(summary.messages, [
      '3 records matched no QSO in the log and were imported as new QSOs (first: K1QRA 2024-03-01 10:00 20m SSB; K1QRB 2024-03-01 11:00 40m CW; K1QRC 2024-03-02 09:00 15m FT8); ' +
        'import with insert_unmatched=false to only confirm QSOs already in the log',
    ]);
    t.same(await rows(pool, op.stationId, 'call, qrzcom_qso_download_status AS qrz, qrzcom_qso_download_date::text AS qrz_date, lotw_qsl_sent'), [
      { call: 'K1QRA', qrz: 'Y', qrz_date: '2024-03-05', lotw_qsl_sent: 'Y' },
      { call: 'K1QRB', qrz: 'N', qrz_date: null, lotw_qsl_sent: 'Y' },
      { call: 'K1QRC', qrz: 'Y', qrz_date: '2024-03-06', lotw_qsl_sent: 'Y' },
    ], 'stored with the confirmations the download states');
    const again = await importText(pool, qrzDownload(op.callsign, QRZ_QSOS), { stationId: op.stationId });
    t.match(again, { imported: 0, unchanged: 3, unmatched: 0 }, 'the same download again only matches');
  });

  t.test('a QRZ logbook download into a filled location confirms the QSOs it matches and inserts the others', async (t) => {
    const op = await createOperator(pool, { callsign: 'DL2QRZ' });
    await importText(pool, adifDocument([qso('K1QRA', '20240301', '1002', '20m', 'SSB'), qso('K9OWN', '20240220', '1200', '10m', 'FM')]), { stationId: op.stationId });
    const summary = await importText(pool, qrzDownload(op.callsign, QRZ_QSOS), { stationId: op.stationId });
    t.match(summary, { download: 'qrz', parsed: 3, imported: 2, confirmed: 1, unmatched: 2 });
    t.same(await rows(pool, op.stationId, 'call, qrzcom_qso_download_status AS qrz'), [
      { call: 'K9OWN', qrz: null }, { call: 'K1QRA', qrz: 'Y' }, { call: 'K1QRB', qrz: 'N' }, { call: 'K1QRC', qrz: 'Y' },
    ]);
    const kept = await createOperator(pool, { callsign: 'DL3QRZ' });
    await importText(pool, adifDocument([qso('K1QRA', '20240301', '1000', '20m', 'SSB')]), { stationId: kept.stationId });
    const asked = await importText(pool, qrzDownload(kept.callsign, QRZ_QSOS), { stationId: kept.stationId, insertUnmatched: false });
    t.match(asked, { imported: 0, confirmed: 1, unmatched: 2 }, 'insert_unmatched=false still overrides');
    t.match(asked.messages, [/^2 records matched no QSO in the log and were not imported \(first: K1QRB .*; import with insert_unmatched=true to store them$/]);
    t.equal(await qsoCount(pool, kept.stationId), 1);
  });

  t.test('a Club Log download is a whole log too', async (t) => {
    const op = await createOperator(pool, { callsign: 'DL1CLB' });
    await importText(pool, adifDocument([qso('K2CLA', '20240301', '1000', '20m', 'CW')]), { stationId: op.stationId });
    const summary = await importText(pool, clublogDownload(op.callsign, [
      { call: 'K2CLA', date: '20240301', time: '1000', band: '20M', mode: 'CW' },
      { call: 'K2CLB', date: '20240301', time: '1030', band: '17M', mode: 'FT8' },
    ]), { stationId: op.stationId, door: 'cli' });
    t.match(summary, { download: 'clublog', imported: 1, confirmed: 1, unmatched: 1 });
    t.same(summary.messages, ['1 record matched no QSO in the log and was imported as new QSOs (first: K2CLB 2024-03-01 10:30 17m FT8); import with --no-insert-unmatched to only confirm QSOs already in the log']);
    t.same(await rows(pool, op.stationId, 'call, clublog_qso_download_status AS clublog'), [{ call: 'K2CLA', clublog: 'Y' }, { call: 'K2CLB', clublog: 'Y' }]);
  });

  t.test('a LoTW report into an empty location is stored whole, into a filled one it only confirms', async (t) => {
    const report = (call: string) => lotwReport(call, [
      { call: 'K3LWA', date: '20240301', time: '1000', band: '20M', mode: 'FT8' },
      { call: 'K3LWB', date: '20240301', time: '1100', band: '40M', mode: 'CW' },
    ]);
    const empty = await createOperator(pool, { callsign: 'DL1LTW' });
    const whole = await importText(pool, report(empty.callsign), { stationId: empty.stationId });
    t.match(whole, { download: 'lotw', imported: 2, unmatched: 2 });
    t.same(await rows(pool, empty.stationId, 'call, lotw_qsl_rcvd, lotw_qslrdate::text, qsl_rcvd'), [
      { call: 'K3LWA', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-15', qsl_rcvd: null },
      { call: 'K3LWB', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-15', qsl_rcvd: null },
    ], 'stored as LoTW-confirmed QSOs');

    const filled = await createOperator(pool, { callsign: 'DL2LTW' });
    await importText(pool, adifDocument([qso('K3LWA', '20240301', '1000', '20m', 'FT8')]), { stationId: filled.stationId });
    const confirms = await importText(pool, report(filled.callsign), { stationId: filled.stationId });
    t.match(confirms, { imported: 0, confirmed: 1, unmatched: 1 });
    t.same(confirms.messages, ['1 record matched no QSO in the log and was not imported (first: K3LWB 2024-03-01 11:00 40m CW); import with insert_unmatched=true to store them']);
    t.equal(await qsoCount(pool, filled.stationId), 1);

    const dry = await createOperator(pool, { callsign: 'DL3LTW' });
    t.match(await importText(pool, report(dry.callsign), { stationId: dry.stationId, dryRun: true }), { imported: 2, unmatched: 2 }, 'a dry run counts the same');
    t.equal(await qsoCount(pool, dry.stationId), 0);
  });

  t.test('FREQ in Hz of any digit count is read as Hz, said once for the import', async (t) => {
    const op = await createOperator(pool, { callsign: 'DL1HZ' });
    const summary = await importText(pool, adifDocument([
      qso('K4HZA', '20240301', '1000', '40m', 'FT8', [['FREQ', '7076000']]),
      qso('K4HZB', '20240301', '1001', '40m', 'FT8', [['FREQ', '7074000']]),
      qso('K4HZC', '20240301', '1002', '80m', 'CW', [['FREQ', '3573000']]),
      qso('K4HZD', '20240301', '1003', '20m', 'FT8', [['FREQ', '14074000']]),
      qso('K4HZE', '20240301', '1004', '2m', 'FM', [['FREQ', '145500000']]),
      qso('K4HZF', '20240301', '1005', '20m', 'FT8', [['FREQ', '14.074']]),
      qso('K4HZG', '20240301', '1006', '2190m', 'CW', [['FREQ', '0.1357']]),
      qso('K4HZH', '20240301', '1007', '3cm', 'CW', [['FREQ', '10368.1']]),
    ]), { stationId: op.stationId });
    t.match(summary, { imported: 8, failed: 0 });
    t.equal(summary.messages.length, 1, 'one message for all of them');
    t.match(summary.messages[0], /^record 1, line 3: FREQ "7076000" is Hz, not MHz: stored as 7.076 MHz \[5 times: record 1, line 3; record 2, line 4; record 3, line 5; record 4, line 6; record 5, line 7\]$/);
    t.same((await rows(pool, op.stationId, 'freq::float8 AS freq, band')).map((row) => [row.freq, row.band]), [
      [7076000, '40m'], [7074000, '40m'], [3573000, '80m'], [14074000, '20m'], [145500000, '2m'], [14074000, '20m'], [135700, '2190m'], [10368100000, '3cm'],
    ], 'Hz read as Hz; MHz values unchanged');
  });

  t.test("a STATION_CALLSIGN other than the location's is imported under one warning; strict refuses it", async (t) => {
    const records = [
      qso('K5SCA', '20240301', '1000', '20m', 'CW', [['STATION_CALLSIGN', 'KK7KNB']]),
      qso('K5SCB', '20240301', '1001', '20m', 'CW', [['STATION_CALLSIGN', 'KK7KNB']]),
      qso('K5SCC', '20240301', '1002', '20m', 'CW', [['OPERATOR', 'W7OTH']]),
      qso('K5SCD', '20240301', '1003', '20m', 'CW', [['STATION_CALLSIGN', 'K9CTS'], ['OPERATOR', 'W7OTH']]),
    ];
    const op = await createOperator(pool, { callsign: 'K9CTS' });
    const warned = await importText(pool, adifDocument(records), { stationId: op.stationId });
    t.match(warned, { imported: 4, failed: 0 });
    t.same(warned.messages, [
      "3 records name station callsign KK7KNB, W7OTH, not the location's K9CTS: imported all the same " +
        '(first: KK7KNB: K5SCA 2024-03-01 10:00 20m CW; KK7KNB: K5SCB 2024-03-01 10:01 20m CW; W7OTH: K5SCC 2024-03-01 10:02 20m CW); import with strict_callsign=true to refuse them',
    ], 'OPERATOR counts only where STATION_CALLSIGN is absent');

    const strict = await createOperator(pool, { callsign: 'K9CTS' });
    const refused = await importText(pool, adifDocument(records), { stationId: strict.stationId, strictCallsign: true });
    t.match(refused, { parsed: 4, imported: 1, failed: 3 });
    t.match(refused.messages, [/^3 records name station callsign KK7KNB, W7OTH, not the location's K9CTS: not imported \(first: KK7KNB: K5SCA/]);
    t.same((await rows(pool, strict.stationId, 'call')).map((row) => row.call), ['K5SCD']);
  });
});
