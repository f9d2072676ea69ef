import type { Context } from 'koa';
import { parseJson, readRawBody } from '../body.js';
import { validationError } from '../errors.js';

/** The app's bodies are a few fields: anything larger is refused unread (413). */
const APP_BODY_LIMIT = 16 * 1024;

/** The request's JSON object body. */
export async function readAppBody(ctx: Context): Promise<Record<string, unknown>> {
  const value = parseJson(await readRawBody(ctx, APP_BODY_LIMIT));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validationError('Request body must be a JSON object');
  return value as Record<string, unknown>;
}

/** A string member, else 400 naming the field. */
export function stringField(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') throw validationError(`${field} is required`, { field });
  return value;
}

/** A positive id from the path, else 404 (nothing of that shape exists). */
export function pathId(value: string | undefined): number | null {
  return value && /^[1-9]\d{0,9}$/.test(value) && Number(value) <= 2_147_483_647 ? Number(value) : null;
}
