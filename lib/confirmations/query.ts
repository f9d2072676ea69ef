import type pg from 'pg';
import { SqlParams } from '../db/sqlParams.js';
import { shapedStatement } from '../db/shapedStatement.js';
import { CONFIRMATION_KEYS, CONFIRMATION_TYPES, type ConfirmationType } from '../qso/confirmationTypes.js';
import { bandCondition, callCondition, confirmedCondition, dateRangeConditions, dayAfter, modeCondition } from '../qso/filters.js';
import { scopeConditions, scopeOnAliases, type QsoScope } from '../qso/scope.js';
import { timeRangeTotalSql } from '../qso/counts.js';
import { planList, unchosen } from '../qso/list/plan.js';

/**
 * The confirmation list: one row per (QSO, confirmation type) with that type received ('Y')
 * and a received date. Ordered by received date (newest first), then QSO id, then the fixed
 * type order of CONFIRMATION_KEYS.
 */

export interface ConfirmationFilters {
  scope: QsoScope;
  types: readonly ConfirmationType[];
  /** `YYYY-MM-DD`: received on or after, per type on its own date column. */
  since: string | null;
  qsoSince: string | null;
  qsoUntil: string | null;
  band: string | null;
  mode: string | null;
  /** Normalised (upper-case) worked callsign, matched exactly. */
  callsign: string | null;
}

export interface ConfirmationRow {
  qso_id: number;
  callsign: string;
  qso_date: string;
  mode: string;
  band: string;
  confirmation_date: string;
  type: string;
  submode?: string;
  gridsquare?: string;
  vucc_grids?: string;
  sat_name?: string;
  sat_mode?: string;
}

const OPTIONAL_FIELDS = ['submode', 'gridsquare', 'vucc_grids', 'sat_name', 'sat_mode'] as const;
type OptionalField = (typeof OPTIONAL_FIELDS)[number];

interface PageRow extends Record<OptionalField, string | null> {
  qso_id: number;
  type_rank: number;
  confirmation_date: string;
  callsign: string;
  qso_date: string;
  mode: string;
  band: string;
}

/** The request's conditions on the QSO itself, the same in every branch (placeholders are shared). */
function qsoConditions(filters: ConfirmationFilters, params: SqlParams): string[] {
  const conditions = dateRangeConditions(filters.qsoSince, filters.qsoUntil, params);
  const band = filters.band === null ? null : bandCondition(filters.band, params);
  if (band) conditions.push(band);
  if (filters.mode !== null) conditions.push(modeCondition(filters.mode, params));
  if (filters.callsign !== null) conditions.push(callCondition(params.add(filters.callsign)));
  return conditions;
}

/** Received, dated, and (with `since`, given as its placeholder) received on or after it. */
function typeConditions(type: ConfirmationType, sincePlaceholder: string | null): string[] {
  const { status, date } = CONFIRMATION_TYPES[type];
  const conditions = [`q.${status} = 'Y'`, `q.${date} IS NOT NULL`];
  if (sincePlaceholder !== null) conditions.push(`q.${date} >= ${sincePlaceholder}::date`);
  return conditions;
}

export interface ConfirmationPage {
  rows: ConfirmationRow[];
  total: number;
}

/**
 * One page and the total. The page query has one branch per (station, type), each with
 * `station_id = $n` rather than `= ANY(...)`: only an equality lets PostgreSQL read the
 * partial index `qso_conf_<type>` (station_id, date DESC, id) in order, so the branches merge
 * without a sort and each stops after `offset + limit` rows. The list planner (planList,
 * lib/qso/list/plan.ts) decides the rest: with the scope and types alone the total (from the
 * buckets, totalFromBucketsSql) is read in the page's statement, one snapshot for both; with
 * band or mode it is summed from the buckets, with other filters counted (countRows), in a
 * statement of its own run beside the page's.
 */
export async function listConfirmations(
  db: pg.Pool,
  filters: ConfirmationFilters,
  limit: number,
  offset: number,
  { dateRangeFirstMax = DATE_RANGE_FIRST_MAX } = {},
): Promise<ConfirmationPage> {
  const { stationIds } = filters.scope;
  if (stationIds.length === 0 || filters.types.length === 0) return { rows: [], total: 0 };
  const plan = planList({
    list: 'confirmations',
    dated: filters.qsoSince !== null || filters.qsoUntil !== null,
    receivedSince: filters.since !== null,
    buckets: filters.band !== null || filters.mode !== null,
    callsign: filters.callsign !== null,
  });
  if (plan.page === 'judge-range' && (await qsosInDateRange(db, filters)) <= dateRangeFirstMax) {
    return dateRangePage(db, filters, limit, offset);
  }
  const total = plan.total;
  switch (total) {
    case 'buckets-in-page': {
      const page = await pageRows(db, filters, limit, offset, true);
      return { rows: page.rows, total: page.total! };
    }
    case 'buckets':
    case 'months':
    case 'statuses':
    case 'count': {
      const counted = { buckets: totalFromBucketsSql, months: totalFromMonthsSql, statuses: totalFromStatusesSql, count: null }[total];
      const [{ rows }, count] = await Promise.all([
        pageRows(db, filters, limit, offset, false), counted === null ? countRows(db, filters) : countBy(db, filters, counted),
      ]);
      return { rows, total: count };
    }
    default:
      return unchosen(total);
  }
}

/**
 * Up to this many QSOs in the qso_since/qso_until range (an option, so that tests can hold both
 * ways to each other), the page reads the range's QSOs first
 * (dateRangePage); beyond it, the received-date indexes in order (pageRows), which find a wide
 * range's newest confirmations after a few entries but walk through every confirmation received
 * after a narrow range's (a month of 2020 in a log running to 2024: 127 ms).
 */
const DATE_RANGE_FIRST_MAX = 20_000;

/** The scope's QSOs in the QSO-date range, from the month counts (exact, without reading them all). */
async function qsosInDateRange(db: pg.Pool, filters: ConfirmationFilters): Promise<number> {
  const params = new SqlParams();
  const until = filters.qsoUntil === null ? null : dayAfter(filters.qsoUntil);
  const { rows } = await db.query<{ total: number }>(
    shapedStatement(db, timeRangeTotalSql(scopeOnAliases(filters.scope, params), params, filters.qsoSince, until), params.values));
  return rows[0]!.total;
}

/**
 * Page and total for a narrow QSO-date range, in one statement (so one snapshot): the range's
 * QSOs read from qso_station_time, each confirmed one giving a row per received type, sorted
 * whole (at most DATE_RANGE_FIRST_MAX QSOs) and counted. The total comes on every row, and on a
 * row of its own when the page is empty.
 */
async function dateRangePage(db: pg.Pool, filters: ConfirmationFilters, limit: number, offset: number): Promise<ConfirmationPage> {
  const params = new SqlParams();
  const conditions = [...scopeConditions(filters.scope, params), ...qsoConditions(filters, params), confirmedCondition(filters.types)];
  const since = filters.since === null ? null : params.add(filters.since);
  const types = filters.types.map((type) => {
    const { status, date } = CONFIRMATION_TYPES[type];
    return `(${CONFIRMATION_KEYS.indexOf(type)}, q.${status}, q.${date})`;
  });
  const { rows } = await db.query<PageRow & { total: number }>(shapedStatement(
    db,
    `WITH matched AS MATERIALIZED (
       SELECT q.id AS qso_id, t.type_rank, t.confirmation_date
         FROM qso q CROSS JOIN LATERAL (VALUES ${types.join(', ')}) t(type_rank, status, confirmation_date)
        WHERE ${conditions.join(' AND ')} AND t.status = 'Y' AND t.confirmation_date IS NOT NULL
              ${since === null ? '' : `AND t.confirmation_date >= ${since}::date`}),
     page AS (
       SELECT * FROM matched ORDER BY confirmation_date DESC, qso_id, type_rank
        LIMIT ${params.add(limit)} OFFSET ${params.add(offset)})
     SELECT n.total, page.qso_id, page.type_rank, to_char(page.confirmation_date, 'YYYY-MM-DD') AS confirmation_date,
            q.call AS callsign, to_char(q.time_on, 'YYYY-MM-DD HH24:MI:SS') AS qso_date, q.mode, q.band,
            q.submode, q.gridsquare, q.vucc_grids, q.sat_name, q.sat_mode
       FROM (SELECT count(*)::int AS total FROM matched) n
       LEFT JOIN (page JOIN qso q ON q.id = page.qso_id) ON true
      ORDER BY page.confirmation_date DESC, page.qso_id, page.type_rank`,
    params.values,
  ));
  const total = rows[0]!.total;
  return { rows: rows.filter((row) => row.qso_id !== null).map(toConfirmation), total };
}

/**
 * The page, merged from one branch per (location, type). `withTotal`: the total too, in the
 * same statement (scope and types alone, totalFromBucketsSql).
 */
async function pageRows(
  db: pg.Pool, filters: ConfirmationFilters, limit: number, offset: number, withTotal: boolean,
): Promise<{ rows: ConfirmationRow[]; total: number | null }> {
  const params = new SqlParams();
  const shared = qsoConditions(filters, params);
  // The scope's operator rule, spelled out here because the stations go into each branch singly.
  if (filters.scope.operator !== null) shared.push(`q.operator = ${params.add(filters.scope.operator)}`);
  const since = filters.since === null ? null : params.add(filters.since);
  // The branches merge in (date, id) order as they come, and the page's window of that merge
  // starts `slack` rows early and ends `slack` rows late: one QSO's rows tie on (date, id), at
  // most one per type, so a row's place in the full order (type rank breaking the ties) is at
  // most `slack` from its place in the merge. Ordering the merge by the rank too made
  // PostgreSQL sort every row before the offset again (an Incremental Sort, half of a deep
  // page's time: benchmarks/RESULTS.md, "Confirmation list").
  const slack = filters.types.length - 1;
  const windowStart = Math.max(0, offset - slack);
  const windowEnd = offset + limit + slack;
  const branchLimit = params.add(windowEnd);
  const branches: string[] = [];
  for (const stationId of filters.scope.stationIds) {
    const station = params.add(stationId);
    for (const type of filters.types) {
      const { date } = CONFIRMATION_TYPES[type];
      const where = [`q.station_id = ${station}`, ...typeConditions(type, since), ...shared].join(' AND ');
      branches.push(`(SELECT q.id AS qso_id, ${CONFIRMATION_KEYS.indexOf(type)} AS type_rank, q.${date} AS confirmation_date
          FROM qso q WHERE ${where}
         ORDER BY q.${date} DESC, q.id LIMIT ${branchLimit})`);
    }
  }
  // With the total (a scope and types alone) in the same statement: one snapshot for both, on one
  // row of its own when the page is empty.
  const rowsOfPage = withTotal
    ? `(${totalFromBucketsSql(filters, params)}) n LEFT JOIN (page JOIN qso q ON q.id = page.qso_id) ON true`
    : 'page JOIN qso q ON q.id = page.qso_id';
  const { rows } = await db.query<PageRow & { total?: number }>(shapedStatement(
    db,
    `WITH merged AS (
       SELECT c.qso_id, c.type_rank, c.confirmation_date
         FROM (${branches.join('\n UNION ALL ')}) c
        ORDER BY c.confirmation_date DESC, c.qso_id
        LIMIT ${params.add(windowEnd - windowStart)} OFFSET ${params.add(windowStart)}),
     -- Each row's place in the full order: the rows before the window, the window's rows of an
     -- earlier (date, id), and its own QSO's rows of a lower type rank. Only the window's first
     -- QSO can have rows before the window, and those rows all lie before the page.
     placed AS (
       SELECT m.*, ${params.add(windowStart)}::int - 2 + rank() OVER (ORDER BY m.confirmation_date DESC, m.qso_id)
                   + row_number() OVER (PARTITION BY m.confirmation_date, m.qso_id ORDER BY m.type_rank) AS place
         FROM merged m),
     page AS (
       SELECT qso_id, type_rank, confirmation_date FROM placed
        WHERE place >= ${params.add(offset)} AND place < ${params.add(offset + limit)})
     SELECT ${withTotal ? 'n.total, ' : ''}page.qso_id, page.type_rank, to_char(page.confirmation_date, 'YYYY-MM-DD') AS confirmation_date,
            q.call AS callsign, to_char(q.time_on, 'YYYY-MM-DD HH24:MI:SS') AS qso_date, q.mode, q.band,
            q.submode, q.gridsquare, q.vucc_grids, q.sat_name, q.sat_mode
       FROM ${rowsOfPage}
      ORDER BY page.confirmation_date DESC, page.qso_id, page.type_rank`,
    params.values,
  ));
  return { rows: rows.filter((row) => row.qso_id !== null).map(toConfirmation), total: withTotal ? rows[0]!.total! : null };
}

/**
 * The total beside a page with filters the buckets do not keep (a date range, `since`, a
 * callsign), counted. A count needs no order, so it runs over all stations at once. Without
 * conditions on the QSO itself (filters, the club operator) each type counts its partial index
 * alone, index-only: 130 ms on 1M QSOs, where one pass over the table would take 330 ms. With
 * them the table is read anyway, and one pass over the matching QSOs (by whichever index suits the filter)
 * counting their types beats a pass per type: 150 ms instead of 890 ms for band=20m. Its
 * WHERE tests the statuses only (the sum applies dates and `since`): the planner estimates that
 * OR well and picks the filter's index (band, time, call) when it is the narrower one.
 */
async function countRows(db: pg.Pool, filters: ConfirmationFilters): Promise<number> {
  const params = new SqlParams();
  const scope = scopeConditions(filters.scope, params);
  const qso = qsoConditions(filters, params);
  const since = filters.since === null ? null : params.add(filters.since);
  const received = filters.types.map((type) => `(${typeConditions(type, since).join(' AND ')})`);
  const text = qso.length === 0 && filters.scope.operator === null
    ? `SELECT ${received.map((condition) => `(SELECT count(*) FROM qso q WHERE ${[condition, ...scope].join(' AND ')})`).join(' + ')} AS total`
    : `SELECT coalesce(sum(${received.map((condition) => `(${condition} IS TRUE)::int`).join(' + ')}), 0) AS total
         FROM qso q WHERE ${[...scope, ...qso, confirmedCondition(filters.types)].join(' AND ')}`;
  const { rows } = await db.query<{ total: number }>(shapedStatement(db, text, params.values));
  return rows[0]!.total;
}

/**
 * A total from received statuses (docs/api-v2/qso.md "Totals"): a row is a type received ('Y')
 * with a received date, so per type the QSOs received less those received without a date
 * (counted: the start of the type's partial index `qso_conf_<type>`, where a NULL date sorts, a
 * handful of QSOs; the QSO filters applied to them afterwards). One statement, so one snapshot:
 * exact while writers run, without reading every confirmed QSO.
 */
async function countBy(db: pg.Pool, filters: ConfirmationFilters, statement: (filters: ConfirmationFilters, params: SqlParams) => string): Promise<number> {
  const params = new SqlParams();
  const { rows } = await db.query<{ total: number }>(shapedStatement(db, statement(filters, params), params.values));
  return rows[0]!.total;
}

/** The received QSOs summed from qso_counts (scope, types, band, mode), less the undated; values added to `params`. */
function totalFromBucketsSql(filters: ConfirmationFilters, params: SqlParams): string {
  const onBuckets = scopeConditions(filters.scope, params, 'c');
  const band = filters.band === null ? null : bandCondition(filters.band, params, 'c');
  if (band) onBuckets.push(band);
  if (filters.mode !== null) onBuckets.push(modeCondition(filters.mode, params, 'c'));
  const received = filters.types.map((type) => `coalesce(sum(c.n) FILTER (WHERE c.${CONFIRMATION_TYPES[type].status} = 'Y'), 0)`);
  return `SELECT ((SELECT ${received.join(' + ')} FROM qso_counts c WHERE ${onBuckets.join(' AND ')}) - ${undatedSql(filters, params)})::int AS total`;
}

/**
 * With a range of QSO dates alone: the received statuses of its whole months summed from
 * qso_month_counts (which keeps them, sql/057), those of its partial months from qso_station_time
 * (index-only), less the undated: a year costs a few hundred rows of counts.
 */
function totalFromMonthsSql(filters: ConfirmationFilters, params: SqlParams): string {
  const received = (alias: 'c' | 'q') => filters.types.map((type) => `(${alias}.${CONFIRMATION_TYPES[type].status} = 'Y' IS TRUE)::int`).join(' + ');
  const until = filters.qsoUntil === null ? null : dayAfter(filters.qsoUntil);
  const months = timeRangeTotalSql(scopeOnAliases(filters.scope, params), params, filters.qsoSince, until,
    { counts: `sum(c.n * (${received('c')}))`, qsos: `sum(${received('q')})` });
  return `SELECT ((${months}) - ${undatedSql(filters, params)})::int AS total`;
}

/**
 * With a range of QSO dates and band or mode: the statuses of the range's QSOs summed, less the
 * undated. qso_station_time holds the time, the statuses, band and mode, so the sum reads the
 * range's entries alone, index-only: a year of 210k QSOs costs what counting them does, where
 * testing each one's received dates fetched 14,600 pages of the table (docs/storage.md).
 */
function totalFromStatusesSql(filters: ConfirmationFilters, params: SqlParams): string {
  const onQsos = [...scopeConditions(filters.scope, params), ...qsoConditions(filters, params)];
  const received = filters.types.map((type) => `count(*) FILTER (WHERE q.${CONFIRMATION_TYPES[type].status} = 'Y')`);
  return `SELECT ((SELECT ${received.join(' + ')} FROM qso q WHERE ${onQsos.join(' AND ')}) - ${undatedSql(filters, params)})::int AS total`;
}

/**
 * The scope's QSOs of the request's types received without a date that pass its QSO filters,
 * one count per type joined by ' - '. They are found alone first, the filters applied to them
 * afterwards: beside a band or mode the planner takes `date IS NULL` for the column's many
 * unconfirmed QSOs and reads the filter's whole index instead of the start of the partial one.
 */
function undatedSql(filters: ConfirmationFilters, params: SqlParams): string {
  const scope = scopeConditions(filters.scope, params, 'u').join(' AND ');
  const onQsos = qsoConditions(filters, params);
  return filters.types.map((type) => {
    const { status, date } = CONFIRMATION_TYPES[type];
    const found = `SELECT u.id FROM qso u WHERE ${scope} AND u.${status} = 'Y' AND u.${date} IS NULL`;
    return onQsos.length === 0
      ? `(SELECT count(*) FROM (${found}) f)`
      : `(SELECT count(*) FROM qso q WHERE q.id = ANY(ARRAY(${found})) AND ${onQsos.join(' AND ')})`;
  }).join(' - ');
}

function toConfirmation(row: PageRow): ConfirmationRow {
  const confirmation: ConfirmationRow = {
    qso_id: row.qso_id,
    callsign: row.callsign,
    qso_date: row.qso_date,
    mode: row.mode,
    band: row.band,
    confirmation_date: row.confirmation_date,
    type: CONFIRMATION_TYPES[CONFIRMATION_KEYS[row.type_rank]!].label,
  };
  for (const field of OPTIONAL_FIELDS) {
    const value = row[field];
    if (value !== null && value.trim() !== '') confirmation[field] = value;
  }
  return confirmation;
}
