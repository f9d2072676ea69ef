/**
 * The public log search (docs/public-log.md) under a crowd: CONCURRENCY clients ask
 * `GET /api/public/{slug}/search?call=…` for calls drawn from CALLS distinct ones (most asked
 * again and again, as DXers do after each QSO) against `logbook serve --workers 1`, while QSOs
 * keep arriving (WRITES a second, each invalidating the cached answers). Reports answers a
 * second, p50 / p99, and the CPU per answer of the server and of the database.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/public-search.ts \
 *     [--qsos 100000] [--seconds 20] [--concurrency 32] [--calls 500] [--writes 2] [--keep | --reuse <database>]
 */
import { databaseName, numberOption, percentile, scratchDatabase } from './lib/scratch.js';
import { generateLogs } from './lib/generatedLog.js';
import { startServe } from './lib/serveProcess.js';
import { CpuMeter, cpuSpent } from './lib/cpuMeter.js';
import { closeConnections, sendDiscarding } from './lib/httpClient.js';
import { createLogbook } from '../lib/accounts/logbooks.js';
import { inStationQsoTransaction } from '../lib/qso/writeLock.js';

const QSOS = numberOption('qsos', 100_000);
const SECONDS = numberOption('seconds', 20);
const CONCURRENCY = numberOption('concurrency', 32);
const CALLS = numberOption('calls', 500);
const WRITES = numberOption('writes', 2);

const database = await scratchDatabase('public_search');
const db = database.pool;
const { ownerId, home, portable } = await generateLogs(db, QSOS);
const { rows: [kept] } = await db.query<{ slug: string }>("SELECT slug FROM logbooks WHERE user_id = $1 AND name = 'Live'", [ownerId]);
const { slug } = kept ?? await createLogbook(db, { userId: ownerId, name: 'Live', stationIds: [home, portable], publication: { public: true } });

// The limiter stays on (its cost is part of an answer's), with room for the benchmark's one address.
const server = await startServe(database.url, { workers: 1, config: { api_rate_limits: { public: { requests: 100_000_000, window: 60 } } } });
const meter = CpuMeter.available() ? new CpuMeter(server.pid, databaseName(database.url)) : null;
const calls = Array.from({ length: CALLS }, (_, i) => (i % 10 === 0 ? `N${i}ZZZ` : `K${i * 37 % 20000}X`));
const url = (call: string) => `${server.url}/api/public/${slug}/search?call=${call}`;
for (const call of calls.slice(0, 20)) if ((await sendDiscarding(url(call))) !== 200) throw new Error(`search ${call} failed`);

/** Transactions the benchmark's database committed so far (a search or a check is one; the counts reach pg_stat within a second). */
const commits = async () => Number((await db.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0]!.n);

let written = 0;
const writer = WRITES <= 0 ? undefined : setInterval(() => {
  inStationQsoTransaction(db, [home], (client) =>
    // A time within the last day, so that runs on a kept database do not write duplicates (qso_dupe_key's minute).
    client.query(`INSERT INTO qso (station_id, call, time_on, band, mode) VALUES ($1, $2, (now() AT TIME ZONE 'UTC') - random() * interval '1 day', '20m', 'CW')`, [home, calls[written % CALLS]]))
    .then(() => { written++; }, (error: Error) => console.error('write failed:', error.message));
}, 1000 / WRITES);

const times: number[] = [];
const end = Date.now() + SECONDS * 1000;
await new Promise((resolve) => setTimeout(resolve, 1500));
const commitsBefore = await commits();
const before = meter?.sample();
const started = process.hrtime.bigint();
await Promise.all(Array.from({ length: CONCURRENCY }, async (_, client) => {
  for (let i = client; Date.now() < end; i += CONCURRENCY) {
    const start = process.hrtime.bigint();
    const status = await sendDiscarding(url(calls[(i * 7919) % CALLS]!));
    if (status !== 200) throw new Error(`HTTP ${status}`);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
}));
const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
const after = meter?.sample();
clearInterval(writer);
await new Promise((resolve) => setTimeout(resolve, 1500));
const statements = await commits() - commitsBefore - written;
times.sort((a, b) => a - b);
const spent = before && after ? cpuSpent(before, after) : null;
console.log(`\npublic search, ${QSOS} QSOs, ${CONCURRENCY} clients, ${CALLS} calls, ${written} QSOs written meanwhile (${(written / elapsed).toFixed(1)}/s)`);
console.log('| answers/s | p50 ms | p99 ms | CPU ms per answer: server / database | database transactions per answer (writes not counted) |\n|---|---|---|---|---|');
const cpu = spent === null ? 'n/a' : `${((spent.server ?? 0) / times.length).toFixed(3)} / ${(spent.database / times.length).toFixed(3)}`;
console.log(`| ${(times.length / elapsed).toFixed(0)} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${cpu} | ${(statements / times.length).toFixed(2)} |`);
closeConnections();
await server.stop();
await database.dispose();
