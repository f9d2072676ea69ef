/** One bucket's limit: at most `requests` within any `window` seconds. */
export interface RateLimit {
  requests: number;
  window: number;
}

/** The `api_rate_limits` map: bucket name → limit; null disables limiting. */
export type RateLimitMap = Record<string, RateLimit> | null | undefined;

export interface RateDecision {
  allowed: boolean;
  /** Seconds until a request would be allowed again (0 when allowed). */
  retryAfter: number;
}

/**
 * A sliding-window log: records hit times per key, atomically for all processes that
 * share the store. `now` is in seconds (fractions allowed) so tests can drive the clock.
 */
export interface RateLimitStore {
  hit(key: string, now: number, limit: RateLimit): Promise<RateDecision>;
  /** Takes back one hit recorded for `key` at `at` (an attempt that turned out not to count). */
  unhit(key: string, at: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The pre-authentication bucket, counted per client address: every v2 request, and every failed
 * v1 key or `/live/token` authentication, so that guessing is slowed on every door alike.
 */
export const PRE_AUTH_BUCKET = 'api_v2_auth';

/**
 * The public live log's bucket, per client address: `api_rate_limits.public` when configured,
 * else PUBLIC_DEFAULT_LIMIT, even with api_rate_limits unset (docs/public-log.md).
 */
export const PUBLIC_BUCKET = 'public';
export const PUBLIC_DEFAULT_LIMIT: RateLimit = { requests: 600, window: 60 };

/** Failed sign-ins to the browser app, per account name and per client address (config `sign_in_limits`). */
export const SIGN_IN_ACCOUNT_BUCKET = 'sign_in_account';
export const SIGN_IN_ADDRESS_BUCKET = 'sign_in_address';

/** Exact bucket name, then `default`, else unlimited (SPEC.md "Limits" 3). */
export function limitFor(limits: RateLimitMap, bucket: string): RateLimit | null {
  if (!limits) return null;
  return limits[bucket] ?? limits.default ?? null;
}

/**
 * The decision for a window that already holds `count` hits, the oldest at `oldest`.
 * A denied request is not recorded, so a client that keeps retrying is let in as soon as
 * the oldest hit leaves the window.
 */
export function decide(count: number, oldest: number | null, now: number, limit: RateLimit): RateDecision {
  if (count < limit.requests) return { allowed: true, retryAfter: 0 };
  const retryAfter = Math.max(1, Math.ceil((oldest ?? now) + limit.window - now));
  return { allowed: false, retryAfter };
}
