import { readdir, readFile } from 'node:fs/promises';
import type pg from 'pg';
import { sqlPath } from '../paths.js';
import { ensureCountTrigger } from './countTables.js';
import { begin } from './transaction.js';

/**
 * Numbered migrations from sql/ (NNN_name.sql), each applied once in its own transaction and
 * recorded in schema_migrations, with the counting trigger generated from the code's tables of
 * counts (countTables.ts) for those that exist, in the transaction of each migration from the
 * one that completes the tables the last hand-written trigger filled (sql/022) on, or alone when
 * none was pending (a no-op when the database holds it already).
 * An advisory lock makes concurrent start-ups take turns, migration by migration.
 */
const MIGRATION_LOCK = 7_341_001;

export async function migrationFiles(): Promise<string[]> {
  return (await readdir(sqlPath())).filter((name) => /^\d{3}_[\w-]+\.sql$/.test(name)).sort();
}

/**
 * `work` in a transaction on `client` under the migration lock, without statement_timeout (index
 * builds on a big table outlast the API's): committed, or rolled back and thrown as
 * `failure: <reason>`. The lock is the transaction's, never the session's: behind a
 * transaction-mode pooler a session lock would stay on whichever backend took it.
 */
async function inTransactionOf<T>(client: pg.PoolClient, failure: string, work: () => Promise<T>): Promise<T> {
  await begin(client, '', { statement_timeout: 0 });
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw new Error(`${failure}: ${(error as Error).message}`);
  }
}

/**
 * Applies the pending migrations, all of them or those up to and including `through` (a
 * version: a test of an upgrade starts from an older schema). Returns the versions applied.
 */
export async function migrate(pool: pg.Pool, through?: string): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await inTransactionOf(client, 'creating schema_migrations failed', () => client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`));
    const done = new Set((await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    const files = await migrationFiles();
    const pending = files.filter((file) => !done.has(file.replace(/\.sql$/, '')) && (through === undefined || file <= `${through}.sql`));
    for (const file of pending) {
      const version = file.replace(/\.sql$/, '');
      const sql = await readFile(sqlPath(file), 'utf8');
      const ran = await inTransactionOf(client, `migration ${file} failed`, async () => {
        // Another start-up may have applied it while this one waited for the lock.
        if ((await client.query('SELECT 1 FROM schema_migrations WHERE version = $1', [version])).rows.length > 0) return false;
        await client.query(sql);
        // The counting trigger as the code declares it, with the migration that creates a table of it.
        await ensureCountTrigger(client);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
        return true;
      });
      if (ran) applied.push(version);
    }
    // A database a newer version migrated keeps that version's trigger: this one's would stop
    // counting into the tables it does not know.
    const newer = [...done].some((version) => !files.includes(`${version}.sql`));
    if (pending.length === 0 && !newer) await inTransactionOf(client, 'installing the counting trigger failed', () => ensureCountTrigger(client));
  } finally {
    client.release();
  }
  return applied;
}
