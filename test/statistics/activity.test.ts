import t from 'tap';
import { testDatabase } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { insertQsos } from '../helpers/qsoRows.js';
import { createStation } from '../../lib/accounts/stations.js';
import { qsoActivity } from '../../lib/statistics/qsoStatistics.js';
import { compactQsoCounts } from '../../lib/qso/counts.js';

/**
 * qsoActivity (v1 api/statistics) sums the writers' month counts and counts only today's QSOs:
 * the same numbers as counting every QSO in each UTC period, at the periods' edges too.
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
  await insertQsos(db, times.flatMap((time_on, i) => [
    { station_id: op.stationId, call: `K${i}A`, time_on },
    { station_id: second, call: `K${i}B`, time_on },
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
  await check('appended counts');
  await compactQsoCounts(db, 0);
  await check('folded counts');
});
