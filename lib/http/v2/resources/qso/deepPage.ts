import type pg from 'pg';
import { SqlParams } from '../../../../db/sqlParams.js';
import { shapedStatement } from '../../../../db/shapedStatement.js';
import { blockRowsSql, dayRangeBlockRowsSql, idCountsTable, idSeekSql, monthCountsTable, monthRowsSql, monthSeekSql, timeRangeTotalSql } from '../../../../qso/counts.js';
import { bucketScopeOn, scopeOn, type ListQuery, type PageSeek } from './listQuery.js';
import type { ScopeOn } from '../../../../qso/scope.js';

/**
 * From this offset on, a page starts from the month (newest first, JSON) or the block of ids
 * (ascending ids, ADIF) its offset falls into, read from the counts in the page's snapshot,
 * instead of reading every index entry before it: the sums cost about a millisecond, skipping
 * costs about 0.15 ms per thousand entries.
 */
const SEEK_FROM_OFFSET = 10_000;

/**
 * What reading every match costs against the walk (judged in QSOs passed): the matches found
 * through the filters' index, sorted by id, counted twice when the page reaches past a quarter
 * of them (a full sort rather than the first few).
 */
const sortCost = (matches: number, reach: number): number => matches * (reach > matches / 4 ? 2 : 1);

/**
 * Whether an ADIF page with a range of dates and one kind of band, mode, qsl_filter is cheaper
 * read from its matches, found through the filters' index and sorted by id, than by walking the
 * scope's ids in order and dropping what does not match; judged from the counts (no table counts
 * blocks of ids by month and kind). The walk passes the scope's QSOs made before the range (what
 * it passes first in a log stored in time order), then the page's reach divided by the share of
 * the range's QSOs that match the filter (spread evenly). A log stored otherwise may be judged
 * wrongly either way, and then costs what every such page cost before.
 */
async function sortsMatches(client: Pick<pg.PoolClient, 'query'>, list: ListQuery): Promise<boolean> {
  const { from, to } = list.days;
  const params = new SqlParams();
  const all = scopeOn(list, params);
  const inRange = timeRangeTotalSql(all, params, from, to);
  const before = from === null ? '0' : timeRangeTotalSql(all, params, null, from);
  const matches = timeRangeTotalSql(bucketScopeOn(list, params), params, from, to, monthCountsTable(list.bucketFilterKinds));
  const { rows } = await client.query<{ in_range: number; before: number; matches: number }>(
    shapedStatement(client, `SELECT (${inRange}) AS in_range, (${before}) AS before, (${matches}) AS matches`, params.values),
  );
  const { in_range: inRangeRows, before: beforeRows, matches: matchRows } = rows[0]!;
  const reach = list.pagination.offset + list.pagination.perPage;
  return sortCost(matchRows, reach) < beforeRows + (reach * inRangeRows) / Math.max(matchRows, 1);
}

/**
 * The blocks of ids that hold an ADIF page's matches, from the counts (idSeekSql), or null where
 * no table counts them or skipping from the start costs as little: unfiltered pages before
 * offset 10,000, two kinds of filter other than band and mode, a range of dates with a kind of
 * filter.
 */
function blockRowsOf(list: ListQuery, params: SqlParams, all: ScopeOn): string | null {
  const kinds = list.bucketFilterKinds;
  const { from, to } = list.days;
  if (from !== null || to !== null) return kinds.length === 0 ? dayRangeBlockRowsSql(all, params, from, to) : null;
  const table = idCountsTable(kinds);
  if (table === null || (kinds.length === 0 && list.pagination.offset < SEEK_FROM_OFFSET)) return null;
  return blockRowsSql(bucketScopeOn(list, params)('c'), table);
}

/**
 * Where the page of `list` starts, or null to skip from the start: deep enough to pay, and
 * only for lists whose filters the counts keep. Newest first (JSON): a scope with band, mode,
 * qsl_filter (the month counts keep those columns) and a range of QSO dates (whole months
 * summed, the partial months at its ends counted). Ascending ids (ADIF): from the block of ids
 * the offset falls into, read from the id-block counts: unfiltered deep pages; every page with
 * one kind of filter (per kind, sql/022) or a range of dates (per month, sql/023), which then
 * reads only the blocks that hold its matches, unless reading every match and sorting them
 * costs less (a filter few QSOs match, spread over the log; a range of dates in a log not
 * stored in time order); band and mode together the same way, from their own id-block counts
 * (sql/026). A range of dates with one kind of filter: its matches sorted where that costs less
 * than the walk in id order (sortsMatches). Other pairs of kinds (band or mode with qsl_filter)
 * walk from the start: they have no table of counts, and no index of their own (the planner's
 * blind choice among the others read a whole location's duplicate index: band=20m&mode=CW page
 * 15, 229 ms, before sql/026). Ask in the page's snapshot, as its total.
 */
export async function pageSeek(client: Pick<pg.PoolClient, 'query'>, list: ListQuery): Promise<PageSeek | null> {
  const { offset, perPage } = list.pagination;
  if (list.newest || list.scope.stationIds.length === 0) return null;
  if (list.callsign !== null || list.sinceId > 0) return null;
  const dated = list.days.from !== null || list.days.to !== null;
  const kinds = list.bucketFilterKinds;
  const params = new SqlParams();
  if (list.format === 'adif') {
    // The scope alone, bound once: the dates' rows and the window's unfiltered QSOs share it.
    const all = scopeOn(list, params);
    const blockRows = blockRowsOf(list, params, all);
    if (blockRows !== null) {
      const { rows } = await client.query<{ from_id: string; skipped: number; to_id: string | null; matches: number; walked: number }>(
        shapedStatement(client, idSeekSql(blockRows, all('c'), params.add(offset), params.add(offset + perPage)), params.values),
      );
      const window = rows[0];
      if (window === undefined) return null;
      // Band and mode together have no index to read their matches from (only one of them), but
      // their walk reads qso_station_id alone (sql/027).
      if (kinds.length < 2 && window.walked > sortCost(window.matches, offset + perPage)) return { order: 'sorted', skipped: 0 };
      return { order: 'id', fromId: window.from_id, skipped: window.skipped, toId: window.to_id };
    }
    if (!dated || kinds.length > 1) return null;
    return (await sortsMatches(client, list)) ? { order: 'sorted', skipped: 0 } : null;
  }
  if (offset < SEEK_FROM_OFFSET) return null;
  const months = monthRowsSql(bucketScopeOn(list, params), params, list.days.from, list.days.to, monthCountsTable(kinds));
  // A range inside one month: the page skips at most that month's QSOs anyway.
  if (months === null) return null;
  const { rows } = await client.query<{ below: string; skipped: number; above: string | null }>(
    shapedStatement(client, monthSeekSql(months, params.add(offset), params.add(offset + perPage)), params.values),
  );
  return rows[0] ? { order: 'time', ...rows[0] } : null;
}
