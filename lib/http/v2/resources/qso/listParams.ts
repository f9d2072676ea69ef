import { validationError } from '../../../errors.js';
import {
  paginationMeta, parseCallsignParam, parseDateParam, parseIdParam, parseKeyList, parsePagination, parseStationIds, present,
  type PaginationMeta,
} from '../../params.js';
import type { RequestContext } from '../../resource.js';
import { CONFIRMATION_KEYS } from '../../../../qso/confirmationTypes.js';
import { qsoScope } from '../../../../qso/scope.js';
import { LIST_FORMATS, listQueryOf, type ListFormat, type ListQuery, type ParsedList } from '../../../../qso/list/query.js';

/** GET /qso's parameters, checked before any connection is taken; lib/qso/list decides how they are read. */

const MAX_PER_PAGE = 5000;
const DEFAULT_PER_PAGE: Readonly<Record<ListFormat, number>> = { json: 50, adif: 1000 };

function parseFormat(query: Record<string, string>): ListFormat {
  if (!present(query.format)) return 'json';
  const format = query.format.trim().toLowerCase();
  if (!(LIST_FORMATS as readonly string[]).includes(format)) {
    throw validationError('Parameter "format" must be json or adif', { field: 'format', allowed: LIST_FORMATS });
  }
  return format as ListFormat;
}

/** `limit`: a positive integer, capped at MAX_PER_PAGE; null when absent. */
function parseLimit(query: Record<string, string>): number | null {
  if (!present(query.limit)) return null;
  if (!/^\d{1,15}$/.test(query.limit) || Number(query.limit) < 1) {
    throw validationError('limit must be a positive integer', { field: 'limit' });
  }
  return Math.min(Number(query.limit), MAX_PER_PAGE);
}

export function parseListQuery({ query, principal }: RequestContext): ParsedList {
  const format = parseFormat(query);
  const limit = parseLimit(query);
  const stationIds = parseStationIds(principal, query);
  return listQueryOf({
    format,
    pagination: limit === null ? parsePagination(query, DEFAULT_PER_PAGE[format], MAX_PER_PAGE) : { page: 1, perPage: limit, offset: 0 },
    newest: limit !== null,
    sinceId: parseIdParam(query, 'since_id') ?? 0,
    scope: qsoScope(principal, stationIds),
    callsign: parseCallsignParam(query),
    since: parseDateParam(query, 'qso_since'),
    until: parseDateParam(query, 'qso_until'),
    qslTypes: parseKeyList(query, 'qsl_filter', CONFIRMATION_KEYS),
    band: present(query.band) ? query.band : null,
    mode: present(query.mode) && query.mode.trim() !== '' ? query.mode : null,
  });
}

export function listMeta(list: ListQuery, count: number, total: number): PaginationMeta {
  return paginationMeta(list.pagination, count, total);
}
