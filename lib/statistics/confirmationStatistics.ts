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

/**
 * Without `since` and a range of QSO dates (the profile's default, a dashboard's), every number
 * is a sum of the scope's buckets of qso_counts, which keep the band, mode, SAT and received
 * statuses (about 2 ms where the scan of the scope's confirmed QSOs took 255 ms at 1M QSOs);
 * with them, the QSOs are counted (the buckets keep no dates).
 */
export async function confirmationStatistics(db: pg.Pool, scope: QsoScope, filters: ConfirmationFilters): Promise<ConfirmationStatistics> {
  const params = new SqlParams();
  const fromBuckets = filters.since === null && filters.qsoSince === null && filters.qsoUntil === null;
  const alias = fromBuckets ? 'c' : 'q';
  const since = filters.since === null ? null : params.add(filters.since);
  const received = new Map(filters.types.map((type) => {
    const { status, date } = CONFIRMATION_TYPES[type];
    return [type, `${alias}.${status} = 'Y'${since ? ` AND ${alias}.${date} >= ${since}::date` : ''}`];
  }));
  const conditions = [
    ...scopeConditions(scope, params, alias),
    ...dateRangeConditions(filters.qsoSince, filters.qsoUntil, params, alias),
    `(${[...received.values()].map((condition) => `(${condition})`).join(' OR ')})`,
  ];
  const band = filters.band === null ? null : bandCondition(filters.band, params, alias);
  if (band) conditions.push(band);
  if (filters.mode !== null) conditions.push(modeCondition(filters.mode, params, alias));

  // A bucket counts its n QSOs; appended rows of QSOs since deleted can sum a group to nothing.
  const counted = (condition: string) => (fromBuckets ? `coalesce(sum(c.n) FILTER (WHERE ${condition}), 0)` : `count(*) FILTER (WHERE ${condition})`);
  const { rows } = await db.query<CountRow>(
    `SELECT grouping(${alias}.band) AS band_rollup, ${alias}.band, ${alias}.mode,
            ${[...received].map(([type, condition]) => `${counted(condition)}::int AS ${type}`).join(',\n            ')}
       FROM ${fromBuckets ? 'qso_counts c' : 'qso q'} WHERE ${conditions.join(' AND ')}
      GROUP BY GROUPING SETS ((${alias}.band), (${alias}.mode))${fromBuckets ? ' HAVING sum(c.n) <> 0' : ''}`,
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
