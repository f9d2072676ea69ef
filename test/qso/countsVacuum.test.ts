import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { testDatabase } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { seedQsos } from '../helpers/qsoRows.js';
import { compactQsoCounts } from '../../lib/qso/counts.js';

/** `count` QSOs in as many months (one row each in qso_month_counts), all in one statement. */
function spreadSql(count: number, tag: string): string {
  return `INSERT INTO qso (station_id, call, time_on, band, mode)
          SELECT $1, 'K' || g || '${tag}', timestamp '1990-01-01' + g * interval '1 month', (ARRAY['20m', '40m'])[1 + g % 2], 'CW'
            FROM generate_series(1, ${count}) g`;
}

/**
 * The statistics' dead rows of a table once they count at least `atLeast` (they reach the
 * statistics within seconds), or once the table was vacuumed (then 0).
 */
async function deadRows(db: pg.Pool, table: string, atLeast: number): Promise<{ dead: number; vacuumed: boolean }> {
  for (let attempt = 0; ; attempt++) {
    const { rows: [row] } = await db.query<{ dead: number; vacuumed: boolean }>(
      'SELECT n_dead_tup::int AS dead, last_vacuum IS NOT NULL AS vacuumed FROM pg_stat_user_tables WHERE relname = $1', [table]);
    if (row!.dead >= atLeast || row!.vacuumed || attempt === 150) return row!;
    await sleep(100);
  }
}

t.test('compactions fold in place and vacuum the tables of counts, whose dead rows stay bounded', async (t) => {
  const { pool: db } = await testDatabase(t);
  // Only the compaction's own vacuum here: a vacuum cleared the dead rows before the test read
  // the statistics once (n_dead_tup 0), autovacuum's or the compaction's.
  await db.query('ALTER TABLE qso_month_counts SET (autovacuum_enabled = false)');
  const op = await createOperator(db, { callsign: 'DL1VAC' });
  await seedQsos(db, [op.stationId], spreadSql(2000, 'A'), [op.stationId]);
  t.equal(await compactQsoCounts(db, 0) > 0, true, 'the appended rows are folded');
  // Folding deleted the 2,000 appended rows; the folded ones replaced them, so a fold in place
  // leaves as many dead rows as it deleted, and a vacuum is due once the statistics show them:
  // the compaction's own, at once when the statistics had them already.
  const folded = await deadRows(db, 'qso_month_counts', 2000);
  t.ok(folded.dead === 2000 || folded.vacuumed, `a fold leaves the rows it deleted dead until a vacuum (${folded.dead} dead, vacuumed: ${folded.vacuumed})`);

  // 300 more in buckets the first 300 have: added to their folded rows.
  await seedQsos(db, [op.stationId], spreadSql(300, 'B'), [op.stationId]);
  await compactQsoCounts(db, 0);
  const { rows: [after] } = await db.query<{ dead: number; live: number; vacuumed: boolean }>(
    `SELECT n_dead_tup::int AS dead, n_live_tup::int AS live, last_vacuum IS NOT NULL AS vacuumed
       FROM pg_stat_user_tables WHERE relname = 'qso_month_counts'`,
  );
  t.ok(after!.vacuumed, 'the round after vacuumed the table');
  t.ok(after!.dead < 1000, `dead rows after the vacuum: ${after!.dead}`);
  t.equal(after!.live, 2000, 'one folded row per bucket');
  const { rows: [sum] } = await db.query<{ n: number }>('SELECT sum(n)::int AS n FROM qso_month_counts WHERE station_id = $1', [op.stationId]);
  t.equal(sum!.n, 2300, 'the folded rows count every QSO');
});
