import type { Context } from 'koa';
import { ApiError, validationError } from './errors.js';

/** A JSON body value the v2 interface accepts: scalars only (SPEC.md convention 4). */
export type Scalar = string | number | boolean | null;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function payloadTooLarge(limit: number): ApiError {
  return new ApiError(413, 'payload_too_large', `Request body exceeds the limit of ${limit} bytes`, { limit });
}

/**
 * Reads the whole request body up to `limit` bytes. The limit is checked while reading, so an
 * oversized body is refused without being held in memory.
 */
export async function readRawBody(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw payloadTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      ctx.req.unpipe();
      ctx.req.resume();
      throw payloadTooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** Deepest v2 bodies are bulk creates: object → qsos array → QSO object. */
export const MAX_JSON_DEPTH = 16;

/**
 * Whether `raw` nests arrays/objects deeper than `limit`, found by one byte scan that skips
 * string contents. Checked before JSON.parse so that megabytes of `[[[[` cost microseconds,
 * not seconds of a blocked event loop.
 */
export function nestsDeeperThan(raw: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i]!;
    if (inString) {
      if (byte === 0x5c) i++; // backslash: skip the escaped byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > limit) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return false;
}

/** Parses JSON strictly: invalid UTF-8 and malformed JSON are both `invalid_json`. */
export function parseJson(raw: Buffer): unknown {
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) {
    throw validationError(`Request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new ApiError(400, 'invalid_json', 'Request body is not valid UTF-8');
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, 'invalid_json', `Request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** A v2 write body: a JSON object whose members are all scalars. */
export function requireScalarObject(value: unknown): Record<string, Scalar> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationError('Request body must be a JSON object');
  }
  for (const [field, member] of Object.entries(value)) {
    if (member !== null && typeof member === 'object') {
      throw validationError(`Field "${field}" must be a scalar value`, { field });
    }
  }
  return value as Record<string, Scalar>;
}
