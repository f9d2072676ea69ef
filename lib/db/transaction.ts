import type pg from 'pg';
import { beginSql, type Settings } from './connectionSetup.js';

/**
 * Opens a transaction on `client` (`modes`: an isolation level, READ ONLY) with the settings its
 * connection needs (beginSql) and `overrides`, in one round trip. Every BEGIN goes through here.
 */
export async function begin(client: Pick<pg.ClientBase, 'query'>, modes = '', overrides: Settings = {}): Promise<void> {
  await client.query(beginSql(client, modes, overrides));
}

/** Runs `work` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await begin(client);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A connection that cannot even roll back goes, not back to the pool.
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw error;
  } finally {
    client.release(broken);
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
