import { ROWS_PAGE_MAX } from '../../db/pageRows.js';

/**
 * How a list page is read and how its total is counted, decided in one place, planList, from the
 * kinds of filter a list has, never from their values (docs/storage.md: which counts and indexes
 * serve which filter). Every list goes through it: the QSO list (JSON and ADIF, deep pages,
 * totals) and the confirmation list. A new kind of filter joins `LeadingFilter` (or the
 * confirmation list's shape), and the switches below do not compile until its strategies are
 * chosen. Where a strategy needs a number first (a sort judged against a walk, a date range's
 * size), the plan names the judgement and the statements make it in the page's snapshot.
 */

/**
 * What decides a list's strategies: the filters that leave the counts' keys, strongest first.
 * qsl_filter alone among the bucket filters is a kind of its own: the month counts keep the
 * received statuses (sql/057), not band or mode.
 */
export type LeadingFilter = 'callsign' | 'dates-and-buckets' | 'dates-and-qsl' | 'dates' | 'buckets' | 'qsl' | 'scope';

/**
 * The total's way: 'zero' (the id bounds leave nothing); a sum over qso_month_counts of the
 * scope ('scope-months') or of a range of dates with the partial months counted ('date-months');
 * a sum over qso_counts' buckets ('buckets'); whole blocks of qso_id_counts with the partial
 * blocks counted ('id-blocks'); a sum less the few QSOs from the page's cut on ('below-cut'); the
 * smaller side of a since_id bound counted ('smaller-side'); a count over the filter's index.
 */
export type TotalPlan = 'zero' | 'scope-months' | 'date-months' | 'buckets' | 'id-blocks' | 'below-cut' | 'smaller-side' | 'count';

/**
 * Where the page starts: skipping from the first QSO of its order ('walk'); from the month its
 * offset falls into ('month-seek', newest first); from its block of ids ('id-seek', ADIF);
 * the range's matches sorted by id or the walk, as the counts judge ('judge-sort', ADIF).
 */
export type PagePlan = 'walk' | 'month-seek' | 'id-seek' | 'judge-sort';

/**
 * How the page's rows are read: as rows of a named statement, planned once per connection for
 * the values of the first page it reads and kept ('kept-rows'), or as a COPY planned for its own
 * values at every request ('copy'; every ADIF page, and every page longer than ROWS_PAGE_MAX).
 */
export type ReadPlan = 'kept-rows' | 'copy';

/** What the planner reads of a QSO list: the kinds of its filters and its bounds, not their values. */
export interface ListShape {
  format: 'json' | 'adif';
  /** `limit`: the newest N. */
  newest: boolean;
  callsign: boolean;
  dated: boolean;
  /** How many kinds of band, mode, qsl_filter (the filters qso_counts keeps) the list has. */
  bucketKinds: number;
  /** Whether qsl_filter is the only one of them. */
  qslOnly: boolean;
  sinceId: number;
  idBelow: number | null;
  offset: number;
  perPage: number;
}

export interface ListPlan {
  total: TotalPlan;
  page: PagePlan;
  read: ReadPlan;
}

/** What the planner reads of a confirmation list (lib/confirmations/query.ts). */
export interface ConfirmationShape {
  list: 'confirmations';
  /** qso_since/qso_until. */
  dated: boolean;
  /** `since`: received on or after a date. */
  receivedSince: boolean;
  /** band, mode (qso_counts keeps them). */
  buckets: boolean;
  callsign: boolean;
}

/**
 * The confirmation list's page: a range of QSO dates is judged first by its size from the month
 * counts (few QSOs: read the range and sort its confirmations, 'range-first'; many: as without
 * one); otherwise the received-date indexes qso_conf_* merged in order ('received-order').
 */
export type ConfirmationPagePlan = 'judge-range' | 'received-order';

/**
 * The confirmation list's total: qso_counts' received sums less the undated confirmations, in the
 * page's own statement ('buckets-in-page', the scope and types alone) or beside it ('buckets',
 * band and mode too); with a range of QSO dates the received statuses of its whole months from
 * qso_month_counts and of its partial months from qso_station_time ('months'), with band or mode
 * too those of the range's entries of qso_station_time, which holds them ('statuses'), each less
 * the undated; otherwise counted ('count'). A range read first counts itself.
 */
export type ConfirmationTotalPlan = 'buckets-in-page' | 'buckets' | 'months' | 'statuses' | 'count';

export interface ConfirmationPlan {
  page: ConfirmationPagePlan;
  total: ConfirmationTotalPlan;
}

/** From this offset on a page seeks its month or block of ids: the sums cost about a millisecond, skipping about 0.15 ms per thousand entries. */
export const SEEK_FROM_OFFSET = 10_000;

/** The one planner: how a list's page is read and its total counted. */
export function planList(shape: ListShape): ListPlan;
export function planList(shape: ConfirmationShape): ConfirmationPlan;
export function planList(shape: ListShape | ConfirmationShape): ListPlan | ConfirmationPlan {
  if ('list' in shape) return { page: confirmationPagePlan(shape), total: confirmationTotalPlan(shape) };
  return { total: totalPlan(shape), page: pagePlan(shape), read: readPlan(shape) };
}

export function leadingFilter({ callsign, dated, bucketKinds, qslOnly }: Pick<ListShape, 'callsign' | 'dated' | 'bucketKinds' | 'qslOnly'>): LeadingFilter {
  if (callsign) return 'callsign';
  if (bucketKinds === 0) return dated ? 'dates' : 'scope';
  if (qslOnly) return dated ? 'dates-and-qsl' : 'qsl';
  return dated ? 'dates-and-buckets' : 'buckets';
}

/** The total's way for a list with at least one station location. */
function totalPlan(shape: ListShape): TotalPlan {
  const { idBelow, sinceId } = shape;
  if (idBelow !== null && sinceId + 1 >= idBelow) return 'zero';
  const leading = leadingFilter(shape);
  switch (leading) {
    case 'callsign':
    case 'dates-and-buckets':
      return 'count';
    case 'dates':
    case 'dates-and-qsl':
      if (idBelow === null) return 'date-months';
      return sinceId === 0 ? 'below-cut' : 'count';
    case 'buckets':
    case 'qsl':
      if (idBelow === null) return 'buckets';
      return sinceId === 0 ? 'below-cut' : 'smaller-side';
    case 'scope':
      return idBelow === null ? 'scope-months' : 'id-blocks';
    default:
      return unchosen(leading);
  }
}

/** Where the page starts, for a list with at least one station location. */
function pagePlan(shape: ListShape): PagePlan {
  if (shape.newest || shape.sinceId > 0) return 'walk';
  const deep = shape.offset >= SEEK_FROM_OFFSET;
  const leading = leadingFilter(shape);
  switch (leading) {
    case 'callsign':
    case 'buckets':
      return 'walk';
    case 'qsl':
      return shape.format === 'json' && deep ? 'month-seek' : 'walk';
    case 'dates-and-buckets':
      return shape.format === 'adif' ? 'judge-sort' : 'walk';
    case 'dates':
    case 'dates-and-qsl':
      if (shape.format === 'adif') return 'judge-sort';
      return deep ? 'month-seek' : 'walk';
    case 'scope':
      if (!deep) return 'walk';
      return shape.format === 'adif' ? 'id-seek' : 'month-seek';
    default:
      return unchosen(leading);
  }
}

/**
 * A plan is kept only where the values cannot change it: the scope, a range of dates, one kind
 * of band, mode or qsl_filter read newest first from the index in the page's order. A callsign's
 * plan depends on how many QSOs the call has (its key, or the time walk): kept for a large
 * location it took 4.3 s instead of a millisecond; two kinds of filter took 1.7 s kept
 * (benchmarks/RESULTS.md, "Named statements that kept one plan").
 */
function readPlan(shape: ListShape): ReadPlan {
  if (shape.format === 'adif' || shape.perPage > ROWS_PAGE_MAX) return 'copy';
  const leading = leadingFilter(shape);
  switch (leading) {
    case 'callsign':
      return 'copy';
    case 'dates-and-buckets':
    case 'dates-and-qsl':
    case 'buckets':
    case 'qsl':
      return shape.bucketKinds === 1 ? 'kept-rows' : 'copy';
    case 'dates':
    case 'scope':
      return 'kept-rows';
    default:
      return unchosen(leading);
  }
}

function confirmationPagePlan(shape: ConfirmationShape): ConfirmationPagePlan {
  return shape.dated ? 'judge-range' : 'received-order';
}

function confirmationTotalPlan({ dated, receivedSince, buckets, callsign }: ConfirmationShape): ConfirmationTotalPlan {
  if (receivedSince || callsign) return 'count';
  if (dated) return buckets ? 'statuses' : 'months';
  return buckets ? 'buckets' : 'buckets-in-page';
}

/** The default of an exhaustive switch: a value no case chose a strategy for does not compile. */
export function unchosen(value: never): never {
  throw new Error(`no list strategy chosen for ${String(value)}`);
}
