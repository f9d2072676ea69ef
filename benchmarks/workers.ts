/**
 * Single-create throughput of `logbook serve --workers N` (the real command, as its own
 * processes) against `--workers 1`: 32 clients (this process) posting new QSOs for a few seconds,
 * v2 JSON and v1 api/qso with one ADIF record, into a location of a scratch database. The
 * ceiling, measured by the same clients against the same processes: v1 `api/version`, the
 * cheapest authenticated request (the key lookup, one round trip, no write).
 *
 * The clients are lib/httpClient.ts (node:http over kept-alive connections; --fetch: fetch, as
 * until 2026-11-27, whose own CPU took a third of the two cores); they do not ask for gzip unless
 * --gzip is given.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/workers.ts \
 *     [--workers N (default: CPUs)] [--clients 32] [--seconds 8] [--warm-up 10] [--gzip] [--fetch]
 */
import { availableParallelism, loadavg } from 'node:os';
import { numberOption, percentile, scratchDatabase, secondsSince } from './lib/scratch.js';
import { startServe, type ServeProcess } from './lib/serveProcess.js';
import { closeConnections, sendDiscarding } from './lib/httpClient.js';
import { cpuSeconds } from './lib/cpuTime.js';
import { createUser } from '../lib/accounts/users.js';
import { createStation } from '../lib/accounts/stations.js';
import { createToken } from '../lib/auth/tokens.js';
import { createKey } from '../lib/auth/keys.js';

const WORKERS = numberOption('workers', availableParallelism());
const CLIENTS = numberOption('clients', 32);
const SECONDS = numberOption('seconds', 8);
/**
 * Seconds of unmeasured load before each measurement. A new process serves at a third of its
 * speed while V8 compiles its code; N processes each see 1/N of the requests, so they take N
 * times as long to get there (with 2: 8–10 s of v2 creates, benchmarks/RESULTS.md).
 */
const WARM_UP = numberOption('warm-up', 10);
const GZIP = process.argv.includes('--gzip');
/** POSTs `body` and reads the whole answer; resolves with its status. */
const post = (url: string, headers: Record<string, string>, body: string): Promise<number> => sendDiscarding(url, { method: 'POST', headers, body, gzip: GZIP });

const database = await scratchDatabase('workers');
const userId = await createUser(database.pool, { username: 'bench', callsign: 'DL1BEN' });
const stationId = await createStation(database.pool, { userId, name: 'Home', callsign: 'DL1BEN', gridsquare: 'JO62QM' });
const { token } = await createToken(database.pool, { userId, createdBy: userId, name: 'bench', scopes: ['qso:read', 'qso:write'], expiresAt: null });
const key = await createKey(database.pool, userId, 'rw');

let serial = 0;
type Door = 'v1' | 'v2' | 'ceiling';

/** CLIENTS clients sending `door`'s request for `seconds`; `answered` hears of each answer. */
async function drive(url: string, door: Door, seconds: number, answered: (status: number, ms: number) => void = () => {}): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (Date.now() < deadline) {
      const call = `W${++serial}X`;
      const body = door === 'v2'
        ? JSON.stringify({ station_profile_id: stationId, call, band: '20m', mode: 'FT8', qso_date: '2026-01-01', time_on: '1200', freq: 14074000 })
        : JSON.stringify({ key, station_profile_id: stationId, type: 'adif', string: `<call:${call.length}>${call}<band:3>20m<mode:3>FT8<qso_date:8>20260101<time_on:4>1200<eor>` });
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(door === 'v2' ? { authorization: `Bearer ${token}` } : {}) };
      const begin = process.hrtime.bigint();
      const path = { v2: '/api/v2/qso', v1: '/api/qso', ceiling: '/api/version' }[door];
      const status = await post(url + path, headers, door === 'ceiling' ? JSON.stringify({ key }) : body);
      answered(status, secondsSince(begin) * 1000);
    }
  }));
}

/** `door` measured for SECONDS, after WARM_UP seconds of the same load that count for nothing. */
async function load({ url, pid }: ServeProcess, door: Door): Promise<{ rate: number; text: string }> {
  await drive(url, door, WARM_UP);
  const cpuBefore = cpuSeconds(pid);
  const clientBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  await drive(url, door, SECONDS, (status, ms) => {
    latencies.push(ms);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  const elapsed = secondsSince(start);
  const cpuAfter = cpuSeconds(pid);
  const client = process.cpuUsage(clientBefore);
  latencies.sort((a, b) => a - b);
  const rate = latencies.length / elapsed;
  const perRequest = (seconds: number) => ((seconds * 1e6) / latencies.length).toFixed(0);
  const text = `${Math.round(rate)} req/s (${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')}), p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms | `
    + `${perRequest(cpuAfter.server - cpuBefore.server)} / ${perRequest(cpuAfter.postgres - cpuBefore.postgres)} / ${perRequest((client.user + client.system) / 1e6)}`;
  return { rate, text };
}

console.log(`load average at start: ${loadavg().map((n) => n.toFixed(1)).join(' ')}`);
console.log(`| processes | door | ${CLIENTS} clients, ${SECONDS} s after ${WARM_UP} s of warm-up | CPU µs per request: server / PostgreSQL / clients | vs ceiling |\n|---|---|---|---|---|`);
for (const workers of [1, WORKERS]) {
  const server = await startServe(database.url, { workers });
  const ceiling = await load(server, 'ceiling');
  console.log(`| ${workers} | ceiling: v1 api/version | ${ceiling.text} | 100 % |`);
  for (const door of ['v2', 'v1'] as const) {
    const { rate, text } = await load(server, door);
    console.log(`| ${workers} | ${door} create | ${text} | ${Math.round((100 * rate) / ceiling.rate)} % |`);
  }
  await server.stop();
}
console.log(`load average at end: ${loadavg().map((n) => n.toFixed(1)).join(' ')}`);
closeConnections();
await database.dispose();
