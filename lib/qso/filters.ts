import type { SqlParams } from '../db/sqlParams.js';
import { parseBandFilter } from '../adif/bands.js';
import { CONFIRMATION_TYPES, type ConfirmationType } from './confirmationTypes.js';

/**
 * SQL conditions for the QSO filters that lists, exports, confirmations and lookups share.
 * Column names are fixed strings from this module; every value is a bound parameter.
 */

/**
 * `SAT` matches satellite QSOs (prop_mode SAT); any other band matches the band column;
 * a blank band is no condition (null).
 */
export function bandCondition(band: string, params: SqlParams, alias = 'q'): string | null {
  const filter = parseBandFilter(band);
  if (!filter) return null;
  if (filter.kind === 'sat') return `${alias}.prop_mode = 'SAT'`;
  return `${alias}.band = ${params.add(filter.band)}`;
}

/**
 * The QSOs of the callsign `value` (a placeholder or another row's column), exactly. The base call
 * goes with it: qso_dupe_key leads with (station_id, public_log_base_call(call)) (sql/054), and
 * only a condition on both seeks the call rather than walk every entry of its location.
 */
export function callCondition(value: string, alias = 'q'): string {
  const column = alias === '' ? 'call' : `${alias}.call`;
  return `${column} = ${value} AND public_log_base_call(${column}) = public_log_base_call(${value})`;
}

/** A mode filter matches the main mode or the submode (upper-cased, as stored). */
export function modeCondition(mode: string, params: SqlParams, alias = 'q'): string {
  const placeholder = params.add(mode.trim().toUpperCase());
  return `(${alias}.mode = ${placeholder} OR ${alias}.submode = ${placeholder})`;
}

/** OR of "received = Y" over the given confirmation types. */
export function confirmedCondition(types: readonly ConfirmationType[], alias = 'q'): string {
  return `(${types.map((type) => `${alias}.${CONFIRMATION_TYPES[type].status} = 'Y'`).join(' OR ')})`;
}

/**
 * The day after a 'YYYY-MM-DD' day: the open end of a range of whole days. Null (no end) after
 * 9999-12-31: no QSO date is later (ADIF dates have four-digit years).
 */
export function dayAfter(day: string): string | null {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.getUTCFullYear() > 9999 ? null : date.toISOString().slice(0, 10);
}

/** QSOs (alias `alias`) with `from` <= time_on < `to` (days 'YYYY-MM-DD', either open). */
export function dayRangeConditions(from: string | null, to: string | null, params: SqlParams, alias = 'q'): string[] {
  return [
    ...(from === null ? [] : [`${alias}.time_on >= ${params.add(from)}::date`]),
    ...(to === null ? [] : [`${alias}.time_on < ${params.add(to)}::date`]),
  ];
}

/** Whole days, inclusive: `qso_since` from 00:00:00, `qso_until` through 23:59:59. */
export function dateRangeConditions(since: string | null, until: string | null, params: SqlParams, alias = 'q'): string[] {
  return dayRangeConditions(since || null, until ? dayAfter(until) : null, params, alias);
}
