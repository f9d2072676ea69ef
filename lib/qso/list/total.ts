import type pg from 'pg';
import { SqlParams } from '../../db/sqlParams.js';
import { bindForCopy } from '../../db/settingParams.js';
import { shapedStatement } from '../../db/shapedStatement.js';
import { blockRowsSql, bucketTotalSql, idRangeTotalSql, scopeTotalSql, timeRangeTotalSql } from '../counts.js';
import { scopeConditions } from '../scope.js';
import { dayRangeConditions } from '../filters.js';
import { bucketScopeOn, scopeOn, where, type ListQuery, type Sql } from './query.js';
import { unchosen } from './plan.js';

/**
 * `meta.total`, exact, read in the page's snapshot, from the counts writers maintain where they
 * can answer, the way planList chose (lib/qso/list/plan.ts; docs/storage.md, docs/api-v2/qso.md):
 * no id bound: qso_counts (band, mode, qsl_filter) or, unfiltered, qso_month_counts; an id bound
 * alone: whole blocks of qso_id_counts plus two partial ones; band/mode/qsl_filter on an ADIF page:
 * qso_counts less the QSOs from the page's cut on; since_id with those: the smaller side counted;
 * dates alone or with qsl_filter: whole months plus the partial ends; callsign, or dates with
 * since_id or with band/mode: a count over the filter's index.
 */

type Client = Pick<pg.PoolClient, 'query'>;

async function single(client: Client, { text, values }: Sql): Promise<number> {
  return Number((await client.query<{ total: number | string }>(shapedStatement(client, text, values))).rows[0]!.total);
}

/** The scope's QSOs in the list's range of days, with its qsl_filter if any (the month counts keep the statuses). */
function timeRangeSql(list: ListQuery): Sql {
  const params = new SqlParams();
  return { text: timeRangeTotalSql(bucketScopeOn(list, params), params, list.days.from, list.days.to), values: params.values };
}

/**
 * An ADIF page's total without since_id (bounded by its cut alone) with either a range of dates
 * or band, mode, qsl_filter: their sum from the counts (the range's months, or qso_counts'
 * buckets) less the matching QSOs from the cut on, which committed after it (a handful).
 */
function belowCutSql(list: ListQuery, idBelow: number): Sql {
  const params = new SqlParams();
  const on = bucketScopeOn(list, params);
  const { from, to } = list.days;
  const dated = from !== null || to !== null;
  const sum = dated ? timeRangeTotalSql(on, params, from, to) : bucketTotalSql([on('c')]);
  const above = [on('q'), ...dayRangeConditions(from, to, params), `q.id >= ${params.add(idBelow)}::bigint`];
  return { text: `SELECT ((${sum}) - (SELECT count(*) FROM qso q WHERE ${above.join(' AND ')}))::int AS total`, values: params.values };
}

/** The scope's QSOs with sinceId < id < idBelow: summed from qso_id_counts, the partial blocks at the ends counted. */
function idRangeSql(list: ListQuery, sinceId: number, idBelow: number): Sql {
  const params = new SqlParams();
  const on = scopeOn(list, params);
  return { text: idRangeTotalSql(blockRowsSql(on('c')), on('q'), params, sinceId, idBelow), values: params.values };
}

function countSql(list: ListQuery): Sql {
  const params = new SqlParams();
  return { text: `SELECT count(*)::int AS total FROM qso q WHERE ${where(list, params)}`, values: params.values };
}

function bucketSql(list: ListQuery): Sql {
  const params = new SqlParams();
  const scope = scopeConditions(list.scope, params, 'c');
  const buckets = list.bucketFilters(params, 'c');
  return { text: buckets.length === 0 ? scopeTotalSql(scope) : bucketTotalSql([...scope, ...buckets]), values: params.values };
}

/**
 * Filtered QSOs outside the id bounds (id <= sinceId, id >= idBelow): the bucket filters only,
 * the list's own id conditions replaced.
 */
function outsideSql(list: ListQuery, idBelow: number): Sql {
  const params = new SqlParams();
  const conditions = [...scopeConditions(list.scope, params), ...list.bucketFilters(params, 'q')];
  const outside = `(q.id <= ${params.add(list.sinceId)}::bigint OR q.id >= ${params.add(idBelow)}::bigint)`;
  return { text: `SELECT count(*)::int AS total FROM qso q WHERE ${[...conditions, outside].join(' AND ')}`, values: params.values };
}

/**
 * The total's one statement as the planner chose it (list.plan.total), or 0 without a query (the owner
 * has no station location, or the id bounds leave nothing), or null when the smaller side of a
 * since_id bound must be chosen first.
 */
function oneStatementTotal(list: ListQuery): Sql | 0 | null {
  if (list.scope.stationIds.length === 0) return 0;
  const plan = list.plan.total;
  switch (plan) {
    case 'zero':
      return 0;
    case 'scope-months':
    case 'buckets':
      return bucketSql(list);
    case 'date-months':
      return timeRangeSql(list);
    case 'id-blocks':
      return idRangeSql(list, list.sinceId, list.idBelow!);
    case 'below-cut':
      return belowCutSql(list, list.idBelow!);
    case 'smaller-side':
      return null;
    case 'count':
      return countSql(list);
    default:
      return unchosen(plan);
  }
}

/**
 * since_id with band, mode, qsl_filter: the smaller side counted. Which side is smaller is
 * decided on the unfiltered numbers, which cost two block sums.
 */
async function smallerSideTotal(client: Client, list: ListQuery): Promise<number> {
  const idBelow = list.idBelow!;
  const before = list.sinceId === 0 ? 0 : await single(client, idRangeSql(list, 0, list.sinceId + 1));
  const between = await single(client, idRangeSql(list, list.sinceId, idBelow));
  if (between <= before) return single(client, countSql(list));
  return (await single(client, bucketSql(list))) - (await single(client, outsideSql(list, idBelow)));
}

/**
 * QSOs matching the list's filters (`meta.total`; no query when the owner has no station
 * location), with the values of the page's COPY bound (bindForCopy) in the total's own statement
 * where it takes one: one round trip for both. `copyText` is null where they are not bound yet
 * (the total took no statement or several).
 */
export async function countTotalBindingPage(client: Client, list: ListQuery, page: Sql): Promise<{ total: number; copyText: string | null }> {
  const statement = oneStatementTotal(list);
  if (statement === 0) return { total: 0, copyText: null };
  if (statement === null) return { total: await smallerSideTotal(client, list), copyText: null };
  const { copyText, row } = await bindForCopy<{ total: number | string }>(client, page, statement);
  return { total: Number(row!.total), copyText };
}

/** The statement behind the total, or its unfiltered id-range sum when it takes several (for EXPLAIN in benchmarks/qso-list.ts). */
export function totalSqlForExplain(list: ListQuery): Sql {
  const statement = oneStatementTotal(list);
  if (statement === 0) return { text: 'SELECT 0 AS total', values: [] };
  return statement ?? idRangeSql(list, list.sinceId, list.idBelow!);
}
