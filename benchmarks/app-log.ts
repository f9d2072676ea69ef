/**
 * The browser app's Log page on a location of 1M QSOs (issue 48: "it stays quick"): sign in at
 * /app/session as the app does, then time over HTTP the requests the Log page makes with the
 * session's api_token (the station list, the first page, a filtered page, the next page; each
 * page answers its total in `meta`), p50 / p99 against a ceiling (one QSO by its id) taken
 * between them, and the CPU each costs the server and the database; then, in Chromium, the
 * time from "Sign in" to the log's first row on the screen and from a reload to it. The logs
 * are benchmarks/lib/generatedLog.ts's (1M of the owner, 900k in Home, and 1M of another user);
 * `--reuse <database>` takes those of a kept database.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/app-log.ts \
 *     [--qsos 1000000] [--runs 50] [--reloads 5] [--keep | --reuse <database>] [--no-browser]
 */
import { cpus, loadavg } from 'node:os';
import { existsSync } from 'node:fs';
import { setPassword } from '../lib/accounts/users.js';
import { hashPassword } from '../lib/auth/passwords.js';
import { LIST_LATENCY_HEAD, databaseName, listLatencyRow, measureList, numberOption, percentile, scratchDatabase, timedGet } from './lib/scratch.js';
import { CpuMeter } from './lib/cpuMeter.js';
import { startServe } from './lib/serveProcess.js';
import { generateLogs } from './lib/generatedLog.js';

const QSOS = numberOption('qsos', 1_000_000);
const RUNS = numberOption('runs', 50);
const RELOADS = numberOption('reloads', 5);
const CHROMIUM = '/usr/bin/chromium';
const PASSWORD = 'a benchmark password';

const database = await scratchDatabase('applog');
const { ownerId, home } = await generateLogs(database.pool, QSOS);
await setPassword(database.pool, ownerId, await hashPassword(PASSWORD));
const { rows: [newest] } = await database.pool.query<{ id: number }>('SELECT max(id) AS id FROM qso WHERE station_id = $1', [home]);

const server = await startServe(database.url, { workers: cpus().length });
const meter = CpuMeter.available() ? new CpuMeter(server.pid, databaseName(database.url)) : null;
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
try {
  const signIn = await fetch(`${server.url}/app/session`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'owner', password: PASSWORD }),
  });
  if (signIn.status !== 200) throw new Error(`sign-in: HTTP ${signIn.status} ${await signIn.text()}`);
  const session = (await signIn.json()) as { api_token: string };
  const headers = { authorization: `Bearer ${session.api_token}` };

  // What the Log page asks for (web/src/pages/log.js, main.js): 50 a page, newest first.
  const requests: Array<[string, string]> = [
    ['station list (every page load)', '/api/v2/station'],
    ['Log: first page', '/api/v2/qso?page=1&per_page=50'],
    ['Log: next page', '/api/v2/qso?page=2&per_page=50'],
    ['Log: band + mode filter, first page', '/api/v2/qso?band=20m&mode=CW&page=1&per_page=50'],
    ['Log: band + mode filter, next page', '/api/v2/qso?band=20m&mode=CW&page=2&per_page=50'],
    ['Log: a callsign', '/api/v2/qso?callsign=K1234X&page=1&per_page=50'],
    ['Log: a month, LoTW-confirmed', '/api/v2/qso?qso_since=2017-03-01&qso_until=2017-03-31&qsl_filter=lotw&page=1&per_page=50'],
    ['Log: one location, page 100', `/api/v2/qso?station_id=${home}&page=100&per_page=50`],
  ];
  const ceilingUrl = `${server.url}/api/v2/qso/${newest!.id}`;
  for (const [, path] of requests) for (let i = 0; i < 3; i++) await timedGet(server.url + path, headers);
  console.log(`\nload before: ${load()}\n\n${LIST_LATENCY_HEAD}`);
  for (const [label, path] of requests) {
    const measured = await measureList(server.url + path, ceilingUrl, headers, RUNS, 2, meter);
    console.log(listLatencyRow(label, measured));
  }
  console.log(`load after: ${load()}`);

  // The Log page's Export ADIF of the whole log (no filter): one streamed download.
  const cookie = signIn.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
  const exportBegin = performance.now();
  const download = await fetch(`${server.url}/app/export.adi`, { headers: { cookie } });
  let bytes = 0;
  let records = 0;
  for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) records++;
  }
  const exportSeconds = (performance.now() - exportBegin) / 1000;
  console.log(`\nExport ADIF of the whole log: HTTP ${download.status}, ${(bytes / 1e6).toFixed(0)} MB, ${records} lines in ${exportSeconds.toFixed(1)} s`
    + ` (${Math.round(records / exportSeconds)} lines/s), server peak RSS ${server.workersPeakRssMb().map((mb) => mb.toFixed(0)).join(' / ')} MiB; load ${load()}`);

  if (!process.argv.includes('--no-browser') && existsSync(CHROMIUM)) {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    try {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
      const firstRow = page.locator('table.log tbody tr').first();
      await page.goto(server.url + '/');
      await page.getByLabel('Username').fill('owner');
      await page.getByLabel('Password').fill(PASSWORD);
      let begin = performance.now();
      await page.getByRole('button', { name: 'Sign in' }).click();
      await firstRow.waitFor();
      const afterSignIn = performance.now() - begin;
      const reloads: number[] = [];
      for (let i = 0; i < RELOADS; i++) {
        begin = performance.now();
        await page.reload();
        await firstRow.waitFor();
        reloads.push(performance.now() - begin);
      }
      reloads.sort((a, b) => a - b);
      console.log(`\nChromium, time to the log's first row: after Sign in ${afterSignIn.toFixed(0)} ms; after a reload p50 ${percentile(reloads, 50).toFixed(0)} ms, max ${reloads.at(-1)!.toFixed(0)} ms (${RELOADS} reloads); load ${load()}`);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.stop();
  await database.dispose();
}
