import type { Context } from 'koa';
import { ApiError } from '../errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, readRawBody } from '../body.js';
import { failed } from './call.js';

/** A v1 request body: parsed JSON, or why there is none. */
export type V1Body = { kind: 'json'; value: unknown } | { kind: 'empty' } | { kind: 'invalid' };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads and parses the body the way PHP's json_decode judged it: empty, undecodable,
 * over-deep or malformed input are all "no JSON"; which answer that gets is up to the call.
 */
export async function readV1Body(ctx: Context, limit: number, prepare?: (text: string) => string): Promise<V1Body> {
  let raw: Buffer;
  try {
    raw = await readRawBody(ctx, limit);
  } catch (error) {
    if (error instanceof ApiError && error.status === 413) throw failed(413, error.message);
    throw error;
  }
  if (raw.length === 0) return { kind: 'empty' };
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) return { kind: 'invalid' };
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return { kind: 'invalid' };
  }
  if (prepare) text = prepare(text);
  if (text.trim() === '') return { kind: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalid' };
  }
  // json_decode('null') is NULL, which the original could not tell from a parse error.
  return value === null ? { kind: 'invalid' } : { kind: 'json', value };
}
