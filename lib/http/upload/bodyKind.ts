import type { Readable } from 'node:stream';
import { ApiError } from '../errors.js';
import { multipartBoundary } from './multipart.js';

/** How a POST /qso body is to be read. */
export type BodyKind = { kind: 'json' } | { kind: 'document' } | { kind: 'multipart'; boundary: string };

/** Media types taken as an ADIF or ADX document sent as the body itself (the format is sniffed from its bytes). */
export const DOCUMENT_TYPES = ['text/plain', 'application/octet-stream', 'application/xml', 'text/xml'] as const;

/** Types a client sets without meaning it (curl --data-binary, a bare fetch): the first bytes decide. */
const SNIFFED_TYPES = new Set(['', 'application/x-www-form-urlencoded']);

/**
 * The kind of body from its media type (`type` without parameters, in any case: media types are
 * case-insensitive, RFC 9110 8.3.1); for a missing
 * or form-encoded type, from its first non-blank byte (`{` or `[` is JSON, anything else a
 * document). 415 for a media type that is none of these.
 */
export async function bodyKind(mediaType: string, contentType: string, body: Readable): Promise<BodyKind> {
  const type = mediaType.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return { kind: 'json' };
  if (type === 'multipart/form-data') return { kind: 'multipart', boundary: multipartBoundary(contentType) };
  if ((DOCUMENT_TYPES as readonly string[]).includes(type)) return { kind: 'document' };
  if (SNIFFED_TYPES.has(type)) {
    const first = await firstByte(body);
    return first === '{' || first === '[' ? { kind: 'json' } : { kind: 'document' };
  }
  throw new ApiError(415, 'validation_error', `Content-Type ${type} is not accepted here`, {
    accepted: ['application/json', 'multipart/form-data', ...DOCUMENT_TYPES],
  });
}

/** Bytes a body without a telling media type may start with before its first non-blank byte. */
export const SNIFF_BYTES = 64 * 1024;

const isBlank = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0xef || byte === 0xbb || byte === 0xbf;

/**
 * The first non-blank character of `body` (null when it is empty); what was read is put back.
 * At most SNIFF_BYTES (plus one chunk) are held: a body blank that far is 400.
 */
async function firstByte(body: Readable): Promise<string | null> {
  const seen: Buffer[] = [];
  let size = 0;
  let found: string | null = null;
  for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    seen.push(chunk);
    const at = chunk.findIndex((byte) => !isBlank(byte));
    if (at !== -1) {
      found = String.fromCharCode(chunk[at]!);
      break;
    }
    if ((size += chunk.length) > SNIFF_BYTES) {
      throw new ApiError(400, 'validation_error', `The body's first ${SNIFF_BYTES} bytes are blank; send a document with its Content-Type (text/plain, application/json, …)`, { limit: SNIFF_BYTES });
    }
  }
  if (seen.length) body.unshift(Buffer.concat(seen));
  return found;
}
