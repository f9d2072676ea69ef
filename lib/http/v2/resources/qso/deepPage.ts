import type pg from 'pg';
import { SqlParams } from '../../../../db/sqlParams.js';
import { idCountsTable, idSeekSql, monthCountsTable, monthRowsSql, monthSeekSql } from '../../../../qso/counts.js';
import { bucketScopeOn, type ListQuery, type PageSeek } from './listQuery.js';

/**
 * From this offset on, a page starts from the month (newest first, JSON) or the block of ids
 * (ascending ids, ADIF) its offset falls into, read from the counts in the page's snapshot,
 * instead of reading every index entry before it: the sums cost about a millisecond, skipping
 * costs about 0.15 ms per thousand entries.
 */
const SEEK_FROM_OFFSET = 10_000;

/**
 * Where the page of `list` starts, or null to skip from the start: deep enough to pay, and
 * only for lists whose filters the counts keep. Newest first (JSON): a scope with band, mode,
 * qsl_filter (the month counts keep those columns) and a range of QSO dates (whole months
 * summed, the partial months at its ends counted). Ascending ids (ADIF): a scope with at most
 * one kind of those filters (the id-block counts per kind, sql/022), no date range. Ask in the
 * page's snapshot, as its total.
 */
export async function pageSeek(client: Pick<pg.PoolClient, 'query'>, list: ListQuery): Promise<PageSeek | null> {
  const { offset, perPage } = list.pagination;
  if (list.newest || offset < SEEK_FROM_OFFSET || list.scope.stationIds.length === 0) return null;
  if (list.callsign !== null || list.sinceId > 0) return null;
  const params = new SqlParams();
  if (list.format === 'adif') {
    const table = idCountsTable(list.bucketFilterKinds);
    if (table === null || list.days.from !== null || list.days.to !== null) return null;
    const scope = bucketScopeOn(list, params)('c');
    const { rows } = await client.query<{ from_id: string; skipped: number; to_id: string | null }>(
      idSeekSql(scope, params.add(offset), params.add(offset + perPage), table), params.values,
    );
    return rows[0] ? { order: 'id', fromId: rows[0].from_id, skipped: rows[0].skipped, toId: rows[0].to_id } : null;
  }
  const months = monthRowsSql(bucketScopeOn(list, params), params, list.days.from, list.days.to, monthCountsTable(list.bucketFilterKinds));
  // A range inside one month: the page skips at most that month's QSOs anyway.
  if (months === null) return null;
  const { rows } = await client.query<{ below: string; skipped: number; above: string | null }>(
    monthSeekSql(months, params.add(offset), params.add(offset + perPage)), params.values,
  );
  return rows[0] ? { order: 'time', ...rows[0] } : null;
}
