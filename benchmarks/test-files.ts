/**
 * Each named test file's wall time alone, one after another (tap --jobs 1, one file per tap
 * run, as test/run.js runs them: compiled, cloning a template migrated once), with the machine's
 * load before and after each, and the time its database's drop took apart (test/run.js drops
 * the run's databases once every file has ended). For before/after comparisons of the same files
 * within the same minutes; speed is never asserted in tests.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/test-files.ts test/cli.test.ts [more]
 *
 * Needs the tests compiled (`npx tsc -p tsconfig.test.json`, which `node test/run.js` also runs).
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import pg from 'pg';
import { openDatabase } from '../lib/db/database.js';
import { createLogger } from '../lib/log.js';

const serverUrl = process.env.DATABASE_URL;
const files = process.argv.slice(2);
if (!serverUrl || files.length === 0) {
  console.error('usage: DATABASE_URL=postgres://… npx tsx benchmarks/test-files.ts test/x/y.test.ts [more]');
  process.exit(2);
}
const run = String(process.pid);
const template = `logbook_test_template_${run}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${template}`);
const templateUrl = new URL(serverUrl);
templateUrl.pathname = `/${template}`;
await (await openDatabase({ logger: createLogger({}, true), url: templateUrl.toString() })).close();
const load = () => loadavg()[0]!.toFixed(1);
try {
  for (const file of files) {
    const compiled = file.replace(/^(?:\.\/)?test\/(.*)\.ts$/, 'dist/test/$1.js');
    const loadBefore = load();
    const started = performance.now();
    const tap = spawnSync('npx', ['tap', '-R', 'silent', '--jobs', '1', compiled], {
      env: { ...process.env, LOGBOOK_TEST_SERVER_URL: serverUrl, LOGBOOK_TEST_TEMPLATE: template, LOGBOOK_TEST_RUN: run, LOGBOOK_QUIET: '1' },
    });
    const seconds = (performance.now() - started) / 1000;
    const dropStarted = performance.now();
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`logbook\\_test\\_${run}\\_%`]);
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    const drop = (performance.now() - dropStarted) / 1000;
    console.log(`${file}\t${seconds.toFixed(1)} s\t${tap.status === 0 ? 'passed' : `FAILED (${tap.status})`}\tdrop ${drop.toFixed(1)} s\tload ${loadBefore} -> ${load()}`);
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.end();
}
