import t from 'tap';
import { testDatabaseAt } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { seedQsos } from '../helpers/qsoRows.js';
import { countTableMismatches } from '../helpers/countRecount.js';
import { migrate } from '../../lib/db/migrate.js';
import { beginQsoWriteForStations } from '../../lib/qso/writeLock.js';

/** sql/057 rebuilds qso_month_counts keyed by the received statuses: on a populated database, with a writer in flight, every count stays exact. */

const STATUSES = '057_month_counts_hold_statuses';

t.test('the month counts are rebuilt with the statuses, a writer committing meanwhile counted', async (t) => {
  const db = await testDatabaseAt(t, '056_confirmation_indexes_hold_filters');
  const pool = db.pool;
  const owners = await Promise.all(['DL1MST', 'DL2MST'].map((callsign) => createOperator(pool, { callsign })));
  for (const owner of owners) {
    await seedQsos(pool, [owner.stationId],
      `INSERT INTO qso (station_id, call, time_on, band, mode, operator, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status)
       SELECT $1, 'K' || g, timestamp '2019-01-01' + g * interval '13 hours', '20m', 'CW', (ARRAY['DL1A', NULL])[1 + g % 2],
              CASE WHEN g % 5 = 0 THEN 'Y' ELSE 'N' END, CASE WHEN g % 3 = 0 THEN 'Y' END, CASE WHEN g % 7 = 0 THEN 'Y' END,
              CASE WHEN g % 11 = 0 THEN 'Y' END, CASE WHEN g % 4 = 0 THEN 'Y' END
         FROM generate_series(1, 2000) g`, [owner.stationId]);
  }

  const writer = await pool.connect();
  t.teardown(() => writer.release());
  await writer.query('BEGIN');
  await beginQsoWriteForStations(writer, [owners[1]!.stationId]);
  await writer.query(`INSERT INTO qso (station_id, call, time_on, band, mode, lotw_qsl_rcvd) SELECT $1, 'W' || g, timestamp '2024-06-01' + g * interval '1 hour', '40m', 'SSB', 'Y'
    FROM generate_series(1, 300) g`, [owners[1]!.stationId]);
  let settled = false;
  const migrating = migrate(pool).finally(() => { settled = true; });
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(settled, false, 'the migration waits for the writer in flight');
  await writer.query('COMMIT');
  t.ok((await migrating).includes(STATUSES), 'the migration applied');
  t.same(await countTableMismatches(pool), [], 'every row of every table of counts, the month counts with their statuses, against a count of qso');

  await seedQsos(pool, [owners[0]!.stationId], `UPDATE qso SET lotw_qsl_rcvd = 'Y', time_on = time_on + interval '40 days' WHERE station_id = $1 AND id % 6 = 1`, [owners[0]!.stationId]);
  await seedQsos(pool, [owners[1]!.stationId], "UPDATE qso SET qsl_rcvd = NULL WHERE station_id = $1 AND qsl_rcvd = 'Y' AND id % 2 = 0", [owners[1]!.stationId]);
  await seedQsos(pool, [owners[1]!.stationId], 'DELETE FROM qso WHERE station_id = $1 AND id % 9 = 0', [owners[1]!.stationId]);
  t.same(await countTableMismatches(pool), [], 'and after confirmations, moves in time and deletes under the trigger it left');
});
