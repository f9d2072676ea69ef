import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Test } from 'tap';
import { openDatabase, type Database } from '../../lib/db/database.js';
import { createLogger } from '../../lib/log.js';

const serverUrl = process.env.LOGBOOK_TEST_SERVER_URL ?? process.env.DATABASE_URL;
const template = process.env.LOGBOOK_TEST_TEMPLATE;

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
  if (!serverUrl) throw new Error('tests need PostgreSQL: run them with `npm test`, or set DATABASE_URL');
  const name = `logbook_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  const db = await openDatabase({ logger: createLogger({}, true), url: urlFor(name), migrate: !template });
  t.teardown(async () => {
    await db.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  return db;
}

export const testDatabaseUrl = urlFor;
