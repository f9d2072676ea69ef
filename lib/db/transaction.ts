import type pg from 'pg';

/** Runs `work` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * A transaction that first locks the owner's user row, so that writes guarding an account-wide
 * rule (one active location or logbook, no identical locations) take turns. NO KEY UPDATE does
 * not block inserts that merely reference the user (tokens, keys).
 */
export async function inOwnerTransaction<T>(
  pool: pg.Pool,
  userId: number,
  work: (client: pg.PoolClient) => Promise<T>,
  /** Runs before the lock: what must come before the transaction writes anything (beginQsoWrite). */
  first?: (client: pg.PoolClient) => Promise<void>,
): Promise<T> {
  return inTransaction(pool, async (client) => {
    await first?.(client);
    await client.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
    return work(client);
  });
}
