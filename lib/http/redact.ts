/**
 * Paths as they may be written to logs: a v1 call's URL segment can be its key
 * (`/api/check_auth/<key>`), and any path may carry a pasted key or token, so both become
 * `[redacted]`. Keys and tokens otherwise travel in bodies and headers, which are never logged.
 */
const V1_SEGMENT = /^((?:\/index\.php)?\/api\/(?!v2(?:\/|$))[^/]+\/)[^/]+/;
/** v2 tokens (`wl2_` + hex) and v1 keys (`wl` + at least 13 hex, the original's shortest). */
const SECRET = /wl2_[0-9a-z]+|wl[0-9a-f]{13,}/gi;

export const REDACTED = '[redacted]';

export function redactPath(path: string): string {
  return path.replace(V1_SEGMENT, `$1${REDACTED}`).replace(SECRET, REDACTED);
}
