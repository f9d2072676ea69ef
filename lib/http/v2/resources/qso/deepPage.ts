import type pg from 'pg';
import { SqlParams } from '../../../../db/sqlParams.js';
import { monthCountsTable, monthSeekSql } from '../../../../qso/counts.js';
import { scopeConditions } from '../../../../qso/scope.js';
import type { ListQuery, PageSeek } from './listQuery.js';

/**
 * From this offset on, a page of the time-ordered list starts from the month its offset falls
 * into (qso_month_counts, or with filters the month counts monthCountsTable picks; in the page's snapshot) instead of reading every index entry before
 * it: the month sums cost about a millisecond, skipping costs about 0.15 ms per thousand entries.
 */
const SEEK_FROM_OFFSET = 10_000;

/**
 * Where the page of `list` starts, or null to skip from the start: only for newest-first pages
 * of a scope with no filters but band, mode and qsl_filter (the month counts keep those
 * columns), deep enough to pay. Ask in the page's snapshot, as its total.
 */
export async function pageSeek(client: Pick<pg.PoolClient, 'query'>, list: ListQuery): Promise<PageSeek | null> {
  const { offset, perPage } = list.pagination;
  if (list.format !== 'json' || list.newest || offset < SEEK_FROM_OFFSET || list.scope.stationIds.length === 0) return null;
  // Every filter of the list is one the month counts keep.
  if (list.filters(new SqlParams()).length !== list.bucketFilters(new SqlParams(), 'q').length) return null;
  const params = new SqlParams();
  const buckets = list.bucketFilters(params, 'c');
  const onC = [...scopeConditions(list.scope, params, 'c'), ...buckets].join(' AND ');
  const text = monthSeekSql(onC, params.add(offset), params.add(offset + perPage), monthCountsTable(list.bucketFilterKinds));
  const { rows } = await client.query<PageSeek>(text, params.values);
  return rows[0] ?? null;
}
