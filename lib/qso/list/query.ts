import type pg from 'pg';
import { SqlParams } from '../../db/sqlParams.js';
import { parseBandFilter } from '../../adif/bands.js';
import { bandCondition, callCondition, confirmedCondition, dateRangeConditions, dayAfter, modeCondition } from '../filters.js';
import { scopeConditions, scopeOnAliases, type QsoScope, type ScopeOn } from '../scope.js';
import { qsoSelectList } from '../present.js';
import { sinceIdBound } from '../changeBounds.js';
import type { ConfirmationType } from '../confirmationTypes.js';
import type { BucketFilterKind } from '../../db/countTables.js';
import { planList, type ListPlan, type ListShape } from './plan.js';

/**
 * A QSO list's filters (GET /qso, parsed in lib/http/v2/resources/qso/listParams.ts) and the SQL
 * they become. Every query is written so that PostgreSQL can
 * answer it from the per-station indexes (plans in docs/api-v2/qso.md):
 * - one branch per station location (`station_id = $n`), each read in order from an index and
 *   merged (Merge Append), rather than sorting all of a logbook's QSOs: `station_id = ANY(…)`,
 *   even with one element, cannot return rows in time order;
 * - the page is chosen on (id, time_on) only, often straight from the index, and the full rows
 *   are fetched for that page alone, so deep pages skip over index entries, not table rows.
 */

export const LIST_FORMATS = ['json', 'adif'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

/** Beyond this many station locations one sorted scan beats planning a branch per location. */
const MAX_MERGE_BRANCHES = 64;

export interface ListQuery {
  format: ListFormat;
  pagination: Pagination;
  /** `limit`: the newest N QSOs, whatever the format. */
  newest: boolean;
  sinceId: number;
  /**
   * Pages a client follows by id (since_id, and every ADIF page with its lastfetchedid) stop below
   * the lowest id a running writer may still commit; null for the other lists.
   */
  idBelow: number | null;
  scope: QsoScope;
  callsign: string | null;
  /** qso_since and qso_until as a half-open range of days: time_on >= from and < to (null: open). */
  days: { from: string | null; to: string | null };
  /** Every filter condition on alias q (scope excluded, id bounds included), their values added to `params`. */
  filters(params: SqlParams): string[];
  /** The filters qso_counts keeps too (band, mode, qsl_filter), on qso (q) or qso_counts (c). */
  bucketFilters(params: SqlParams, alias: 'q' | 'c'): string[];
  /** Which kinds of those filters the list has. */
  bucketFilterKinds: readonly BucketFilterKind[];
  /** How its page is read and its total counted (planList, from the list's shape). */
  plan: ListPlan;
}

/**
 * A list's parameters, checked before any connection is taken. Its queries wait for the cut
 * (ListQuery.idBelow), which answerListPage reads on the list's own page connection just before
 * the page's snapshot: a heavy list's every statement then queues among the heavy ones, and none
 * takes a connection cheap requests need (100 lists arriving at once had each run it on the main
 * pool, which grew to all its connections while `GET /qso/{id}` waited; benchmarks/RESULTS.md).
 */
export interface ParsedList {
  /** The station locations whose cut the list's pages stop below; null when it has none. */
  cutStations: readonly number[] | null;
  /** The list's queries, given the cut (null when cutStations is). */
  withCut(idBelow: number | null): ListQuery;
}

/** The list's queries with its cut, read on `db`: outside any transaction, before the page's snapshot. */
export async function withItsCut(db: Pick<pg.Pool, 'query'>, parsed: ParsedList): Promise<ListQuery> {
  return parsed.withCut(parsed.cutStations === null ? null : await sinceIdBound(db, parsed.cutStations));
}

/** A list's filters as the request gave them, checked and normalised. */
export interface ListFilters {
  format: ListFormat;
  pagination: Pagination;
  /** `limit`: the newest N QSOs, whatever the format. */
  newest: boolean;
  sinceId: number;
  scope: QsoScope;
  callsign: string | null;
  /** qso_since and qso_until, `YYYY-MM-DD`, inclusive. */
  since: string | null;
  until: string | null;
  qslTypes: readonly ConfirmationType[] | null;
  band: string | null;
  mode: string | null;
}

/** A page of a list: its number, its size, and how many QSOs come before it. */
export interface Pagination {
  page: number;
  perPage: number;
  offset: number;
}

export function listQueryOf(filters: ListFilters): ParsedList {
  const { format, pagination, newest, sinceId, scope, callsign, since, until, qslTypes, band, mode } = filters;
  // The filters the counts keep, each with its kind: the conditions and the kinds come from one list.
  type BucketPart = [BucketFilterKind, (params: SqlParams, alias: 'q' | 'c') => string];
  const bucketParts: BucketPart[] = [];
  if (band !== null && parseBandFilter(band)) bucketParts.push(['band', (params, alias) => bandCondition(band, params, alias)!]);
  if (mode !== null) bucketParts.push(['mode', (params, alias) => modeCondition(mode, params, alias)]);
  if (qslTypes !== null) bucketParts.push(['qsl', (_, alias) => confirmedCondition(qslTypes, alias)]);
  const bucketFilters = (params: SqlParams, alias: 'q' | 'c'): string[] => bucketParts.map(([, condition]) => condition(params, alias));
  const bucketFilterKinds = bucketParts.map(([kind]) => kind);
  /** The filters on q below the cut. */
  const filtersWith = (params: SqlParams, idBelow: number | null): string[] => {
    const conditions: string[] = [];
    if (callsign !== null) conditions.push(callCondition(params.add(callsign)));
    conditions.push(...dateRangeConditions(since, until, params));
    conditions.push(...bucketFilters(params, 'q'));
    if (sinceId > 0) conditions.push(`q.id > ${params.add(sinceId)}::bigint`);
    if (idBelow !== null) conditions.push(`q.id < ${params.add(idBelow)}::bigint`);
    return conditions;
  };

  const withCut = (idBelow: number | null): ListQuery => {
    const shape: ListShape = {
      format, newest, callsign: callsign !== null, dated: since !== null || until !== null, bucketKinds: bucketParts.length,
      qslOnly: bucketFilterKinds.length > 0 && bucketFilterKinds.every((kind) => kind === 'qsl'), sinceId, idBelow, offset: pagination.offset, perPage: pagination.perPage,
    };
    return {
      format,
      pagination,
      newest,
      sinceId,
      idBelow,
      scope,
      callsign,
      days: { from: since, to: until === null ? null : dayAfter(until) },
      filters: (params) => filtersWith(params, idBelow),
      bucketFilters,
      bucketFilterKinds,
      plan: planList(shape),
    };
  };
  // Pages followed by id stop below the cut.
  return { cutStations: (sinceId > 0 || format === 'adif') && scope.stationIds.length > 0 ? scope.stationIds : null, withCut };
}

export interface Sql {
  text: string;
  values: unknown[];
}

/** The list's scope on qso (q) or a table of counts (c), each alias's conditions bound once, when first used. */
export function scopeOn(list: ListQuery, params: SqlParams): ScopeOn {
  return scopeOnAliases(list.scope, params);
}

/**
 * The list's scope and bucket filters (band, mode, qsl_filter) on qso (q) or a table of counts
 * (c), each alias's conditions bound once, when first used (an unused parameter has no type).
 */
export function bucketScopeOn(list: ListQuery, params: SqlParams): ScopeOn {
  const on: Partial<Record<'q' | 'c', string>> = {};
  return (alias) => (on[alias] ??= [...scopeConditions(list.scope, params, alias), ...list.bucketFilters(params, alias)].join(' AND '));
}

export function where(list: ListQuery, params: SqlParams): string {
  return [...scopeConditions(list.scope, params), ...list.filters(params)].join(' AND ');
}

/**
 * Where a deep page starts instead of skipping from the first QSO of its order (seek.ts),
 * of which it then skips `offset - skipped`. Newest first: only QSOs with time_on below `below`,
 * and from `above` on when it is not null. Ascending ids: only QSOs with id >= `fromId`, and
 * below `toId` when it is not null (bigints as text). `sorted`: an ADIF page whose filters
 * (a range of dates, one kind of band, mode, qsl_filter) match few of the QSOs that walking the
 * ids in order would pass reads its matches from the filters' index and sorts them by id.
 */
export type PageSeek =
  | { order: 'time'; below: string; skipped: number; above: string | null }
  | { order: 'id'; fromId: string; skipped: number; toId: string | null }
  | { order: 'sorted'; skipped: 0 };

/** What a page query reads for each QSO (qso aliased q) unless told otherwise: the QSO object's columns. */
const QSO_OBJECT_SELECT = qsoSelectList('q');

/**
 * The rows of the requested page (each a QSO row unless `select` says otherwise). JSON and `limit` pick newest first (time_on,
 * then id, descending); ADIF pages go by ascending id so `lastfetchedid` never skips a QSO, and
 * ADIF output is always in ascending id order.
 */
export function pageSql(list: ListQuery, select = QSO_OBJECT_SELECT, seek: PageSeek | null = null): Sql {
  const params = new SqlParams();
  const scope = scopeConditions(list.scope, params);
  const seekConditions: string[] = [];
  if (seek?.order === 'time') {
    seekConditions.push(`q.time_on < ${params.add(seek.below)}::timestamp`);
    if (seek.above !== null) seekConditions.push(`q.time_on >= ${params.add(seek.above)}::timestamp`);
  } else if (seek?.order === 'id') {
    seekConditions.push(`q.id >= ${params.add(seek.fromId)}::bigint`);
    if (seek.toId !== null) seekConditions.push(`q.id < ${params.add(seek.toId)}::bigint`);
  }
  /** Bound only where used: a parameter no statement names has no type. */
  const conditionsWith = (filters: string[]) => [...scope, ...filters, ...seekConditions].join(' AND ');
  const byTime = list.format === 'json' || list.newest;
  const order = (alias: string) => (byTime ? `${alias}time_on DESC, ${alias}id DESC` : `${alias}id`);
  const perPage = list.pagination.perPage;
  const offset = list.pagination.offset - (seek?.skipped ?? 0);
  // Cast: the ADIF page hands its values over as settings (text) for its COPY.
  const limit = `${params.add(perPage)}::bigint`;
  const stations = list.scope.stationIds;
  const merged = stations.length >= 1 && stations.length <= MAX_MERGE_BRANCHES;

  const sortsMatches = seek?.order === 'sorted';
  // In id order with band, mode or qsl_filter as its only filters, qso_station_id (which
  // includes their columns, sql/027) tells which QSOs match without their rows: the page picks
  // its ids from the index and reads only its own rows, not every row it passes.
  const idIndexFilters = !byTime && list.bucketFilterKinds.length > 0 && list.callsign === null
    && list.days.from === null && list.days.to === null;
  // A page from the start of an id range (every page a client follows by since_id) has nothing
  // to skip: whole rows are read in id order straight from each location's qso_station_id, as
  // the export reads them, without the deferred join's primary-key lookup per row.
  if (!byTime && offset === 0 && !sortsMatches && !idIndexFilters) {
    const conditions = conditionsWith(list.filters(params));
    const rows = (scoped: string) => `SELECT ${select} FROM qso q WHERE ${scoped} ORDER BY q.id LIMIT ${limit}`;
    const text = merged
      ? `SELECT u.* FROM (${stations.map((station) => `(${rows(`q.station_id = ${params.add(station)}::int AND ${conditions}`)})`).join(' UNION ALL ')}) u ORDER BY u.id LIMIT ${limit}`
      : rows(conditions);
    return { text, values: params.values };
  }

  const skip = `${params.add(offset)}::bigint`;
  // An order no index gives: the planner reads the matches from the filters' index (the time
  // index for a range of dates) and sorts them, rather than walk qso_station_id in order until
  // enough match (its estimate of how many match is blind: COPY's values arrive as settings).
  const candidateOrder = sortsMatches ? '(q.id + 0)' : order('q.');
  // What the candidates carry: the columns of their order.
  const keys = (alias: string) => (byTime ? `${alias}id, ${alias}time_on` : `${alias}id`);
  let candidates: string;
  if (merged) {
    const reach = `${params.add(offset + perPage)}::bigint`;
    // A branch per location, each read in order from its index (qso_station_time or
    // qso_station_id, both holding the filters' columns).
    const conditions = conditionsWith(list.filters(params));
    const branches = stations.map((station) => `(SELECT ${keys('q.')} FROM qso q WHERE q.station_id = ${params.add(station)}::int AND ${conditions}
                      ORDER BY ${candidateOrder} LIMIT ${reach})`);
    candidates = `SELECT ${keys('')} FROM (${branches.join(' UNION ALL ')}) u ORDER BY ${order('')} LIMIT ${limit} OFFSET ${skip}`;
  } else {
    candidates = `SELECT ${keys('q.')} FROM qso q WHERE ${conditionsWith(list.filters(params))} ORDER BY ${candidateOrder} LIMIT ${limit} OFFSET ${skip}`;
  }
  const outputOrder = list.format === 'json' ? order('p.') : 'p.id';
  return {
    text: `SELECT ${select} FROM (${candidates}) p JOIN qso q ON q.id = p.id ORDER BY ${outputOrder}`,
    values: params.values,
  };
}
