import t from 'tap';
import { testDatabase } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { insertQsos, seedQsos, type QsoRow } from '../helpers/qsoRows.js';
import { createStation } from '../../lib/accounts/stations.js';
import { qsoActivity, widgetTotals } from '../../lib/statistics/qsoStatistics.js';
import { compactQsoCounts } from '../../lib/qso/counts.js';
import { confirmationStatistics } from '../../lib/statistics/confirmationStatistics.js';

/**
 * qsoActivity (v1 api/statistics) sums the writers' month counts and counts only today's QSOs,
 * widgetTotals (v1 api/get_wp_stats) sums them and the buckets: the same numbers as counting
 * every QSO in each UTC period, at the periods' edges too, and per mode and submode. The
 * confirmations profile without dates sums the buckets too: the same as counting the QSOs.
 */
t.test('activity from the counts equals a count of each period, edges included', async (t) => {
  const db = (await testDatabase(t)).pool;
  const op = await createOperator(db, { callsign: 'DL1ACT' });
  const second = await createStation(db, { userId: op.userId, name: 'Portable', callsign: 'DL1ACT/P' });
  const times = [
    '2024-03-15 00:00:00', '2024-03-15 23:59:59', '2024-03-16 00:00:00', '2024-03-14 23:59:59', '2024-03-01 00:00:00',
    '2024-03-31 23:59:59', '2024-04-01 00:00:00', '2024-02-29 12:00:00', '2024-01-01 00:00:00', '2023-12-31 23:59:59',
    '2025-01-01 00:00:00', '2019-06-01 10:00:00',
  ];
  const modes: Array<[string, string | null]> = [['SSB', 'USB'], ['SSB', 'LSB'], ['CW', null], ['MFSK', 'FT4'], ['FT8', null]];
  await insertQsos(db, times.flatMap((time_on, i): QsoRow[] => [
    { station_id: op.stationId, call: `K${i}A`, time_on, mode: modes[i % 5]![0], submode: modes[i % 5]![1], lotw_qsl_rcvd: i % 2 ? 'Y' : 'N', qsl_rcvd: i % 3 ? null : 'Y' },
    { station_id: second, call: `K${i}B`, time_on, mode: modes[i % 3]![0], submode: modes[i % 3]![1], band: i % 2 ? '40m' : '20m', qrzcom_qso_download_status: i % 4 ? 'Y' : null },
  ]));
  const counted = async (stations: number[], from: string | null, to: string | null) =>
    (await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM qso WHERE station_id = ANY($1) AND ($2::timestamp IS NULL OR time_on >= $2) AND ($3::timestamp IS NULL OR time_on < $3)',
      [stations, from, to],
    )).rows[0]!.n;
  const check = async (label: string) => {
    for (const [now, day, nextDay] of [['2024-03-15T12:00:00Z', '2024-03-15', '2024-03-16'], ['2024-12-31T23:59:59Z', '2024-12-31', '2025-01-01'], ['2024-02-29T00:00:00Z', '2024-02-29', '2024-03-01']] as const) {
      const month = `${day.slice(0, 7)}-01`;
      const nextMonth = new Date(Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)), 1)).toISOString().slice(0, 10);
      const year = `${day.slice(0, 4)}-01-01`;
      for (const stations of [[op.stationId], [op.stationId, second]]) {
        t.same(await qsoActivity(db, { stationIds: stations, operator: null }, new Date(now)), {
          total: await counted(stations, null, null),
          today: await counted(stations, day, nextDay),
          month: await counted(stations, month, nextMonth),
          year: await counted(stations, year, `${Number(day.slice(0, 4)) + 1}-01-01`),
        }, `${label}: ${now}, ${stations.length} location(s)`);
      }
    }
  };
  // The WordPress widget's totals of one location: all time, this year, per mode and submode.
  const checkWidget = async (label: string) => {
    for (const now of ['2024-03-15T12:00:00Z', '2025-06-01T00:00:00Z']) {
      const year = now.slice(0, 4);
      const { rows: modeRows } = await db.query<{ count: string; col_mode: string; col_submode: string | null }>(
        `SELECT count(*)::text AS count, mode AS col_mode, submode AS col_submode FROM qso
          WHERE station_id = $1 GROUP BY mode, submode ORDER BY count(*) DESC, mode, submode`, [op.stationId],
      );
      t.same(await widgetTotals(db, op.stationId, new Date(now)), {
        all: String(await counted([op.stationId], null, null)),
        year: String(await counted([op.stationId], `${year}-01-01`, `${Number(year) + 1}-01-01`)),
        modes: modeRows,
      }, `${label}: the widget's totals at ${now}`);
    }
  };
  // The confirmations profile without dates sums the buckets; a range of dates from before the
  // first QSO selects the same QSOs and is counted: the two must agree.
  const checkConfirmations = async (label: string) => {
    const scope = { stationIds: [op.stationId, second], operator: null };
    for (const [band, mode] of [[null, null], ['40m', null], [null, 'SSB'], ['20m', 'USB']] as const) {
      const filters = { types: ['lotw', 'qsl', 'qrz'] as const, since: null, qsoUntil: null, band, mode };
      const summed = await confirmationStatistics(db, scope, { ...filters, qsoSince: null });
      t.same(summed, await confirmationStatistics(db, scope, { ...filters, qsoSince: '1900-01-01' }), `${label}: confirmations, band ${band}, mode ${mode}`);
      if (band === null && mode === null) t.ok(summed.total > 10, `${label}: ${summed.total} confirmations`);
    }
  };
  await check('appended counts');
  await checkWidget('appended counts');
  await checkConfirmations('appended counts');
  await compactQsoCounts(db, 0);
  await check('folded counts');
  await checkWidget('folded counts');
  await checkConfirmations('folded counts');
  // A QSO deleted, another moved to the other location: the counts follow.
  await seedQsos(db, [op.stationId, second], "DELETE FROM qso WHERE call IN ('K0A', 'K4A')");
  await seedQsos(db, [op.stationId, second], "UPDATE qso SET station_id = $1 WHERE call = 'K2B'", [op.stationId]);
  await seedQsos(db, [op.stationId], "UPDATE qso SET lotw_qsl_rcvd = 'Y' WHERE call IN ('K2A', 'K6A')");
  await check('after a delete and a move');
  await checkWidget('after a delete and a move');
  await checkConfirmations('after a delete, a move and confirmations');
});
