#!/usr/bin/env node
// The test command (npm test): compiles the sources and the tests to dist/ (tests run compiled:
// loading TypeScript through a loader in each of a hundred test processes cost more CPU than
// one compilation), finds a PostgreSQL (DATABASE_URL, or an embedded one in a temporary
// folder), prepares a migrated template database that each test file clones, runs tap, and
// ends with one summary line. Arguments name test files, as test/x/y.test.ts or compiled.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

// A test removed from test/ must not run on from an earlier compilation.
rmSync('dist/test', { recursive: true, force: true });
const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.test.json'], { stdio: 'inherit' });
if (build.status !== 0) {
  console.error('test: TypeScript compilation failed');
  process.exit(1);
}

const { openDatabase } = await import('../dist/lib/db/database.js');
const { createLogger } = await import('../dist/lib/log.js');
const logger = createLogger({ part: 'test-setup' });

let serverUrl = process.env.DATABASE_URL;
let embedded;
let home;
if (!serverUrl) {
  home = mkdtempSync(join(tmpdir(), 'logbook-test-'));
  process.env.LOGBOOK_HOME = home;
  console.log(`test: DATABASE_URL is not set; starting an embedded PostgreSQL in ${home}`);
  const { startEmbeddedDatabase } = await import('../dist/lib/db/embedded.js');
  embedded = await startEmbeddedDatabase(logger, home);
  serverUrl = embedded.url;
}

const template = `logbook_test_template_${process.pid}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${template}`);
await admin.query(`CREATE DATABASE ${template}`);
const templateUrl = new URL(serverUrl);
templateUrl.pathname = `/${template}`;
const db = await openDatabase({ logger, url: templateUrl.toString() });
await db.close();

// Every file, the slowest of the last run first (new files before the others, as they may be
// slow): with four at a time a long file started last would run on alone at the end.
const DURATIONS = '.tap/test-durations.json';
const lastDurations = existsSync(DURATIONS) ? JSON.parse(readFileSync(DURATIONS, 'utf8')) : {};
const allFiles = () => readdirSync('dist/test', { recursive: true })
  .filter((name) => name.endsWith('.test.js')).map((name) => `dist/test/${name}`)
  .sort((a, b) => (lastDurations[b] ?? Infinity) - (lastDurations[a] ?? Infinity) || a.localeCompare(b));
const args = process.argv.slice(2).map((arg) => arg.replace(/^(?:\.\/)?test\/(.*)\.ts$/, 'dist/test/$1.js'));
// One Chromium for every browser test of the run (test/helpers/browser.ts), when it has any.
const browserHelpers = await import('../dist/test/helpers/browser.js');
const browserServer = !browserHelpers.chromiumMissing && (!args.length || args.some((arg) => arg.includes('webApp')))
  ? await browserHelpers.launchBrowserServer()
  : null;
const tap = spawn('npx', ['tap', '-R', 'tap', ...(args.length ? args : allFiles())], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: {
    ...process.env,
    LOGBOOK_TEST_SERVER_URL: serverUrl,
    LOGBOOK_TEST_TEMPLATE: template,
    LOGBOOK_TEST_RUN: String(process.pid),
    LOGBOOK_QUIET: '1',
    ...(browserServer ? { [browserHelpers.SHARED_BROWSER_ENV]: browserServer.wsEndpoint() } : {}),
  },
});
let summary = null;
const durations = {};
let pending = '';
tap.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  pending += chunk.toString('utf8');
  const lines = pending.split('\n');
  pending = lines.pop();
  for (const line of lines) {
    const match = /^# \{ (.*) \}$/.exec(line.trim());
    const file = /^(?:not )?ok \d+ - (dist\/test\/\S+\.test\.js) # time=([\d.]+)ms/.exec(line);
    if (file) durations[file[1]] = Math.round(Number(file[2]));
    if (match) summary = Object.fromEntries(match[1].split(', ').map((pair) => pair.split(': ')).map(([k, v]) => [k, Number(v)]));
  }
});
const status = await new Promise((resolve) => tap.on('close', (code) => resolve(code ?? 1)));
mkdirSync('.tap', { recursive: true });
// A whole run's replace the last (files gone drop out); a few files' update theirs.
writeFileSync(DURATIONS, `${JSON.stringify(args.length ? { ...lastDurations, ...durations } : durations, null, 1)}\n`);

await browserServer?.close();
// The files' databases (test/helpers/db.ts leaves them to this, instead of a checkpoint during
// every file), then the template. Eight at a time: each DROP DATABASE waits for a checkpoint,
// and those requested meanwhile share the next one (16 clones under load: 55 s one by one, 12 s).
const { rows: left } = await admin.query("SELECT datname FROM pg_database WHERE datname LIKE $1", [`logbook\\_test\\_${process.pid}\\_%`]);
const dropOne = async () => {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  for (let next = left.pop(); next; next = left.pop()) await client.query(`DROP DATABASE IF EXISTS ${next.datname} WITH (FORCE)`).catch(() => undefined);
  await client.end();
};
await Promise.all(Array.from({ length: Math.min(8, left.length) }, dropOne));
await admin.query(`DROP DATABASE IF EXISTS ${template}`).catch(() => undefined);
await admin.end();
await embedded?.stop();
if (home) rmSync(home, { recursive: true, force: true });

const passed = summary?.pass ?? 0;
const failed = summary?.fail ?? (status === 0 ? 0 : 1);
const skipped = (summary?.skip ?? 0) + (summary?.todo ?? 0);
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(status === 0 && failed === 0 ? 0 : 1);
