#!/usr/bin/env node
// The test command (npm test): compiles the sources and the tests to dist/ (tests run compiled:
// loading TypeScript through a loader in each of a hundred test processes cost more CPU than
// one compilation), finds a PostgreSQL (DATABASE_URL, or an embedded one in a temporary
// folder), prepares a migrated template database that each test file clones, runs tap, and
// ends with one summary line. Arguments name test files, as test/x/y.test.ts or compiled.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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

const args = process.argv.slice(2).map((arg) => arg.replace(/^(?:\.\/)?test\/(.*)\.ts$/, 'dist/test/$1.js'));
// One Chromium for every browser test of the run (test/helpers/browser.ts), when it has any.
const browserHelpers = await import('../dist/test/helpers/browser.js');
const browserServer = !browserHelpers.chromiumMissing && (!args.length || args.some((arg) => arg.includes('webApp')))
  ? await browserHelpers.launchBrowserServer()
  : null;
const tap = spawn('npx', ['tap', '-R', 'tap', ...(args.length ? args : [])], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: {
    ...process.env,
    LOGBOOK_TEST_SERVER_URL: serverUrl,
    LOGBOOK_TEST_TEMPLATE: template,
    LOGBOOK_QUIET: '1',
    ...(browserServer ? { [browserHelpers.SHARED_BROWSER_ENV]: browserServer.wsEndpoint() } : {}),
  },
});
let summary = null;
let pending = '';
tap.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  pending += chunk.toString('utf8');
  const lines = pending.split('\n');
  pending = lines.pop();
  for (const line of lines) {
    const match = /^# \{ (.*) \}$/.exec(line.trim());
    if (match) summary = Object.fromEntries(match[1].split(', ').map((pair) => pair.split(': ')).map(([k, v]) => [k, Number(v)]));
  }
});
const status = await new Promise((resolve) => tap.on('close', (code) => resolve(code ?? 1)));

await browserServer?.close();
await admin.query(`DROP DATABASE IF EXISTS ${template}`).catch(() => undefined);
await admin.end();
await embedded?.stop();
if (home) rmSync(home, { recursive: true, force: true });

const passed = summary?.pass ?? 0;
const failed = summary?.fail ?? (status === 0 ? 0 : 1);
const skipped = (summary?.skip ?? 0) + (summary?.todo ?? 0);
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(status === 0 && failed === 0 ? 0 : 1);
