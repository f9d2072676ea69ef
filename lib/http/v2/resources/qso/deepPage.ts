import type pg from 'pg';
import { SqlParams } from '../../../../db/sqlParams.js';
import { monthCountsTable, monthRowsSql, monthSeekSql } from '../../../../qso/counts.js';
import { bucketScopeOn, type ListQuery, type PageSeek } from './listQuery.js';

/**
 * From this offset on, a page of the time-ordered list starts from the month its offset falls
 * into (qso_month_counts, or with filters the month counts monthCountsTable picks; in the page's snapshot) instead of reading every index entry before
 * it: the month sums cost about a millisecond, skipping costs about 0.15 ms per thousand entries.
 */
const SEEK_FROM_OFFSET = 10_000;

/**
 * Where the page of `list` starts, or null to skip from the start: only for newest-first pages
 * of a scope with no filters but band, mode, qsl_filter (the month counts keep those columns)
 * and a range of QSO dates (whole months summed, the partial months at its ends counted), deep
 * enough to pay. Ask in the page's snapshot, as its total.
 */
export async function pageSeek(client: Pick<pg.PoolClient, 'query'>, list: ListQuery): Promise<PageSeek | null> {
  const { offset, perPage } = list.pagination;
  if (list.format !== 'json' || list.newest || offset < SEEK_FROM_OFFSET || list.scope.stationIds.length === 0) return null;
  if (list.callsign !== null || list.sinceId > 0 || list.idBelow !== null) return null;
  const params = new SqlParams();
  const months = monthRowsSql(bucketScopeOn(list, params), params, list.days.from, list.days.to, monthCountsTable(list.bucketFilterKinds));
  // A range inside one month: the page skips at most that month's QSOs anyway.
  if (months === null) return null;
  const { rows } = await client.query<PageSeek>(monthSeekSql(months, params.add(offset), params.add(offset + perPage)), params.values);
  return rows[0] ?? null;
}
