import { readdir, readFile } from 'node:fs/promises';
import type pg from 'pg';
import { sqlPath } from '../paths.js';
import { ensureCountTrigger } from './countTables.js';

/**
 * Numbered migrations from sql/ (NNN_name.sql), each applied once in its own transaction and
 * recorded in schema_migrations, with the counting trigger generated from the code's tables of
 * counts (countTables.ts) for those that exist, in the transaction of each migration from the
 * one that completes the tables the last hand-written trigger filled (sql/022) on, or alone when
 * none was pending (a no-op when the database holds it already).
 * An advisory lock makes concurrent start-ups take turns.
 */
const MIGRATION_LOCK = 7_341_001;

export async function migrationFiles(): Promise<string[]> {
  return (await readdir(sqlPath())).filter((name) => /^\d{3}_[\w-]+\.sql$/.test(name)).sort();
}

/** `work` in a transaction on `client`: committed, or rolled back and thrown as `failure: <reason>`. */
async function inTransactionOf(client: pg.PoolClient, failure: string, work: () => Promise<unknown>): Promise<void> {
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
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
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    const files = await migrationFiles();
    const pending = files.filter((file) => !done.has(file.replace(/\.sql$/, '')) && (through === undefined || file <= `${through}.sql`));
    for (const file of pending) {
      const version = file.replace(/\.sql$/, '');
      const sql = await readFile(sqlPath(file), 'utf8');
      await inTransactionOf(client, `migration ${file} failed`, async () => {
        // Index builds on a big table outlast the API's statement_timeout.
        await client.query('SET LOCAL statement_timeout = 0');
        await client.query(sql);
        // The counting trigger as the code declares it, with the migration that creates a table of it.
        await ensureCountTrigger(client);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
      });
      applied.push(version);
    }
    // A database a newer version migrated keeps that version's trigger: this one's would stop
    // counting into the tables it does not know.
    const newer = [...done].some((version) => !files.includes(`${version}.sql`));
    if (pending.length === 0 && !newer) await inTransactionOf(client, 'installing the counting trigger failed', () => ensureCountTrigger(client));
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
  return applied;
}
