import type pg from 'pg';
import { decide, type RateDecision, type RateLimit, type RateLimitStore } from './types.js';

/** Clock seconds between prunes of every expired row. */
export const PRUNE_SECONDS = 60;

/**
 * Store shared by every API process on one database: the function rate_limit_hit
 * (sql/002, sql/010) prunes the key's window, counts and records under a per-key advisory lock
 * in one round trip. Rows of keys never hit again (a flood of distinct keys) are dropped by a
 * DELETE of every expired row, run by each process once per PRUNE_SECONDS of clock time.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  private nextPrune = Number.NEGATIVE_INFINITY;

  constructor(private readonly pool: pg.Pool) {}

  async hit(key: string, now: number, limit: RateLimit): Promise<RateDecision> {
    if (now >= this.nextPrune) {
      this.nextPrune = now + PRUNE_SECONDS;
      await this.pool.query('DELETE FROM rate_limit_hits WHERE expires_at <= $1', [now]);
    }
    const { rows } = await this.pool.query<{ count: number; oldest: number | null }>(
      'SELECT count, oldest FROM rate_limit_hit($1, $2, $3, $4)',
      [key, now, limit.window, limit.requests],
    );
    const row = rows[0]!;
    return decide(row.count, row.oldest, now, limit);
  }

  async unhit(key: string, at: number): Promise<void> {
    await this.pool.query(
      `DELETE FROM rate_limit_hits WHERE ctid = (SELECT ctid FROM rate_limit_hits WHERE bucket_key = $1 AND hit_at = $2 LIMIT 1)`,
      [key, at],
    );
  }

  async close(): Promise<void> {}
}
