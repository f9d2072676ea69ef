import { createHmac, timingSafeEqual } from 'node:crypto';
import { Ajv } from 'ajv';

/**
 * The change feed's cursor: where a client is in its log's changes, opaque to it. Changes are
 * ordered by (txid, id, kind), deletions (kind 0) before the row of the same QSO (kind 1);
 * `horizon` is how far retention had removed the owner's tombstones when the client was last answered, and
 * `issuedAt` when (seconds since the epoch).
 */
export interface ChangeCursor {
  txid: string;
  id: number;
  kind: 0 | 1;
  horizon: number;
  issuedAt: number;
}

/** Where a client without a cursor starts: before every change. */
export const START: Omit<ChangeCursor, 'horizon' | 'issuedAt'> = { txid: '0', id: 0, kind: 0 };

const VERSION = 2;
const UNSIGNED_VERSION = 1;
const MAX_CURSOR_CHARS = 256;

interface Wire { v: number; t: string; i: number; k: 0 | 1; h: number; s: number }

const wireProperties = {
  t: { type: 'string', pattern: '^(0|[1-9][0-9]{0,18})$' },
  i: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  k: { enum: [0, 1] },
  h: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  s: { type: 'integer', minimum: 0, maximum: 1e11 },
} as const;
const ajv = new Ajv({ strict: true });
const wireOf = (version: number) => ajv.compile<Wire>({
  type: 'object',
  additionalProperties: false,
  required: ['v', 't', 'i', 'k', 'h', 's'],
  properties: { v: { const: version }, ...wireProperties },
});
const validWire = wireOf(VERSION);
const validUnsignedWire = wireOf(UNSIGNED_VERSION);

/** What a cursor text turned out to be: ours, one of ours from before cursors were signed, or none. */
export type DecodedCursor = { cursor: ChangeCursor } | { unsigned: true } | null;

/**
 * Cursors signed with the instance's key (server_keys 'change_cursor', the same in every API
 * process) for one owner: a cursor forged, altered or issued to another owner does not verify,
 * so no client can skip the retention check and silently miss deletions.
 */
export class CursorCodec {
  constructor(private readonly key: Buffer) {}

  encode(cursor: ChangeCursor, ownerId: number): string {
    const wire: Wire = { v: VERSION, t: cursor.txid, i: cursor.id, k: cursor.kind, h: cursor.horizon, s: cursor.issuedAt };
    const payload = Buffer.from(JSON.stringify(wire), 'utf8').toString('base64url');
    return `${payload}.${this.signature(payload, ownerId).toString('base64url')}`;
  }

  decode(text: string, ownerId: number): DecodedCursor {
    if (text.length === 0 || text.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)?$/.test(text)) return null;
    const [payload, signature] = text.split('.') as [string, string | undefined];
    const wire = parseWire(payload);
    if (signature === undefined) return validUnsignedWire(wire) ? { unsigned: true } : null;
    const expected = this.signature(payload, ownerId);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected) || !validWire(wire)) return null;
    return { cursor: { txid: wire.t, id: wire.i, kind: wire.k, horizon: wire.h, issuedAt: wire.s } };
  }

  private signature(payload: string, ownerId: number): Buffer {
    return createHmac('sha256', this.key).update(`${ownerId}.${payload}`).digest();
  }
}

function parseWire(payload: string): unknown {
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}
