import { forbidden, validationError } from '../errors.js';
import { isValidIsoDate } from '../../adif/datetime.js';
import { isValidCallsign, normalizeCallsign } from '../../adif/callsign.js';
import type { Principal } from './principal.js';

/**
 * Query-parameter parsing shared by the v2 list resources. The original product treats a
 * missing parameter, an empty string and `false` alike as absent; so do we.
 */
export function present(value: string | undefined): value is string {
  return value !== undefined && value !== '' && value !== 'false';
}

export interface Pagination {
  page: number;
  perPage: number;
  offset: number;
}

/** The highest page asked for: beyond it an offset would no longer be an exact number. */
export const MAX_PAGE = 999_999_999;

function integer(value: string | undefined): number | null {
  if (!present(value) || !/^-?\d+$/.test(value)) return null;
  return Number(value);
}

/**
 * page < 1 → 1; per_page < 1 → default, above the cap → the cap (clamped, not rejected). A page
 * beyond MAX_PAGE is 400: answering page 1 (or an inexact offset) instead would be silently wrong.
 */
export function parsePagination(query: Record<string, string>, defaultPerPage: number, maxPerPage: number): Pagination {
  const requested = integer(query.page) ?? 1;
  if (requested > MAX_PAGE) throw validationError(`Parameter "page" must be at most ${MAX_PAGE}`, { field: 'page', maximum: MAX_PAGE });
  const page = Math.max(1, requested);
  let perPage = integer(query.per_page) ?? defaultPerPage;
  if (perPage < 1) perPage = defaultPerPage;
  perPage = Math.min(perPage, maxPerPage);
  return { page, perPage, offset: (page - 1) * perPage };
}

export interface PaginationMeta {
  page: number;
  per_page: number;
  count: number;
  total: number;
  total_pages: number;
  has_more: boolean;
}

export function paginationMeta(pagination: Pagination, count: number, total: number): PaginationMeta {
  const totalPages = Math.ceil(total / pagination.perPage);
  return {
    page: pagination.page,
    per_page: pagination.perPage,
    count,
    total,
    total_pages: totalPages,
    has_more: pagination.page < totalPages,
  };
}

/** `YYYY-MM-DD` that exists in the calendar (2026-02-31 is rejected), or null when absent. */
export function parseDateParam(query: Record<string, string>, name: string): string | null {
  const value = query[name];
  if (!present(value)) return null;
  if (!isValidIsoDate(value)) throw validationError(`Parameter "${name}" must be a date YYYY-MM-DD`, { field: name, format: 'YYYY-MM-DD' });
  return value;
}

/** Exact callsign filter: validated, then normalised like stored callsigns. */
export function parseCallsignParam(query: Record<string, string>, name = 'callsign'): string | null {
  const value = query[name];
  if (!present(value)) return null;
  const call = normalizeCallsign(value);
  if (!isValidCallsign(call)) throw validationError('Invalid callsign', { field: name });
  return call;
}

/** A comma list of keys from `allowed`, trimmed and lower-cased, de-duplicated in request order. */
export function parseKeyList<T extends string>(query: Record<string, string>, name: string, allowed: readonly T[]): T[] | null {
  const value = query[name];
  if (!present(value)) return null;
  const keys = [...new Set(value.split(',').map((k) => k.trim().toLowerCase()).filter(Boolean))];
  const unknown = keys.filter((k) => !(allowed as readonly string[]).includes(k));
  if (unknown.length || !keys.length) {
    throw validationError(`Parameter "${name}" has unknown value(s): ${unknown.join(', ') || '(empty)'}`, { field: name, allowed });
  }
  return keys as T[];
}

/** A non-negative integer parameter (ids), or null when absent. */
export function parseIdParam(query: Record<string, string>, name: string): number | null {
  const value = query[name];
  if (!present(value)) return null;
  if (!/^\d{1,15}$/.test(value)) throw validationError(`Parameter "${name}" must be a non-negative integer`, { field: name });
  return Number(value);
}

/**
 * The `station_id` filter: a comma list of owned ids (403 `forbidden` for one that is not
 * owned), or every owned location when absent.
 */
export function parseStationIds(principal: Principal, query: Record<string, string>, name = 'station_id'): readonly number[] {
  const owned = principal.stationIds;
  const value = query[name];
  if (!present(value)) return owned;
  const parts = value.split(',').map((p) => p.trim()).filter(Boolean);
  // `station_id=,,,` names no location: an empty log would look like a real answer.
  if (!parts.length) throw validationError(`${name} names no station location`, { field: name });
  if (parts.some((p) => !/^\d{1,10}$/.test(p))) throw validationError(`${name} values must be numeric`, { field: name });
  const ids = [...new Set(parts.map(Number))];
  const ownedSet = new Set(owned);
  const foreign = ids.filter((id) => !ownedSet.has(id));
  if (foreign.length) throw forbidden(`${name} not accessible for this token`, { [name]: foreign });
  return ids;
}
