import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Test } from 'tap';
import { openDatabase, type Database } from '../../lib/db/database.js';
import { createLogger } from '../../lib/log.js';
import { migrate } from '../../lib/db/migrate.js';

const serverUrl = process.env.LOGBOOK_TEST_SERVER_URL ?? process.env.DATABASE_URL;
const template = process.env.LOGBOOK_TEST_TEMPLATE;
/**
 * Set by test/run.js, which drops this run's databases once every file has ended: PostgreSQL 15
 * forces a checkpoint at each DROP DATABASE, which flushes what every file running meanwhile
 * has written and keeps the dropping file waiting for it (0.3–2 s each, 150 files).
 */
const run = process.env.LOGBOOK_TEST_RUN;

function urlFor(database: string): string {
  const url = new URL(serverUrl!);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * A fresh, migrated database for one test file, cloned from the template that test/run.js
 * prepares (or migrated from scratch when a file runs on its own with DATABASE_URL set), and
 * dropped when the test ends.
 */
export async function testDatabase(t: Test): Promise<Database> {
  return createTestDatabase(t, template ?? null, !template);
}

/** A fresh database for one test file migrated up to and including `version` (an older schema to upgrade), dropped when the test ends. */
export async function testDatabaseAt(t: Test, version: string): Promise<Database> {
  const db = await createTestDatabase(t, null, false);
  await migrate(db.pool, version);
  return db;
}

/** A new database, a copy of `fromTemplate` or empty, migrated on open when `migrated`. */
async function createTestDatabase(t: Test, fromTemplate: string | null, migrated: boolean): Promise<Database> {
  if (!serverUrl) throw new Error('tests need PostgreSQL: run them with `npm test`, or set DATABASE_URL');
  const name = `logbook_test_${run ? `${run}_` : ''}${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(fromTemplate ? `CREATE DATABASE ${name} TEMPLATE ${fromTemplate}` : `CREATE DATABASE ${name}`);
  const db = await openDatabase({ logger: createLogger({}, true), url: urlFor(name), migrate: migrated });
  t.teardown(async () => {
    await db.close();
    if (!run) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  return db;
}

export const testDatabaseUrl = urlFor;
