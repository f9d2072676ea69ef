/**
 * Browser token: proves to the worker that the application let this user watch
 * one topic until a deadline. Wire format (the original worker's):
 * hex(claims JSON) + "." + hex(HMAC-SHA256(key, that hex string)),
 * claims = {"user_id":int,"topic":string,"expires":unix seconds}. The key is the
 * worker secret itself, as the original's, unless derived keys are chosen
 * (browserTokenKey in ./workerKeys.ts).
 *
 * Pure crypto with no server imports, so the application can create tokens too.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface BrowserTokenClaims {
  user_id: number;
  topic: string;
  expires: number;
  /** The API token it was minted from, so that revoking that token ends it (absent: never revoked). */
  token_id?: number;
}

export type TokenCheck =
  | { ok: true; claims: BrowserTokenClaims }
  | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' | 'wrong_topic' };

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/** The HMAC key: the worker secret, or the browser-token key derived from it (./workerKeys.ts). */
export type TokenKey = string | Buffer;

function sign(key: TokenKey, encodedClaims: string): string {
  return createHmac('sha256', key).update(encodedClaims).digest('hex');
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export function createBrowserToken(
  key: TokenKey,
  { userId, topic, ttlSeconds, tokenId }: { userId: number; topic: string; ttlSeconds: number; tokenId?: number },
  now: number = nowSeconds(),
): string {
  if (!Number.isInteger(userId) || userId < 0) throw new Error('browser token: userId must be a non-negative integer');
  if (!(ttlSeconds > 0)) throw new Error('browser token: ttlSeconds must be positive');
  // Key order matches what the original application emits; token_id is ours, last.
  const claims: BrowserTokenClaims = { user_id: userId, topic, expires: Math.floor(now + ttlSeconds) };
  if (tokenId !== undefined) claims.token_id = tokenId;
  const encoded = Buffer.from(JSON.stringify(claims), 'utf8').toString('hex');
  return `${encoded}.${sign(key, encoded)}`;
}

function isClaims(value: unknown): value is BrowserTokenClaims {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Record<string, unknown>;
  return Number.isInteger(c.user_id) && typeof c.topic === 'string' && Number.isInteger(c.expires) &&
    (c.token_id === undefined || Number.isSafeInteger(c.token_id));
}

/** `now` is in unix seconds; a token is still valid during its `expires` second. */
export function verifyBrowserToken(key: TokenKey, token: string, topic: string, now: number = nowSeconds()): TokenCheck {
  const dot = token.indexOf('.');
  if (dot <= 0) return { ok: false, reason: 'malformed' };
  const encoded = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'utf8');
  const expected = Buffer.from(sign(key, encoded), 'utf8');
  // The signature is checked before anything in the claims is trusted or even parsed.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad_signature' };
  if (!HEX.test(encoded)) return { ok: false, reason: 'malformed' };
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(encoded, 'hex').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (!isClaims(claims)) return { ok: false, reason: 'malformed' };
  if (now > claims.expires) return { ok: false, reason: 'expired' };
  if (claims.topic !== topic) return { ok: false, reason: 'wrong_topic' };
  return { ok: true, claims };
}
