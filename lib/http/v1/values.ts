/**
 * Reading JSON body values the way the original's PHP did (isset, is_numeric, (int), truthiness),
 * so that v1 clients keep getting the answers they were written against. Looser than the v2
 * readers in lib/input/jsonValues.ts on purpose: "12.0" is a station id here, as it was there.
 */

/** PHP's `isset($obj[name])`: present and not null. */
export function isSet(body: Readonly<Record<string, unknown>>, name: string): boolean {
  return body[name] !== undefined && body[name] !== null;
}

/** PHP truthiness: false, 0, "", "0", null and [] are false; everything else is true. */
export function phpTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '' || value === '0') return false;
  return !(Array.isArray(value) && value.length === 0);
}

const NUMERIC_STRING = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** PHP's is_numeric: numbers, and strings holding one (surrounding whitespace allowed). */
export function isNumeric(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && NUMERIC_STRING.test(value);
}

/** `(int)` of a numeric value (truncated toward zero); null when not numeric or beyond safe integers. */
export function phpInt(value: unknown): number | null {
  if (!isNumeric(value)) return null;
  const number = Math.trunc(Number(value));
  return Number.isSafeInteger(number) ? number : null;
}

const INT4_MAX = 2147483647;

/** A record id (station location, QSO): a numeric value within 1 … 2^31-1, else null. */
export function idValue(value: unknown): number | null {
  const id = phpInt(value);
  return id !== null && id >= 1 && id <= INT4_MAX ? id : null;
}
