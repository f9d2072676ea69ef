import { Ajv } from 'ajv';

/**
 * The change feed's cursor: where a client is in its log's changes, opaque to it. Changes are
 * ordered by (txid, id, kind), deletions (kind 0) before the row of the same QSO (kind 1);
 * `horizon` is how far retention had removed tombstones when the client was last answered, and
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

const VERSION = 1;
const MAX_CURSOR_CHARS = 200;

interface Wire { v: number; t: string; i: number; k: 0 | 1; h: number; s: number }

const validWire = new Ajv({ strict: true }).compile<Wire>({
  type: 'object',
  additionalProperties: false,
  required: ['v', 't', 'i', 'k', 'h', 's'],
  properties: {
    v: { const: VERSION },
    t: { type: 'string', pattern: '^(0|[1-9][0-9]{0,18})$' },
    i: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    k: { enum: [0, 1] },
    h: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    s: { type: 'integer', minimum: 0, maximum: 1e11 },
  },
});

export function encodeCursor(cursor: ChangeCursor): string {
  const wire: Wire = { v: VERSION, t: cursor.txid, i: cursor.id, k: cursor.kind, h: cursor.horizon, s: cursor.issuedAt };
  return Buffer.from(JSON.stringify(wire), 'utf8').toString('base64url');
}

/** The cursor a client sent back, or null when it is not one of ours. */
export function decodeCursor(text: string): ChangeCursor | null {
  if (text.length === 0 || text.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  let wire: unknown;
  try {
    wire = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!validWire(wire)) return null;
  return { txid: wire.t, id: wire.i, kind: wire.k, horizon: wire.h, issuedAt: wire.s };
}
