import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Tokens and keys are stored only as the hex SHA-256 of the full value (high entropy, so no salt needed). */
export function hashSecret(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Constant-time comparison of two strings of possibly different length. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length || left.length === 0) return false;
  return timingSafeEqual(left, right);
}

/**
 * How stale a token's or key's `last_used_at` may be: a use is recorded when the last record is
 * older, so many clients sharing one token or key do not queue on its row.
 */
export const LAST_USED_PRECISION = "interval '1 minute'";
