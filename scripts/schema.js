#!/usr/bin/env node
// npm run schema: migrates a scratch database (on DATABASE_URL's server, else an embedded one in
// a temporary folder) and writes its schema to sql/schema.sql (lib/db/schemaText.ts). Runs the
// compiled code: `npm run build` first after a change.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const { migrate } = await import('../dist/lib/db/migrate.js');
const { schemaText } = await import('../dist/lib/db/schemaText.js');
const { sqlPath } = await import('../dist/lib/paths.js');
const { createLogger } = await import('../dist/lib/log.js');

let serverUrl = process.env.DATABASE_URL;
let embedded;
let home;
if (!serverUrl) {
  home = mkdtempSync(join(tmpdir(), 'logbook-schema-'));
  const { startEmbeddedDatabase } = await import('../dist/lib/db/embedded.js');
  embedded = await startEmbeddedDatabase(createLogger({ part: 'schema' }, true), home);
  serverUrl = embedded.url;
}
const scratch = `logbook_schema_${process.pid}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
try {
  await admin.query(`CREATE DATABASE ${scratch}`);
  const url = new URL(serverUrl);
  url.pathname = `/${scratch}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  try {
    await migrate(pool);
    writeFileSync(sqlPath('schema.sql'), await schemaText(pool));
  } finally {
    await pool.end();
  }
  console.log(`schema: wrote ${sqlPath('schema.sql')}`);
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
  await embedded?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
}
