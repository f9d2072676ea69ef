import { createHash, randomBytes } from 'node:crypto';

/** Tokens and keys are stored only as the hex SHA-256 of the full value (high entropy, so no salt needed). */
export function hashSecret(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * How stale a token's or key's `last_used_at` may be: a use is recorded when the last record is
 * older, so many clients sharing one token or key do not queue on its row.
 */
export const LAST_USED_PRECISION = "interval '1 minute'";
