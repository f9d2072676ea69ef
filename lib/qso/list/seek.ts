import type pg from 'pg';
import { SqlParams } from '../../db/sqlParams.js';
import { shapedStatement } from '../../db/shapedStatement.js';
import { blockRowsSql, bucketTotalSql, idSeekSql, monthRowsSql, monthSeekSql, scopeTotalSql, timeRangeTotalSql } from '../counts.js';
import { bucketScopeOn, pageSql, scopeOn, type ListQuery, type PageSeek, type Sql } from './query.js';
import { unchosen } from './plan.js';

/**
 * What reading every match costs against the walk (judged in QSOs passed): the matches found
 * through the filters' index, sorted by id, counted twice when the page reaches past a quarter
 * of them (a full sort rather than the first few).
 */
const sortCost = (matches: number, reach: number): number => matches * (reach > matches / 4 ? 2 : 1);

/**
 * Whether an ADIF page with a range of dates is cheaper read from its matches, found through the
 * time index (which holds the columns of band, mode and qsl_filter) and sorted by id, than by
 * walking the scope's ids in order and dropping what does not match; judged from the counts. The
 * walk passes the scope's QSOs made before the range (what it passes first in a log stored in
 * time order), then the page's reach divided by the share of the range's QSOs that match. With
 * band, mode, qsl_filter the range's matches are estimated from the log's share of them
 * (qso_counts against the scope's total); a log stored otherwise may be judged wrongly.
 */
async function sortsMatches(client: Pick<pg.PoolClient, 'query'>, list: ListQuery): Promise<boolean> {
  const { from, to } = list.days;
  const params = new SqlParams();
  const all = scopeOn(list, params);
  const inRange = timeRangeTotalSql(all, params, from, to);
  const before = from === null ? '0' : timeRangeTotalSql(all, params, null, from);
  const filtered = list.bucketFilterKinds.length > 0;
  const share = filtered ? `(${bucketTotalSql([bucketScopeOn(list, params)('c')])})::float8 / greatest((${scopeTotalSql([all('c')])}), 1)` : '1';
  const { rows } = await client.query<{ in_range: number; before: number; matches: number }>(
    shapedStatement(client, `SELECT r.in_range, r.before, r.in_range * r.share AS matches
                               FROM (SELECT (${inRange}) AS in_range, (${before}) AS before, ${share} AS share) r`, params.values),
  );
  const { in_range: inRangeRows, before: beforeRows, matches: matchRows } = rows[0]!;
  const reach = list.pagination.offset + list.pagination.perPage;
  return sortCost(matchRows, reach) < beforeRows + (reach * inRangeRows) / Math.max(matchRows, 1);
}

/**
 * Where the page of `list` starts, or null to skip from the start, as the planner chose it
 * (list.plan.page): newest first from the month its offset falls into (a scope with or without a range
 * of QSO dates: whole months summed, the partial months at its ends counted); in ascending ids
 * (ADIF) from the block of ids the offset falls into (unfiltered), or, with a range of dates,
 * the range's matches sorted where that costs less than the walk in id order (sortsMatches).
 * Band, mode, qsl_filter without dates walk from the start through indexes that hold their
 * columns (docs/storage.md has what deep pages cost). Ask in the page's snapshot, as its total.
 */
export async function pageSeek(client: Pick<pg.PoolClient, 'query'>, list: ListQuery): Promise<PageSeek | null> {
  if (list.scope.stationIds.length === 0) return null;
  const { offset, perPage } = list.pagination;
  const params = new SqlParams();
  const plan = list.plan.page;
  switch (plan) {
    case 'walk':
      return null;
    case 'judge-sort':
      return (await sortsMatches(client, list)) ? { order: 'sorted', skipped: 0 } : null;
    case 'id-seek': {
      const blockRows = blockRowsSql(scopeOn(list, params)('c'));
      const { rows } = await client.query<{ from_id: string; skipped: number; to_id: string | null }>(
        shapedStatement(client, idSeekSql(blockRows, params.add(offset), params.add(offset + perPage)), params.values),
      );
      const window = rows[0];
      return window === undefined ? null : { order: 'id', fromId: window.from_id, skipped: window.skipped, toId: window.to_id };
    }
    case 'month-seek': {
      const months = monthRowsSql(bucketScopeOn(list, params), params, list.days.from, list.days.to);
      // A range inside one month: the page skips at most that month's QSOs anyway.
      if (months === null) return null;
      const { rows } = await client.query<{ below: string; skipped: number; above: string | null }>(
        shapedStatement(client, monthSeekSql(months, params.add(offset), params.add(offset + perPage)), params.values),
      );
      return rows[0] ? { order: 'time', ...rows[0] } : null;
    }
    default:
      return unchosen(plan);
  }
}

/** The page's statement, as the plan reads it: from where it starts (pageSeek), each QSO as `select` (by default the QSO object's columns). Ask in the page's snapshot. */
export async function pageStatement(client: Pick<pg.PoolClient, 'query'>, list: ListQuery, select?: string): Promise<Sql> {
  return pageSql(list, select, await pageSeek(client, list));
}
