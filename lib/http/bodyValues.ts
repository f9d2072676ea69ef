import { validationError } from './errors.js';

/**
 * Reading values out of JSON request bodies. Clients send numbers both as JSON numbers and as
 * strings ("14074000"), flags as booleans, 0/1 or their string forms, so the readers accept each
 * of those and nothing looser (no floats for integers, no "yes" for booleans).
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

/**
 * A list of positive integer ids: a comma-separated string ("1, 2,3"), or one number. Blank
 * means an empty list; duplicates are dropped, request order kept. Throws 400 naming `field`.
 */
export function readIdList(value: unknown, field: string): number[] {
  if (isBlank(value)) return [];
  const parts = typeof value === 'number' ? [String(value)] : typeof value === 'string' ? value.split(',').map((p) => p.trim()) : null;
  if (parts === null || parts.some((p) => !/^[1-9]\d{0,14}$/.test(p))) {
    throw validationError(`Field "${field}" must be a comma-separated list of ids`, { field });
  }
  return [...new Set(parts.map(Number))];
}

/** An integer field, or null when blank; 400 naming the field when it is not an integer in range. */
export function readInteger(value: unknown, field: string, range: { min?: number; max?: number } = {}): number | null {
  if (isBlank(value)) return null;
  const number = asInteger(value);
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = range;
  if (number === undefined || number < min || number > max) {
    const bounds = range.min !== undefined && range.max !== undefined ? ` from ${min} to ${max}` : range.min !== undefined ? ` of at least ${min}` : '';
    throw validationError(`Field "${field}" must be an integer${bounds}`, { field });
  }
  return number;
}

/** A text field (trimmed; null becomes ""), at most `maxLength` characters; 400 naming the field otherwise. */
export function readText(value: unknown, field: string, maxLength: number): string {
  if (value === null || value === undefined) return '';
  const text = asText(value);
  if (text === undefined || [...text].length > maxLength) {
    throw validationError(`Field "${field}" must be text of at most ${maxLength} characters`, { field });
  }
  return text;
}

/** A boolean field; 400 naming the field for anything asBoolean does not accept. */
export function readBoolean(value: unknown, field: string): boolean {
  const flag = asBoolean(value);
  if (flag === undefined) throw validationError(`Field "${field}" must be true or false`, { field });
  return flag;
}
