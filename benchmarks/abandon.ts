/**
 * Abandoned heavy requests against cheap ones (issue 16, goal 5): `GET /api/v2/qso/{id}` latency
 * from one client, first alone, then while 100 heavy list requests are started and abandoned by
 * their clients. Logs as in benchmarks/qso-list.ts (1M owned + 1M foreign QSOs, interleaved);
 * the server is `logbook serve` as an operator starts it (its own processes, `--workers` the
 * CPUs by default; needs `npm run build`), or with --in-process one API process inside this one,
 * as until 2026-11-27's sixth session, whose event loop then also ran the GETs being timed. The
 * heavy clients run in a process of their own (benchmarks/lib/abandonedLists.ts; until the
 * seventh session, fetch in this one, whose event loop they delayed by up to 120 ms), and every
 * worker has served the heavy list before the window opens. A heavy list
 * is one whose page query still reads most of the log: an ADIF page of band with qsl_filter at
 * offset 5,000 in id order, which no counts shorten, so the page walks the ids past every QSO
 * before it (until 2026-11-27 a JSON page of one filter, then an ADIF page of one filter, then
 * one of band and mode, until the month counts, that kind's id-block counts and then those of
 * band and mode took each to its start).
 * Each is aborted after --abandon-ms; afterwards the benchmark checks that none of their
 * statements is still running.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/abandon.ts \
 *     [--qsos 1000000] [--heavy 100] [--abandon-ms 300] [--runs 200] [--keep] [--reuse <db>]
 *     [--workers N | --in-process]
 */
import { availableParallelism, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildConfig } from '../lib/config.js';
import { createLogger } from '../lib/log.js';
import { startServer } from '../lib/server.js';
import { compactQsoCounts } from '../lib/qso/counts.js';
import { generateLogs } from './lib/generatedLog.js';
import { numberOption, percentile, scratchDatabase, secondsSince } from './lib/scratch.js';
import { closeConnections, sendDiscarding } from './lib/httpClient.js';
import { startServe } from './lib/serveProcess.js';
import { loadAbandonedLists } from './lib/abandonedLists.js';

const QSOS = numberOption('qsos', 1_000_000);
const HEAVY = numberOption('heavy', 100);
const ABANDON_MS = numberOption('abandon-ms', 300);
const RUNS = numberOption('runs', 200);
const IN_PROCESS = process.argv.includes('--in-process');
const WORKERS = numberOption('workers', availableParallelism());

const database = await scratchDatabase('abandon');
const db = database.pool;
const { home, token } = await generateLogs(db, QSOS);
const server = IN_PROCESS
  ? await startServer({ config: buildConfig({}), db: database, logger: createLogger({}, true), port: 0, host: '127.0.0.1' })
  : await startServe(database.url, { workers: WORKERS });
await compactQsoCounts(db, 0);
const headers = { authorization: `Bearer ${token}` };
const { rows: ids } = await db.query<{ id: number }>('SELECT id FROM qso WHERE station_id = $1 ORDER BY random() LIMIT $2', [home, RUNS]);
const heavyUrl = `${server.url}/api/v2/qso?format=adif&band=20m&qsl_filter=lotw&page=2&per_page=5000`;

/** GET /api/v2/qso/{id} (lib/httpClient.ts; the heavy lists are fetch, which can abort) one after another over the ids (once, or until `until` settles): latencies in ms, sorted. */
async function showLatencies(until?: Promise<unknown>): Promise<number[]> {
  let settled = until === undefined;
  void until?.then(() => (settled = true));
  const times: number[] = [];
  for (let i = 0; until === undefined ? i < ids.length : !settled; i++) {
    const { id } = ids[i % ids.length]!;
    const begin = process.hrtime.bigint();
    const status = await sendDiscarding(`${server.url}/api/v2/qso/${id}`, { headers });
    if (status !== 200) throw new Error(`GET /qso/${id}: HTTP ${status}`);
    times.push(secondsSince(begin) * 1000);
  }
  return times.sort((a, b) => a - b);
}

/** One heavy list, timed alone (not abandoned): what an abandoned one would have cost. */
async function heavyAlone(): Promise<number> {
  const begin = process.hrtime.bigint();
  const response = await fetch(heavyUrl, { headers });
  await response.arrayBuffer();
  return secondsSince(begin) * 1000;
}

/** Statements of heavy lists still running in the scratch database. */
async function heavyStillRunning(): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND state = 'active' AND query LIKE '%q.submode =%'`,
  );
  return rows[0]!.n;
}

for (let i = 0; i < 3; i++) await fetch(`${server.url}/api/v2/qso/${ids[i]!.id}`, { headers }).then((r) => r.arrayBuffer());
const alone = await showLatencies();
console.log('measured GET alone; timing one heavy list');
const heavyMs = [await heavyAlone(), await heavyAlone()];
// Every worker serves the heavy list once before the window, as a server that has been running
// has: a worker's first one (its bulk connections opened, the code compiled) stalled it 200–400 ms.
await Promise.all(Array.from({ length: 2 * WORKERS }, () => heavyAlone()));
console.log(`heavy list alone: ${heavyMs.join(', ')} ms; starting the abandoned ones`);

// The heavy clients run in a process of their own (benchmarks/lib/abandonedLists.ts); the
// window is from their start to the end of the last.
const heavyClients = await loadAbandonedLists({ url: heavyUrl, headers, count: HEAVY, abandonMs: ABANDON_MS });
const heavyLoad = heavyClients.start();
const during = await showLatencies(heavyLoad);
const { abandoned, answered } = await heavyLoad;
await sleep(500);
const lingering = await heavyStillRunning();

const line = (label: string, times: number[]) =>
  `| ${label} | ${times.length} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${times[times.length - 1]!.toFixed(1)} |`;
console.log(`\nserver: ${IN_PROCESS ? 'in this process (--in-process)' : `logbook serve --workers ${WORKERS}`}; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
console.log(`one heavy list alone: ${heavyMs.map((ms) => ms.toFixed(0)).join(', ')} ms (${heavyUrl.replace(server.url, '')})`);
console.log(`heavy lists: ${HEAVY} started over 1 s, each abandoned after ${ABANDON_MS} ms: ${abandoned} abandoned, ${answered} answered first`);
console.log(`\n| GET /api/v2/qso/{id} | requests | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|`);
console.log(line('alone', alone));
console.log(line(`while ${HEAVY} heavy lists are started and abandoned`, during));
console.log(`\nheavy list statements still running 0.5 s after the last was abandoned: ${lingering}; target p99 < 100 ms: ${percentile(during, 99) < 100 ? 'met' : 'missed'}`);

closeConnections();
if ('stop' in server) await server.stop();
else await server.close();
await database.dispose();
