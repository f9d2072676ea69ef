import type pg from 'pg';
import { SqlParams } from '../db/sqlParams.js';
import { scopeConditions, type QsoScope } from '../qso/scope.js';
import { bandCondition, dateRangeConditions, modeCondition } from '../qso/filters.js';
import { CONFIRMATION_TYPES, type ConfirmationType } from '../qso/confirmationTypes.js';
import { byCountThenName } from './ranking.js';
import type { ConfirmationFilters as ConfirmationListFilters } from '../confirmations/query.js';

/**
 * Confirmation counts of a scope. A confirmation is a (QSO, type) pair, as in the confirmation
 * list, so `total` here equals that list's `meta.total` for the same filters, and the band and
 * mode breakdowns each add up to `total`.
 */

/** The confirmation list's filters without the callsign (the scope is passed on its own). */
export type ConfirmationFilters = Omit<ConfirmationListFilters, 'scope' | 'callsign'>;

export interface ConfirmationStatistics {
  counts: Partial<Record<ConfirmationType, number>>;
  total: number;
  by_band: { band: string; count: number }[];
  by_mode: { mode: string; count: number }[];
}

type CountRow = { band_rollup: number; band: string; mode: string } & Record<ConfirmationType, number>;

export async function confirmationStatistics(db: pg.Pool, scope: QsoScope, filters: ConfirmationFilters): Promise<ConfirmationStatistics> {
  const params = new SqlParams();
  const since = filters.since === null ? null : params.add(filters.since);
  const received = new Map(filters.types.map((type) => {
    const { status, date } = CONFIRMATION_TYPES[type];
    return [type, `q.${status} = 'Y'${since ? ` AND q.${date} >= ${since}::date` : ''}`];
  }));
  const conditions = [
    ...scopeConditions(scope, params),
    ...dateRangeConditions(filters.qsoSince, filters.qsoUntil, params),
    `(${[...received.values()].map((condition) => `(${condition})`).join(' OR ')})`,
  ];
  const band = filters.band === null ? null : bandCondition(filters.band, params);
  if (band) conditions.push(band);
  if (filters.mode !== null) conditions.push(modeCondition(filters.mode, params));

  const { rows } = await db.query<CountRow>(
    `SELECT grouping(q.band) AS band_rollup, q.band, q.mode,
            ${[...received].map(([type, condition]) => `count(*) FILTER (WHERE ${condition})::int AS ${type}`).join(',\n            ')}
       FROM qso q WHERE ${conditions.join(' AND ')}
      GROUP BY GROUPING SETS ((q.band), (q.mode))`,
    params.values,
  );

  const pairs = (row: CountRow) => filters.types.reduce((sum, type) => sum + row[type], 0);
  const bandRows = rows.filter((row) => row.band_rollup === 0);
  const counts = Object.fromEntries(filters.types.map((type) => [type, bandRows.reduce((sum, row) => sum + row[type], 0)]));
  return {
    counts,
    total: bandRows.reduce((sum, row) => sum + pairs(row), 0),
    by_band: bandRows.map((row) => ({ band: row.band, count: pairs(row) })).sort(byCountThenName((item) => item.band)),
    by_mode: rows.filter((row) => row.band_rollup === 1).map((row) => ({ mode: row.mode, count: pairs(row) })).sort(byCountThenName((item) => item.mode)),
  };
}
