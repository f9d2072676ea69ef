import type pg from 'pg';
import { inTransaction } from '../db/transaction.js';
import { isTransactionPooled, sessionSettingsSql } from '../db/connectionSetup.js';
import type { SqlParams } from '../db/sqlParams.js';
import type { Logger } from '../log.js';
import { COUNT_TABLES } from '../db/countTables.js';
import type { ScopeOn } from './scope.js';
import { dayRangeConditions } from './filters.js';

/**
 * Reading and compacting the QSO counts every writer appends in its own transaction (the tables
 * and their trigger: lib/db/countTables.ts; what each serves: docs/storage.md): per bucket of the
 * list's filters (qso_counts, sql/009), per block of ids (qso_id_counts, sql/012), per month of
 * time_on (qso_month_counts, sql/013), per DXCC entity (qso_dxcc_counts, sql/025). A list's exact
 * total is then a sum over a few hundred rows instead of a count over every matching QSO, and a
 * deep page starts from the month or block of ids its offset falls into instead of skipping
 * every QSO before it.
 */

/** qso_id_counts counts QSOs per block of this many consecutive ids (fixed by its trigger). */
export const ID_BLOCK = 4096;

/** A location is compacted once writers appended this many rows (one per bucket a write statement touched). */
const COMPACT_ABOVE_ROWS = 256;

/** Locations folded per compaction statement, so that one round stays short. */
const COMPACT_STATIONS_PER_ROUND = 50;

/** Only one process compacts at a time (others skip the round): first key of a two-key advisory lock. */
const COMPACTION_LOCK: [number, number] = [0x51_0c, 0];

/** The sum of the counts of `table`'s rows that `conditions` (on alias c) select, as `total`. */
export function countsTotalSql(table: string, conditions: readonly string[]): string {
  return `SELECT coalesce(sum(c.n), 0)::int AS total FROM ${table} c WHERE ${conditions.join(' AND ')}`;
}

/** The total of the buckets `conditions` select (on alias c, over qso_counts' columns). */
export function bucketTotalSql(conditions: readonly string[]): string {
  return countsTotalSql('qso_counts', conditions);
}

/**
 * The total of a scope's QSOs (`scope`: its conditions on alias c, location and operator): the
 * sum of its months, which are a few hundred where its buckets are thousands (a generated 1M
 * log: 174 rows against 6,619, 0.08 against 1.0 ms).
 */
export function scopeTotalSql(scope: readonly string[]): string {
  return countsTotalSql('qso_month_counts', scope);
}

/**
 * The exact number of a list's QSOs with sinceId < id < idBelow, without counting them: the sum
 * of the whole id blocks in between from `blockRows` (rows (block, n): blockRowsSql), less the QSOs of the first block at or below
 * sinceId, plus those of the last block below idBelow (each count covers fewer than ID_BLOCK
 * ids, read from qso_station_id with `matching`, the same conditions on alias q), their values
 * bound in `params` already. Needs sinceId + 1 < idBelow (else there is nothing to count).
 */
export function idRangeTotalSql(blockRows: string, matching: string, params: SqlParams, sinceId: number, idBelow: number): string {
  const first = Math.floor((sinceId + 1) / ID_BLOCK);
  const last = Math.floor(idBelow / ID_BLOCK);
  const [firstBlock, lastBlock] = [params.add(first), params.add(last)];
  const [firstStart, lastStart] = [params.add(first * ID_BLOCK), params.add(last * ID_BLOCK)];
  const [after, below] = [params.add(sinceId), params.add(idBelow)];
  return `SELECT ((SELECT coalesce(sum(r.n), 0) FROM (${blockRows}) r (block, n)
                    WHERE r.block >= ${firstBlock}::bigint AND r.block < ${lastBlock}::bigint)
                - (SELECT count(*) FROM qso q WHERE ${matching} AND q.id >= ${firstStart}::bigint AND q.id <= ${after}::bigint)
                + (SELECT count(*) FROM qso q WHERE ${matching} AND q.id >= ${lastStart}::bigint AND q.id < ${below}::bigint))::int AS total`;
}

/**
 * For the page at `offset` of a scope's QSOs in ascending id order, from `blockRows`, their
 * counts per block of ids (rows (block, n): blockRowsSql): the first id of the block the offset
 * falls into, as `from_id` (the page reads id >= from_id), and `skipped`, the QSOs in the blocks
 * before it, so the page's own offset is `offset - skipped`: it skips fewer than ID_BLOCK ids'
 * QSOs; and the end of the block where `end` (offset + per_page) is reached, as `to_id` (null
 * past the last block). Exact below the page's idBelow: the blocks before the chosen one lie
 * below it whenever the page reaches any QSO (a block holding ids at or above idBelow is chosen
 * at the latest), and so do the page's QSOs before to_id. No row when the offset is beyond the
 * last QSO. `offset` and `end` are bound placeholders.
 */
export function idSeekSql(blockRows: string, offset: string, end: string): string {
  return `WITH s AS (SELECT b.block, b.n, sum(b.n) OVER (ORDER BY b.block) AS upto
                       FROM (SELECT r.block, sum(r.n) AS n FROM (${blockRows}) r (block, n) GROUP BY r.block) b),
          f AS (SELECT s.block, s.n, s.upto FROM s WHERE s.upto > ${offset}::bigint ORDER BY s.block LIMIT 1),
          e AS (SELECT s.block FROM s WHERE s.upto >= ${end}::bigint ORDER BY s.block LIMIT 1)
          SELECT (f.block * ${ID_BLOCK})::text AS from_id, (f.upto - f.n)::int AS skipped,
                 ((e.block + 1) * ${ID_BLOCK})::text AS to_id
            FROM f LEFT JOIN e ON true`;
}

/**
 * 'YYYY-MM-01' of a 'YYYY-MM-DD' day, and the first day of the month after: after December 9999,
 * PostgreSQL's 'infinity' (it also sorts after every 'YYYY-MM-DD' as a string).
 */
const monthOf = (day: string): string => `${day.slice(0, 7)}-01`;
function nextMonth(day: string): string {
  const date = new Date(`${monthOf(day)}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + 1);
  return date.getUTCFullYear() > 9999 ? 'infinity' : date.toISOString().slice(0, 10);
}

/**
 * A range of days `from` <= time_on < `to` (either open) as the whole months it covers, from
 * `first` (inclusive) to `last` (exclusive; null: open), and the partial months at either end
 * (each with its month and its days). Null when the range lies inside one month.
 */
interface MonthSpan {
  first: string | null;
  last: string | null;
  partial: Array<{ month: string; from: string; to: string }>;
}

function monthSpan(from: string | null, to: string | null): MonthSpan | null {
  const first = from === null ? null : from === monthOf(from) ? from : nextMonth(from);
  const last = to === null ? null : monthOf(to);
  if (first !== null && last !== null && first > last) return null;
  const partial: MonthSpan['partial'] = [];
  if (from !== null && first !== from) partial.push({ month: monthOf(from), from, to: first! });
  if (to !== null && last !== to) partial.push({ month: last!, from: last!, to });
  return { first, last, partial };
}

/** A table of counts' rows (alias c) of the whole months of `span`. */
function wholeMonthConditions(span: MonthSpan, params: SqlParams): string[] {
  return [
    ...(span.first === null ? [] : [`c.month >= ${params.add(span.first)}::date`]),
    ...(span.last === null ? [] : [`c.month < ${params.add(span.last)}::date`]),
  ];
}

/**
 * What a sum over months adds up, as an aggregate over qso_month_counts (alias c) and over qso
 * (alias q): the QSOs, or per QSO a number of the received statuses both hold.
 */
export interface MonthMeasure {
  counts: string;
  qsos: string;
}

const QSOS: MonthMeasure = { counts: 'sum(c.n)', qsos: 'count(*)' };

/**
 * The exact number of a scope's QSOs with `from` <= time_on < `to` (days 'YYYY-MM-DD', either
 * open), without counting them all: the whole months in between summed from qso_month_counts,
 * and only the QSOs of the partial months at either end counted (from qso_station_time), as
 * monthRowsSql gives them. A range inside one month is counted. `scopeOn`: the scope's
 * conditions (and any bucket filters') on each alias, ScopeOn (lib/qso/scope.ts).
 */
export function timeRangeTotalSql(scopeOn: ScopeOn, params: SqlParams, from: string | null, to: string | null, measure = QSOS): string {
  const rows = monthRowsSql(scopeOn, params, from, to, measure);
  if (rows !== null) return `SELECT coalesce(sum(m.n), 0)::int AS total FROM (${rows}) m (month, n)`;
  return `SELECT coalesce(${measure.qsos}, 0)::int AS total FROM qso q WHERE ${scopeOn('q')} AND ${dayRangeConditions(from, to, params).join(' AND ')}`;
}

/**
 * A scope's QSOs per month of time_on with `from` <= time_on < `to` (days, either open), as rows
 * (month, n) newest or oldest in any order: the whole months summed from qso_month_counts (alias c), the
 * partial months at either end counted from qso (alias q) and labelled with their month. Null
 * when the range lies inside one month. `scopeOn` as for timeRangeTotalSql.
 */
export function monthRowsSql(scopeOn: ScopeOn, params: SqlParams, from: string | null, to: string | null, measure = QSOS): string | null {
  const span = monthSpan(from, to);
  if (span === null) return null;
  return [
    `SELECT c.month, ${measure.counts} AS n FROM qso_month_counts c WHERE ${[scopeOn('c'), ...wholeMonthConditions(span, params)].join(' AND ')} GROUP BY c.month`,
    ...span.partial.map(({ month, from: lo, to: hi }) =>
      `SELECT ${params.add(month)}::timestamp, ${measure.qsos} FROM qso q WHERE ${scopeOn('q')} AND ${dayRangeConditions(lo, hi, params).join(' AND ')}`),
  ].join(' UNION ALL ');
}

/** The rows (block, n) of qso_id_counts that `scope` (on alias c) selects, for idSeekSql and idRangeTotalSql. */
export function blockRowsSql(scope: string): string {
  return `SELECT c.block, c.n FROM qso_id_counts c WHERE ${scope}`;
}

/**
 * For the page at `offset` of QSOs newest first (time_on DESC) that ends before `reach` (offset
 * + page size), from `monthRows`, their counts per month (month, n): the month the offset falls
 * into, as `below`, the end of that month (the page reads time_on < below), and `skipped`, the
 * QSOs at or after it, so the page's own offset is `offset - skipped`: it skips at most one
 * month's QSOs. `above` is the start of the month `reach` falls into, so the page reads time_on
 * >= above too (every QSO of the page lies in that month or a newer one), null when the page
 * reaches past the oldest QSO: each location's part of the page is then read within those
 * months, however sparse its QSOs are there. No row when the offset is beyond the last QSO.
 * `monthRows` is monthRowsSql's; `offset` and `reach` are bound placeholders.
 */
export function monthSeekSql(monthRows: string, offset: string, reach: string): string {
  return `WITH w AS (SELECT month, n, sum(n) OVER (ORDER BY month DESC) AS upto FROM (${monthRows}) m (month, n))
          SELECT (s.month + interval '1 month')::text AS below, (s.upto - s.n)::int AS skipped,
                 (SELECT e.month::text FROM w e WHERE e.upto >= ${reach}::bigint ORDER BY e.month DESC LIMIT 1) AS above
            FROM w s WHERE s.upto > ${offset}::bigint ORDER BY s.month DESC LIMIT 1`;
}

/**
 * Whether some location has more than `aboveRows` unfolded rows in some table of counts: one
 * statement over the tables' partial indexes of unfolded rows, so that the rounds of an idle
 * server (every 5 s in every API process) cost one round trip instead of a transaction with a
 * statement per table (about 9 ms of database work beside the requests). A hint only: the
 * compaction's own transaction decides again.
 */
async function compactionDue(pool: pg.Pool, aboveRows: number): Promise<boolean> {
  const checks = COUNT_TABLES.map(({ name }) => `EXISTS (SELECT 1 FROM ${name} WHERE NOT folded GROUP BY station_id HAVING count(*) > $1)`);
  const { rows } = await pool.query<{ due: boolean }>(`SELECT ${checks.join(' OR ')} AS due`, [aboveRows]);
  return rows[0]!.due;
}

/**
 * Folds the rows of locations with many unfolded ones (a location whose writers were quiet is
 * left alone, however many buckets it has), in one transaction: each table's unfolded rows of
 * those locations are deleted and their sums added to the one folded row per bucket (an upsert
 * on the unique index of folded rows, sql/019), so a round writes in proportion to what writers
 * appended since the last one, not to the location's buckets; a bucket whose folded count
 * reaches zero is deleted. The rows it deletes are committed ones, so counts of writers still
 * running stay untouched and every snapshot sums to the same totals before and after. Returns
 * the locations folded (counted once per table).
 */
export async function compactQsoCounts(pool: pg.Pool, aboveRows = COMPACT_ABOVE_ROWS): Promise<number> {
  if (!(await compactionDue(pool, aboveRows))) return 0;
  const folded = await foldCounts(pool, aboveRows);
  if (folded > 0) await vacuumCountTables(pool);
  return folded;
}

/**
 * A table of counts is vacuumed once its dead rows pass this many plus this share of its live
 * ones (autovacuum's rule, with its scale factor), so that its dead rows stay bounded by its size.
 */
const VACUUM_ABOVE_DEAD_ROWS = 1000;
const VACUUM_DEAD_SHARE = 0.2;

/**
 * VACUUM of the tables of counts that need it, after a round that folded: the rows a round
 * deletes are dead until a vacuum, and where autovacuum is off (or slow to come) they piled up
 * without bound (1.7M dead rows under 133,000 live ones in a table of month and bucket after an
 * afternoon of benchmarks), slowing every sum and compaction over them. Not after every round:
 * a vacuum of eight such tables cost about 250 ms on a 1M-QSO log (their indexes are read
 * whole), a fold of 300 appended rows 20 ms. SKIP_LOCKED: a table another process (or
 * autovacuum) is vacuuming is left to it. On a connection of its own without statement_timeout
 * (VACUUM cannot run in a transaction, where a SET LOCAL would hold).
 */
async function vacuumCountTables(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ name: string }>(
    `SELECT relname AS name FROM pg_stat_user_tables WHERE relid = ANY($1::regclass[]) AND n_dead_tup > $2::bigint + $3::float8 * n_live_tup`,
    [COUNT_TABLES.map(({ name }) => name), VACUUM_ABOVE_DEAD_ROWS, VACUUM_DEAD_SHARE],
  );
  if (rows.length === 0) return;
  const client = await pool.connect();
  try {
    // Behind a transaction-mode pooler a SET would stay on the backend for others: the vacuum
    // then runs with the server's own statement_timeout.
    const transactionPooled = isTransactionPooled(client);
    if (!transactionPooled) await client.query('SET statement_timeout = 0');
    await client.query(`VACUUM (SKIP_LOCKED) ${rows.map(({ name }) => name).join(', ')}`);
    // Back to the connection's own settings (RESET would drop them to the server's defaults).
    if (!transactionPooled) await client.query(sessionSettingsSql(client) || 'RESET statement_timeout');
    client.release();
  } catch (error) {
    // A connection whose setting may be left changed goes, not back to the pool.
    client.release(error as Error);
    throw error;
  }
}

/** The folding transaction of compactQsoCounts: the locations folded, 0 when another process holds the round. */
function foldCounts(pool: pg.Pool, aboveRows: number): Promise<number> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS locked', COMPACTION_LOCK);
    if (!rows[0]!.locked) return 0;
    let folded = 0;
    for (const { name, columns } of COUNT_TABLES) {
      const result = await client.query<{ stations: number; zeroed: number[] | null }>(
        `WITH busy AS (
           SELECT station_id FROM ${name} WHERE NOT folded GROUP BY station_id HAVING count(*) > $1 LIMIT $2
         ), gone AS (
           DELETE FROM ${name} c USING busy WHERE c.station_id = busy.station_id AND NOT c.folded RETURNING c.*
         ), merged AS (
           INSERT INTO ${name} AS f (${columns}, n, folded)
           SELECT ${columns}, sum(n), true FROM gone GROUP BY ${columns} HAVING sum(n) <> 0
           ON CONFLICT (${columns}) WHERE folded DO UPDATE SET n = f.n + excluded.n
           RETURNING f.station_id, f.n
         )
         SELECT (SELECT count(*) FROM busy)::int AS stations,
                (SELECT array_agg(DISTINCT station_id) FROM merged WHERE n = 0) AS zeroed`,
        [aboveRows, COMPACT_STATIONS_PER_ROUND],
      );
      const { stations, zeroed } = result.rows[0]!;
      // A statement of its own: the upsert's rows cannot be deleted by the statement that wrote them.
      if (zeroed !== null) await client.query(`DELETE FROM ${name} WHERE folded AND n = 0 AND station_id = ANY($1::int[])`, [zeroed]);
      folded += stations;
    }
    return folded;
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
