import type pg from 'pg';
import { inTransaction } from '../db/transaction.js';
import type { Logger } from '../log.js';

/**
 * Reading and compacting qso_counts (sql/009_qso_counts.sql): the per-bucket QSO counts every
 * writer appends in its own transaction, so that a list's exact total is a sum over a few
 * hundred rows instead of a count over every matching QSO.
 */

/** The columns of a bucket, in table order (the compaction regroups by them). */
const BUCKET_COLUMNS = `station_id, operator, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd,
  qrzcom_qso_download_status, clublog_qso_download_status`;

/** A location is compacted once writers appended this many rows (one per bucket a write statement touched). */
const COMPACT_ABOVE_ROWS = 256;

/** Locations folded per compaction statement, so that one round stays short. */
const COMPACT_STATIONS_PER_ROUND = 50;

/** Only one process compacts at a time (others skip the round): first key of a two-key advisory lock. */
const COMPACTION_LOCK: [number, number] = [0x51_0c, 0];

/** The total of the buckets `conditions` select (on alias c, over qso_counts' columns). */
export function bucketTotalSql(conditions: readonly string[]): string {
  return `SELECT coalesce(sum(c.n), 0)::int AS total FROM qso_counts c WHERE ${conditions.join(' AND ')}`;
}

/**
 * Folds the rows of locations with many unfolded ones into one per non-empty bucket (a location
 * whose writers were quiet is left alone, however many buckets it has), in one transaction: the
 * rows it deletes are committed ones, so counts of writers still running stay untouched and
 * every snapshot sums to the same totals before and after. Returns the locations folded.
 */
export async function compactQsoCounts(pool: pg.Pool, aboveRows = COMPACT_ABOVE_ROWS): Promise<number> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS locked', COMPACTION_LOCK);
    if (!rows[0]!.locked) return 0;
    const result = await client.query<{ stations: number }>(
      `WITH busy AS (
         SELECT station_id FROM qso_counts WHERE NOT folded GROUP BY station_id HAVING count(*) > $1 LIMIT $2
       ), gone AS (
         DELETE FROM qso_counts c USING busy WHERE c.station_id = busy.station_id RETURNING c.*
       ), kept AS (
         INSERT INTO qso_counts (${BUCKET_COLUMNS}, n, folded)
         SELECT ${BUCKET_COLUMNS}, sum(n), true FROM gone GROUP BY ${BUCKET_COLUMNS} HAVING sum(n) <> 0
       )
       SELECT count(*)::int AS stations FROM busy`,
      [aboveRows, COMPACT_STATIONS_PER_ROUND],
    );
    return result.rows[0]!.stations;
  });
}

/** Compacts every `intervalMs` until stopped; a failed round is logged and the next one tried. */
export function startCountCompaction(pool: pg.Pool, logger: Logger, intervalMs = 5000): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = compactQsoCounts(pool).catch((error: Error) => logger.error('compacting qso_counts failed', { error: error.message }));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
