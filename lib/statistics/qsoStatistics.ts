import type pg from 'pg';
import { SqlParams } from '../db/sqlParams.js';
import { scopeConditions, type QsoScope } from '../qso/scope.js';
import { confirmedCondition } from '../qso/filters.js';
import { dxccEntities } from '../dxcc/entities.js';
import { AWARD_CONFIRMATIONS } from './awardConfirmations.js';
import { byCountThenName } from './ranking.js';
import { scopeTotalSql, timeRangeTotalSql } from '../qso/counts.js';

/**
 * QSO counts of a scope, computed by PostgreSQL aggregates in one pass each (GROUP BY with
 * FILTER and grouping sets), never by reading QSOs into the application. "Today", "this month"
 * and "this year" are UTC periods, like the stored times.
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
  breakdown: { by_band: BandCount[]; by_mode: ModeCount[] };
  dxcc: DxccProgress;
}

/** Each period is bounded on both sides, so QSOs logged with a future time count in no period. */
const ACTIVITY = ['day', 'month', 'year']
  .map((unit) => {
    const start = `date_trunc('${unit}', now() AT TIME ZONE 'UTC')`;
    const name = unit === 'day' ? 'today' : unit;
    return `count(*) FILTER (WHERE q.time_on >= ${start} AND q.time_on < ${start} + interval '1 ${unit}')::int AS ${name}`;
  })
  .concat('count(*)::int AS total')
  .join(',\n  ');

/** 'YYYY-MM-DD' of a UTC date. */
const dayOf = (date: Date): string => date.toISOString().slice(0, 10);

/**
 * Total, today's, this month's and this year's QSOs (what v1 api/statistics reports, which
 * public widgets poll), from the counts writers keep (lib/qso/counts.ts) rather than a count of
 * every QSO of the scope (220 ms at 900,000 QSOs): the total and the whole months summed from
 * qso_month_counts, only today's QSOs counted (qso_station_time). UTC periods of `now`, each
 * bounded on both sides as ACTIVITY's; one statement, so one snapshot.
 */
export async function qsoActivity(db: pg.Pool, scope: QsoScope, now = new Date()): Promise<QsoActivity> {
  const params = new SqlParams();
  const on: Partial<Record<'q' | 'c', string>> = {};
  const scopeOn = (alias: 'q' | 'c') => (on[alias] ??= scopeConditions(scope, params, alias).join(' AND '));
  const [year, month] = [now.getUTCFullYear(), now.getUTCMonth()];
  const period = (from: Date, to: Date) => `(${timeRangeTotalSql(scopeOn, params, dayOf(from), dayOf(to))})`;
  const today = new Date(Date.UTC(year, month, now.getUTCDate()));
  const { rows } = await db.query<QsoActivity>(
    `SELECT (${scopeTotalSql([scopeOn('c')])}) AS total,
            ${period(today, new Date(Date.UTC(year, month, now.getUTCDate() + 1)))} AS today,
            ${period(new Date(Date.UTC(year, month, 1)), new Date(Date.UTC(year, month + 1, 1)))} AS month,
            ${period(new Date(Date.UTC(year, 0, 1)), new Date(Date.UTC(year + 1, 0, 1)))} AS year`,
    params.values,
  );
  return rows[0]!;
}

interface BreakdownRow extends QsoActivity {
  band_rollup: number;
  mode_rollup: number;
  band: string;
  mode: string;
}

/** Activity, counts by band and by main mode, in one scan. */
async function activityAndBreakdown(db: pg.Pool, scope: QsoScope): Promise<Omit<QsoStatistics, 'dxcc'>> {
  const params = new SqlParams();
  const { rows } = await db.query<BreakdownRow>(
    `SELECT grouping(q.band) AS band_rollup, grouping(q.mode) AS mode_rollup, q.band, q.mode, ${ACTIVITY}
       FROM qso q WHERE ${scopeConditions(scope, params).join(' AND ')}
      GROUP BY GROUPING SETS ((q.band), (q.mode), ())`,
    params.values,
  );
  const all = rows.find((r) => r.band_rollup === 1 && r.mode_rollup === 1)!;
  return {
    total: all.total,
    activity: { today: all.today, month: all.month, year: all.year },
    breakdown: {
      by_band: rows.filter((r) => r.band_rollup === 0).map((r) => ({ band: r.band, count: r.total })).sort(byCountThenName((r) => r.band)),
      by_mode: rows.filter((r) => r.mode_rollup === 0).map((r) => ({ mode: r.mode, count: r.total })).sort(byCountThenName((r) => r.mode)),
    },
  };
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

/** Distinct entities from the QSOs' stored `dxcc` (filled at import from the prefix table). */
async function dxccProgress(db: pg.Pool, scope: QsoScope): Promise<DxccProgress> {
  const entities = dxccEntities('name').filter((e) => e.adif > 0);
  const params = new SqlParams();
  const deleted = `q.dxcc = ANY(${params.add(entities.filter((e) => e.deleted).map((e) => e.adif))}::int[])`;
  const paper = `q.qsl_rcvd = 'Y'`;
  const lotw = `q.lotw_qsl_rcvd = 'Y'`;
  const { rows } = await db.query<DxccRow>(
    `SELECT count(DISTINCT q.dxcc) FILTER (WHERE NOT ${deleted})::int AS worked,
            count(DISTINCT q.dxcc) FILTER (WHERE NOT ${deleted} AND ${confirmedCondition(AWARD_CONFIRMATIONS)})::int AS confirmed,
            count(DISTINCT q.dxcc) FILTER (WHERE NOT ${deleted} AND ${paper})::int AS confirmed_paper,
            count(DISTINCT q.dxcc) FILTER (WHERE NOT ${deleted} AND ${lotw})::int AS confirmed_lotw,
            count(DISTINCT q.dxcc) FILTER (WHERE ${deleted})::int AS deleted_worked,
            count(DISTINCT q.dxcc) FILTER (WHERE ${deleted} AND ${paper})::int AS deleted_paper,
            count(DISTINCT q.dxcc) FILTER (WHERE ${deleted} AND ${lotw})::int AS deleted_lotw
       FROM qso q WHERE ${scopeConditions(scope, params).join(' AND ')} AND q.dxcc > 0`,
    params.values,
  );
  const row = rows[0]!;
  return {
    worked: row.worked,
    confirmed: row.confirmed,
    confirmed_paper: row.confirmed_paper,
    confirmed_lotw: row.confirmed_lotw,
    available: entities.filter((e) => !e.deleted).length,
    deleted: { worked: row.deleted_worked, confirmed_paper: row.deleted_paper, confirmed_lotw: row.deleted_lotw },
  };
}

export async function qsoStatistics(db: pg.Pool, scope: QsoScope): Promise<QsoStatistics> {
  const [counts, dxcc] = await Promise.all([activityAndBreakdown(db, scope), dxccProgress(db, scope)]);
  return { ...counts, dxcc };
}
