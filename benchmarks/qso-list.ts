/**
 * QSO list latency and single-create throughput on a generated log: 1M QSOs of the token's
 * owner (two station locations, 900k + 100k) and 1M of another user, interleaved in the table as
 * a shared server would hold them. Built with one INSERT … SELECT generate_series in a
 * throw-away database (dropped at the end unless --keep), then measured over HTTP against the
 * real server: sequential list requests, p50 / p99 per scenario and the CPU each costs the
 * server and the database (benchmarks/lib/cpuMeter.ts); then single creates from 32
 * concurrent clients, 10 % of them duplicates. Prints the EXPLAIN of each list query for
 * docs/api-v2/qso.md with --explain.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/qso-list.ts \
 *     [--qsos 1000000] [--runs 200] [--clients 32] [--seconds 10] [--explain] [--keep | --reuse <database>] [--lists-only | --creates-only] [--in-process]
 */
import { buildConfig } from '../lib/config.js';
import { createLogger } from '../lib/log.js';
import { LIST_LATENCY_HEAD, databaseName, listLatencyRow, measureList, numberOption, timedGet, percentile, scratchDatabase, secondsSince } from './lib/scratch.js';
import { dataDir, runCli } from './import.js';
import { startServe } from './lib/serveProcess.js';
import { CpuMeter } from './lib/cpuMeter.js';
import { closeConnections, sendDiscarding, type HttpSend } from './lib/httpClient.js';
import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { startServer } from '../lib/server.js';
import { generateLogs } from './lib/generatedLog.js';
import type { Principal } from '../lib/http/v2/principal.js';
import type { RequestContext } from '../lib/http/v2/resource.js';
import { compactQsoCounts } from '../lib/qso/counts.js';
import { beginQsoWriteForStations } from '../lib/qso/writeLock.js';
import { inTransaction } from '../lib/db/transaction.js';
import { pageSql, withItsCut } from '../lib/qso/list/query.js';
import { parseListQuery } from '../lib/http/v2/resources/qso/listParams.js';
import { pageSeek } from '../lib/qso/list/seek.js';
import { totalSqlForExplain } from '../lib/qso/list/total.js';

const QSOS = numberOption('qsos', 1_000_000);
const RUNS = numberOption('runs', 200);
const CLIENTS = numberOption('clients', 32);
const CREATE_SECONDS = numberOption('seconds', 10);
const EXPLAIN = process.argv.includes('--explain');
/** Only the single creates (one client, then 32): no lists, no ADIF paging. */
const CREATES_ONLY = process.argv.includes('--creates-only');

const database = await scratchDatabase('qso');
const db = database.pool;
const seconds = secondsSince;

// --- the logs -------------------------------------------------------------------------------
const { ownerId, home, empty, token, v1Key } = await generateLogs(db, QSOS);

const { rows: [busy] } = await db.query<{ call: string }>(
  'SELECT call FROM qso WHERE station_id = $1 GROUP BY call ORDER BY count(*) DESC LIMIT 1', [home],
);
const { rows: [recent] } = await db.query<{ id: number }>('SELECT max(id) - 2000 AS id FROM qso');
const { rows: [newest] } = await db.query<{ id: number }>('SELECT max(id) AS id FROM qso WHERE station_id = $1', [home]);
// Half-way through the log: a follower with a filter, a million ids behind the newest.
const middle = Math.floor(newest!.id / 2);
const scenarios: Array<[string, string]> = [
  ['page 1 (per_page 50)', ''],
  ['page 1, per_page 5000', '?per_page=5000'],
  // The longest page read as rows of a named statement, beside the shortest read by COPY (list.ts).
  ['page 1, per_page 100 (rows)', '?per_page=100'],
  ['page 1, per_page 101 (COPY)', '?per_page=101'],
  ['mode=CW, per_page 100 (rows)', '?mode=CW&per_page=100'],
  ['mode=CW, per_page 101 (COPY)', '?mode=CW&per_page=101'],
  ['page 100 (offset 4,950)', '?page=100'],
  ['page 10,000 (offset 499,950)', '?page=10000'],
  ['station_id=Home', `?station_id=${home}`],
  [`callsign=${busy!.call}`, `?callsign=${busy!.call}`],
  ['band=20m', '?band=20m'],
  ['band=SAT', '?band=SAT'],
  ['mode=CW (main mode)', '?mode=CW'],
  ['mode=FT4 (submode)', '?mode=FT4'],
  ['qsl_filter=lotw', '?qsl_filter=lotw'],
  ['qsl_filter=qsl,qrz', '?qsl_filter=qsl,qrz'],
  ['since_id (last ~1,000 of the owner)', `?since_id=${recent!.id}`],
  ['qso_since/qso_until (one month)', '?qso_since=2016-03-01&qso_until=2016-03-31'],
  ['limit=100', '?limit=100'],
  ['format=adif (per_page 1000)', '?format=adif'],
  ['format=adif, since_id (last ~1,000)', `?format=adif&since_id=${recent!.id}`],
  ['format=adif, mode=CW', '?format=adif&mode=CW'],
  // since_id half-way with one kind of filter: the total sums that kind's id blocks (it counted
  // every matching QSO after since_id until 2026-11-27).
  ['mode=CW, since_id half-way', `?mode=CW&since_id=${middle}`],
  ['format=adif, mode=CW, since_id half-way', `?format=adif&mode=CW&since_id=${middle}`],
  // A range of dates in ADIF: read by time and sorted by id where the month counts say it is
  // cheaper than walking the ids (a month), walked where not (since 2001: the whole log).
  ['format=adif, qso_since/qso_until (one month)', '?format=adif&qso_since=2016-03-01&qso_until=2016-03-31'],
  ['format=adif, qso_since/qso_until (one year)', '?format=adif&qso_since=2016-01-01&qso_until=2016-12-31'],
  // A filter few QSOs match, in id order: its matches sorted where the walk would pass more.
  ['format=adif, band=SAT', '?format=adif&band=SAT'],
  ['format=adif, qsl_filter=qsl,qrz', '?format=adif&qsl_filter=qsl,qrz'],
  // Deep pages of every filter: they start from their month (qso_month_counts, per bucket);
  // a date range with a deep page skips through the range.
  ['station_id=Home, page 10,000', `?station_id=${home}&page=10000`],
  ['page 19,000 (offset 949,950)', '?page=19000'],
  ['band=20m, page 1,500 (offset 74,950)', '?band=20m&page=1500'],
  ['band=SAT, page 150', '?band=SAT&page=150'],
  ['mode=CW, page 3,000 (offset 149,950)', '?mode=CW&page=3000'],
  ['qsl_filter=lotw, page 2,000 (offset 99,950)', '?qsl_filter=lotw&page=2000'],
  ['qso_since/qso_until (one year)', '?qso_since=2016-01-01&qso_until=2016-12-31'],
  ['qso_since/qso_until (one year), page 2,000', '?qso_since=2016-01-01&qso_until=2016-12-31&page=2000'],
  // A range of dates with band or qsl_filter: the total counts the range's entries of the time index.
  ['qso_since/qso_until (one year), band=20m', '?qso_since=2016-01-01&qso_until=2016-12-31&band=20m'],
  ['qso_since/qso_until (one year), qsl_filter=lotw', '?qso_since=2016-01-01&qso_until=2016-12-31&qsl_filter=lotw'],
  ['format=adif, page 500 (offset 499,000 by id)', '?format=adif&page=500'],
  // Ascending ids with a filter: from the block of ids its offset falls into, in that kind's
  // id-block counts (sql/022).
  ['format=adif, mode=CW, page 150 (offset 149,000 by id)', '?format=adif&mode=CW&page=150'],
  // A range of dates by id, deep: from the blocks of the range's months (sql/023).
  ['format=adif, qso_since/qso_until (one year), page 50', '?format=adif&qso_since=2016-01-01&qso_until=2016-12-31&page=50'],
  // A follower of part of the log: its total summed from the blocks of the range's months.
  ['qso_since (from a partial month), since_id half-way', `?qso_since=2016-03-05&since_id=${middle}`],
  // Band and mode together in id order: from their blocks of ids (sql/026), ids picked from
  // qso_station_id (sql/027).
  ['format=adif, band=20m&mode=CW', '?format=adif&band=20m&mode=CW'],
  ['format=adif, band=20m&mode=CW, page 15', '?format=adif&band=20m&mode=CW&page=15'],
  // A kind with qsl_filter: no counts of their own, walked from the start (ids from qso_station_id).
  ['format=adif, band=20m&qsl_filter=lotw', '?format=adif&band=20m&qsl_filter=lotw'],
  // A sync tool following one band and mode by since_id.
  ['format=adif, band=20m&mode=CW, since_id half-way', `?format=adif&band=20m&mode=CW&since_id=${middle}`],
];

// --- EXPLAIN of the list queries ------------------------------------------------------------
if (EXPLAIN) {
  const { rows: [owned] } = await db.query<{ ids: number[] }>('SELECT array_agg(id ORDER BY id) AS ids FROM stations WHERE user_id = $1', [ownerId]);
  const principal = { userId: ownerId, club: null, stationIds: owned!.ids } as unknown as Principal;
  for (const [label, query] of scenarios) {
    // benchmark only: parseListQuery reads query and principal of a request.
    const request = { query: Object.fromEntries(new URLSearchParams(query)), principal } as unknown as RequestContext;
    const list = await withItsCut(db, parseListQuery(request));
    const seek = await pageSeek(db, list);
    for (const [kind, sql] of [['total', totalSqlForExplain(list)], ['page', pageSql(list, undefined, seek)]] as const) {
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${sql.text}`, sql.values);
      console.log(`\n--- ${label}: ${kind}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
    }
  }
}

// --- list latency over HTTP -----------------------------------------------------------------
// The counts of the generated rows arrive as many appended rows; fold them as the server would.
await compactQsoCounts(db, 0);
const headers = { authorization: `Bearer ${token}` };

if (!CREATES_ONLY) {
  // Against `logbook serve` as `npm start` runs it (a worker per core, with the workers' V8
  // flags), so that this process's client work and garbage collection stay out of the server's
  // latencies; --in-process serves from this process instead, as before 2026-11-25.
  const inProcess = process.argv.includes('--in-process');
  const listServer = inProcess
    ? await startServer({ config: buildConfig({}), db: database, logger: createLogger({}, true), port: 0, host: '127.0.0.1' })
    : await startServe(database.url, { workers: cpus().length });
  console.log(`\nlists served by ${inProcess ? 'this process' : `logbook serve --workers ${cpus().length}`}`);
  // Each list request is followed by the cheapest request that reads a QSO (the token's
  // lookup, one row by its key), whose latencies are this machine's own at that moment: the
  // ceiling a list's p99 is set against.
  const ceilingUrl = `${listServer.url}/api/v2/qso/${newest!.id}`;
  // The server's processes are new: every scenario a few times first, so that the first one
  // measured does not pay for their compilation of the list code (page 1 ran 13 ms p50 first
  // against 6-9 ms for the pages after it).
  for (const [, query] of scenarios) for (let i = 0; i < 5; i++) await timedGet(`${listServer.url}/api/v2/qso${query}`, headers);
  const meter = CpuMeter.available() ? new CpuMeter('pid' in listServer ? listServer.pid : null, databaseName(database.url)) : null;
  console.log(`\n${LIST_LATENCY_HEAD}`);
  for (const [label, query] of scenarios) {
    console.log(listLatencyRow(label, await measureList(`${listServer.url}/api/v2/qso${query}`, ceilingUrl, headers, RUNS, 3, meter)));
  }
  await ('close' in listServer ? listServer.close() : listServer.stop());
}

if (process.argv.includes('--lists-only')) {
  await database.dispose();
  process.exit(0);
}

const server = await startServer({ config: buildConfig({}), db: database, logger: createLogger({}, true), port: 0, host: '127.0.0.1' });

// --- ADIF paging against the export ------------------------------------------------------
// A client copying the whole of Home by since_id, 5000 records a page, as loggers and sync tools
// page (JSON parsed, lastfetchedid sent back), against `logbook export` of the same location (a
// real process writing a file), in the same sitting. The server is a `logbook serve --workers 1`
// process of its own (as the export is a process of its own), so its peak RSS is the server's.
// Pages are asked uncompressed (as the export's file is), then with gzip, which fetch asks for
// unless told otherwise.
if (!CREATES_ONLY) {
  const serve = await startServe(database.url);
  const idleRss = serve.peakRssMb();
  const pageThrough = async (encoding: 'identity' | 'gzip', report = true) => {
    const pageTimes: number[] = [];
    // Where a page's time goes: until the answer's head (the server's queries up to the COPY's
    // first rows), the body, and the client's JSON.parse.
    const split = { head: 0, body: 0, parse: 0 };
    let sinceId = 0;
    let paged = 0;
    let bytes = 0;
    const began = process.hrtime.bigint();
    for (;;) {
      const pageStart = process.hrtime.bigint();
      const url = `${serve.url}/api/v2/qso?format=adif&per_page=5000&station_id=${home}&since_id=${sinceId}`;
      const response = await fetch(url, { headers: { ...headers, 'accept-encoding': encoding } });
      const headAt = process.hrtime.bigint();
      const text = await response.text();
      const bodyAt = process.hrtime.bigint();
      const page = JSON.parse(text) as { data: { exported: number; lastfetchedid: number } };
      pageTimes.push(seconds(pageStart) * 1000);
      split.head += Number(headAt - pageStart) / 1e6;
      split.body += Number(bodyAt - headAt) / 1e6;
      split.parse += seconds(bodyAt) * 1000;
      if (page.data.exported === 0) break;
      paged += page.data.exported;
      bytes += text.length;
      sinceId = page.data.lastfetchedid;
    }
    const pagingSeconds = seconds(began);
    pageTimes.sort((x, y) => x - y);
    if (!report) return 0;
    const n = pageTimes.length;
    console.log(
      `\nADIF paging of Home by since_id, per_page 5000, ${encoding}: ${paged} QSOs in ${pageTimes.length} requests, ${pagingSeconds.toFixed(2)} s = ` +
        `${Math.round(paged / pagingSeconds)} QSOs/s, ${(bytes / 1048576 / pagingSeconds).toFixed(1)} MB/s of JSON; page p50 ${percentile(pageTimes, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(pageTimes, 99).toFixed(1)} ms (mean per page: head ${(split.head / n).toFixed(1)}, body ${(split.body / n).toFixed(1)}, ` +
        `client JSON.parse ${(split.parse / n).toFixed(1)} ms); server RSS ${idleRss.toFixed(0)} MiB idle, peak so far ${serve.peakRssMb().toFixed(0)} MiB`,
    );
    return paged / pagingSeconds;
  };
  // A first pass unmeasured: the first reader of the rows pays for bringing them into memory.
  await pageThrough('identity', false);
  const rates = { identity: await pageThrough('identity'), gzip: await pageThrough('gzip') };
  await serve.stop();
  await mkdir(dataDir, { recursive: true });
  const exportFile = join(dataDir, `export-home-${process.pid}.adi`);
  const exportRun = await runCli(['export', '--station', String(home), '-o', exportFile, '--json'], database.url);
  await unlink(exportFile);
  const exportRate = (JSON.parse(exportRun.stdout) as { exported: number }).exported / exportRun.seconds;
  console.log(
    `logbook export --station Home (a process, to a file): ${exportRun.seconds.toFixed(2)} s = ${Math.round(exportRate)} QSOs/s, ` +
      `peak RSS ${exportRun.peakRssMb.toFixed(0)} MB; paging at ${((rates.identity / exportRate) * 100).toFixed(0)} % of the export uncompressed, ` +
      `${((rates.gzip / exportRate) * 100).toFixed(0)} % with gzip (target ≥ 50 %)`,
  );
}

// --- single creates ------------------------------------------------------------------------
// v2: JSON body; v1: api/qso with one ADIF record, as loggers send it. Each request logs a new
// QSO (unique call); with several clients every tenth repeats an earlier one (v2 409, v1 201 with
// adif_count 0 and the duplicate message).
type Door = 'v1' | 'v2';
let serial = 0;
/** In every call of this run, so that a database reused (--reuse) does not hold them already. */
const RUN = (Date.now() % 36 ** 3).toString(36).toUpperCase();
function createRequest(door: Door, stationId: number, call: string): { url: string; init: HttpSend } {
  if (door === 'v2') {
    const body = JSON.stringify({ station_profile_id: stationId, call, band: '20m', mode: 'FT8', qso_date: '2026-01-01', time_on: '1200', freq: 14074000 });
    return { url: `${server.url}/api/v2/qso`, init: { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body } };
  }
  const adif = `<call:${call.length}>${call}<band:3>20m<mode:3>FT8<freq:6>14.074<qso_date:8>20260101<time_on:4>1200<eor>`;
  const body = JSON.stringify({ key: v1Key, station_profile_id: stationId, type: 'adif', string: adif });
  return { url: `${server.url}/api/qso`, init: { method: 'POST', headers: { 'content-type': 'application/json' }, body } };
}

async function timedCreate(door: Door, stationId: number, call: string): Promise<{ ms: number; status: number }> {
  const { url, init } = createRequest(door, stationId, call);
  const begin = process.hrtime.bigint();
  const status = await sendDiscarding(url, init);
  return { ms: seconds(begin) * 1000, status };
}

const { rows: [{ createdAbove }] } = await db.query<{ createdAbove: string }>('SELECT coalesce(max(id), 0)::text AS "createdAbove" FROM qso');
// One client, creates into Home and into the empty location taking turns, so that both see the
// same moments of the machine (measured one after the other, the first measured ran ~20 % slower).
console.log(`\n| single create, one client, ${RUNS * 4} requests each | p50 ms | p99 ms |\n|---|---|---|`);
for (const door of ['v1', 'v2'] as const) {
  const targets = [['Home (900k QSOs)', home], ['an empty location', empty]] as const;
  for (let i = 0; i < 10; i++) for (const [, stationId] of targets) await timedCreate(door, stationId, `WU${door}${++serial}X${RUN}`);
  const times = targets.map((): number[] => []);
  for (let i = 0; i < RUNS * 4; i++) {
    for (const [t, [, stationId]] of targets.entries()) times[t]!.push((await timedCreate(door, stationId, `WS${door}${++serial}X${RUN}`)).ms);
  }
  for (const [t, [label]] of targets.entries()) {
    const sorted = times[t]!.sort((a, b) => a - b);
    console.log(`| ${door} into ${label} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} |`);
  }
}

for (const door of ['v2', 'v1'] as const) {
  const start = process.hrtime.bigint();
  const deadline = Date.now() + CREATE_SECONDS * 1000;
  const statuses = new Map<number, number>();
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; Date.now() < deadline; n++) {
        const repeat = n % 10 === 9;
        const { ms, status } = await timedCreate(door, home, `W${door}${client}B${repeat ? n - 5 : n}X${RUN}`);
        latencies.push(ms);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  const elapsed = seconds(start);
  latencies.sort((a, b) => a - b);
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  console.log(
    `\n${door} single creates into Home, ${CLIENTS} clients, ${elapsed.toFixed(1)} s: ${total} requests = ${Math.round(total / elapsed)} req/s ` +
      `(${[...statuses].map(([status, n]) => `${n} × ${status}`).join(', ')}), p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
      `p99 ${percentile(latencies, 99).toFixed(1)} ms`,
  );
}
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (server and clients in one process)`);

// The QSOs created here are gone again, so that a database kept for --reuse holds the generated
// logs only: tens of thousands of creates a run, all at one time, made the next runs' deep pages
// skip within that one crowded month.
await inTransaction(db, async (client) => {
  await beginQsoWriteForStations(client, [home, empty]);
  await client.query('DELETE FROM qso WHERE station_id = ANY($1::int[]) AND id > $2', [[home, empty], createdAbove]);
});
await compactQsoCounts(db, 0);

closeConnections();
await server.close();
await database.dispose();
