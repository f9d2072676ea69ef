/**
 * Reading values out of JSON documents (request bodies, radio status): clients send numbers both
 * as JSON numbers and as strings ("14074000"), flags as booleans, 0/1 or their string forms, so
 * the readers accept each of those and nothing looser (no floats for integers, no "yes" for
 * booleans). They answer undefined for what they do not accept; lib/http/bodyValues.ts turns
 * that into a 400 naming the field.
 */

const INTEGER = /^\s*-?\d{1,15}\s*$/;

/** A value that means "no value": absent, null, or a blank string. */
export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** The integer a JSON number or a string of digits holds; undefined when it holds none. */
export function asInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && INTEGER.test(value)) return Number(value);
  return undefined;
}

/** true/false, 1/0 and "true"/"false"/"1"/"0"; undefined for anything else. */
export function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1' || value === 'true') return true;
  if (value === 0 || value === '0' || value === 'false') return false;
  return undefined;
}

/** Text of a string or number member; undefined for booleans and anything else. */
export function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
