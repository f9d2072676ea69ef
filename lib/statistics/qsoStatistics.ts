import type pg from 'pg';
import { SqlParams } from '../db/sqlParams.js';
import { scopeOnAliases, type QsoScope, type ScopeOn } from '../qso/scope.js';
import { confirmedCondition } from '../qso/filters.js';
import { dxccEntities } from '../dxcc/entities.js';
import { AWARD_CONFIRMATIONS } from './awardConfirmations.js';
import { byCountThenName } from './ranking.js';
import { dxccEntityRowsSql } from './dxccEntityRows.js';
import { scopeTotalSql, timeRangeTotalSql } from '../qso/counts.js';

/**
 * QSO counts of a scope, computed by PostgreSQL, never by reading QSOs into the application:
 * the activity, the band and mode breakdown and the DXCC progress summed from the counts writers
 * keep (lib/qso/counts.ts). "Today", "this month" and "this year" are UTC periods, like the
 * stored times.
 */

export interface QsoActivity {
  total: number;
  today: number;
  month: number;
  year: number;
}

export interface BandCount {
  band: string;
  count: number;
}

export interface ModeCount {
  mode: string;
  count: number;
}

export interface YearCount {
  year: number;
  count: number;
}

export interface DxccProgress {
  /** Current (not deleted) entities worked / confirmed by QSL or LoTW / by QSL / by LoTW. */
  worked: number;
  confirmed: number;
  confirmed_paper: number;
  confirmed_lotw: number;
  /** Current entities there are. */
  available: number;
  /** The same counts over deleted entities. */
  deleted: { worked: number; confirmed_paper: number; confirmed_lotw: number };
}

export interface QsoStatistics {
  total: number;
  activity: { today: number; month: number; year: number };
  breakdown: { by_band: BandCount[]; by_mode: ModeCount[]; by_year: YearCount[] };
  dxcc: DxccProgress;
}

/** 'YYYY-MM-DD' of a UTC date. */
const dayOf = (date: Date): string => date.toISOString().slice(0, 10);

/**
 * The select list of total, today's, this month's and this year's QSOs of a scope, from the
 * counts writers keep (lib/qso/counts.ts) rather than a count of every QSO of the scope (220 ms
 * at 900,000 QSOs): the total and the whole months summed from qso_month_counts, only today's
 * QSOs counted (qso_station_time). UTC periods of `now`, each bounded on both sides (a QSO
 * logged with a future time counts in no period).
 */
function activityColumns(scopeOn: ScopeOn, params: SqlParams, now: Date): string {
  const [year, month, date] = [now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()];
  const period = (from: Date, to: Date) => `(${timeRangeTotalSql(scopeOn, params, dayOf(from), dayOf(to))})`;
  return `(${scopeTotalSql([scopeOn('c')])}) AS total,
          ${period(new Date(Date.UTC(year, month, date)), new Date(Date.UTC(year, month, date + 1)))} AS today,
          ${period(new Date(Date.UTC(year, month, 1)), new Date(Date.UTC(year, month + 1, 1)))} AS month,
          ${period(new Date(Date.UTC(year, 0, 1)), new Date(Date.UTC(year + 1, 0, 1)))} AS year`;
}

/** The scope's QSOs per value of qso_counts' `columns` (n), from its buckets; groups of no QSO left out. */
function bucketSumsSql(scopeOn: ScopeOn, columns: string): string {
  return `SELECT ${columns}, sum(c.n) AS n FROM qso_counts c WHERE ${scopeOn('c')} GROUP BY ${columns} HAVING sum(c.n) <> 0`;
}

/**
 * A location's totals for v1 `api/get_wp_stats` (a WordPress widget polls it): all time, this UTC
 * year, and per mode and submode, most first, from the counts (this year's months and qso_counts'
 * buckets) in one statement, instead of three counts over every QSO of the location (217 ms at
 * 900,000 QSOs). Counts as text, as the original's database driver gave them.
 */
export async function widgetTotals(db: pg.Pool, stationId: number, now = new Date()): Promise<{
  all: string; year: string; modes: Array<{ count: string; col_mode: string; col_submode: string | null }>;
}> {
  const params = new SqlParams();
  const scope: QsoScope = { stationIds: [stationId], operator: null };
  const scopeOn = scopeOnAliases(scope, params);
  const year = now.getUTCFullYear();
  const { rows } = await db.query<{ all: string; year: string; modes: Array<{ count: string; col_mode: string; col_submode: string | null }> }>(
    `SELECT (${scopeTotalSql([scopeOn('c')])})::text AS all,
            (${timeRangeTotalSql(scopeOn, params, `${year}-01-01`, `${year + 1}-01-01`)})::text AS year,
            (SELECT coalesce(json_agg(json_build_object('count', m.n::text, 'col_mode', m.mode, 'col_submode', m.submode)
                                      ORDER BY m.n DESC, m.mode, m.submode), '[]')
               FROM (${bucketSumsSql(scopeOn, 'mode, submode')}) m) AS modes`,
    params.values,
  );
  return rows[0]!;
}

/** Total, today's, this month's and this year's QSOs (what v1 api/statistics reports, which public widgets poll). */
export async function qsoActivity(db: pg.Pool, scope: QsoScope, now = new Date()): Promise<QsoActivity> {
  const params = new SqlParams();
  const { rows } = await db.query<QsoActivity>(`SELECT ${activityColumns(scopeOnAliases(scope, params), params, now)}`, params.values);
  return rows[0]!;
}

interface DxccRow {
  worked: number;
  confirmed: number;
  confirmed_paper: number;
  confirmed_lotw: number;
  deleted_worked: number;
  deleted_paper: number;
  deleted_lotw: number;
}

/**
 * The select expression of the DXCC progress (a DxccRow): the distinct entities, current and
 * deleted, worked and confirmed, counted over dxccEntityRowsSql.
 */
function dxccProgressSql(scopeOn: ScopeOn, params: SqlParams): string {
  const paper = `e.qsl_rcvd = 'Y'`;
  const lotw = `e.lotw_qsl_rcvd = 'Y'`;
  const entities = dxccEntityRowsSql(scopeOn, params);
  return `(SELECT json_build_object(
            'worked', count(*) FILTER (WHERE NOT e.deleted),
            'confirmed', count(*) FILTER (WHERE NOT e.deleted AND ${confirmedCondition(AWARD_CONFIRMATIONS, 'e')}),
            'confirmed_paper', count(*) FILTER (WHERE NOT e.deleted AND ${paper}),
            'confirmed_lotw', count(*) FILTER (WHERE NOT e.deleted AND ${lotw}),
            'deleted_worked', count(*) FILTER (WHERE e.deleted),
            'deleted_paper', count(*) FILTER (WHERE e.deleted AND ${paper}),
            'deleted_lotw', count(*) FILTER (WHERE e.deleted AND ${lotw}))
       FROM (${entities}) e)`;
}

/** The scope's QSOs per UTC year of time_on, ascending, summed from its months in qso_month_counts. */
function byYearSql(scopeOn: ScopeOn): string {
  return `(SELECT coalesce(json_agg(json_build_object('year', y.year, 'count', y.n) ORDER BY y.year), '[]')
     FROM (SELECT extract(year FROM c.month)::int AS year, sum(c.n)::int AS n FROM qso_month_counts c
            WHERE ${scopeOn('c')} GROUP BY 1 HAVING sum(c.n) <> 0) y)`;
}

/**
 * The statistics of a scope in one statement (one snapshot), from the counts writers keep
 * instead of scans of every QSO: activityColumns; counts by band and by main mode, the scope's
 * buckets of qso_counts summed per band and per mode (GROUPING SETS over the scope: about 250 ms
 * at 900,000 QSOs), by year from its months (byYearSql); the DXCC progress (dxccProgressSql).
 */
export async function qsoStatistics(db: pg.Pool, scope: QsoScope): Promise<QsoStatistics> {
  const params = new SqlParams();
  const scopeOn = scopeOnAliases(scope, params);
  const perColumn = (column: 'band' | 'mode') =>
    `(SELECT coalesce(json_agg(json_build_object('${column}', g.${column}, 'count', g.n::int)), '[]') FROM (${bucketSumsSql(scopeOn, column)}) g)`;
  const { rows } = await db.query<QsoActivity & { by_band: BandCount[]; by_mode: ModeCount[]; by_year: YearCount[]; dxcc: DxccRow }>(
    `SELECT ${activityColumns(scopeOn, params, new Date())}, ${perColumn('band')} AS by_band, ${perColumn('mode')} AS by_mode,
            ${byYearSql(scopeOn)} AS by_year, ${dxccProgressSql(scopeOn, params)} AS dxcc`,
    params.values,
  );
  const { total, today, month, year, by_band: byBand, by_mode: byMode, by_year: byYear, dxcc } = rows[0]!;
  return {
    total,
    activity: { today, month, year },
    breakdown: { by_band: byBand.sort(byCountThenName((r) => r.band)), by_mode: byMode.sort(byCountThenName((r) => r.mode)), by_year: byYear },
    dxcc: {
      worked: dxcc.worked,
      confirmed: dxcc.confirmed,
      confirmed_paper: dxcc.confirmed_paper,
      confirmed_lotw: dxcc.confirmed_lotw,
      available: dxccEntities('name').filter((e) => e.adif > 0 && !e.deleted).length,
      deleted: { worked: dxcc.deleted_worked, confirmed_paper: dxcc.deleted_paper, confirmed_lotw: dxcc.deleted_lotw },
    },
  };
}
