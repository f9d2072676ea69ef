import { validationError } from './errors.js';
import { asBoolean, asInteger, asText, isBlank } from '../input/jsonValues.js';

// Request body fields read with lib/input/jsonValues.ts's readers: a value they refuse is a 400 naming the field.

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
