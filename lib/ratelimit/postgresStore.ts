import type pg from 'pg';
import { decide, type RateDecision, type RateLimit, type RateLimitStore } from './types.js';

/**
 * Store shared by every API process on one database: the function rate_limit_hit
 * (sql/002) prunes, counts and records under a per-key advisory lock in one round trip.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  constructor(private readonly pool: pg.Pool) {}

  async hit(key: string, now: number, limit: RateLimit): Promise<RateDecision> {
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
