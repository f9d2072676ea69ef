import { randomBytes } from 'node:crypto';
import type pg from 'pg';

/**
 * The instance's key called `name` (server_keys, sql/032): created with 32 random bytes by the
 * first process that asks, read by every other. Two statements, so that a process losing the
 * race to create it reads the winner's key in a snapshot taken after it committed.
 */
export async function serverKey(db: Pick<pg.Pool, 'query'>, name: string): Promise<Buffer> {
  await db.query('INSERT INTO server_keys (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, randomBytes(32)]);
  const { rows } = await db.query<{ secret: Buffer }>('SELECT secret FROM server_keys WHERE name = $1', [name]);
  return rows[0]!.secret;
}

/** serverKey once per process: a failed read is tried again by the next caller. */
export function cachedServerKey(db: Pick<pg.Pool, 'query'>, name: string): () => Promise<Buffer> {
  let key: Promise<Buffer> | null = null;
  return () => (key ??= serverKey(db, name).catch((error: unknown) => {
    key = null;
    throw error;
  }));
}
