/**
 * Single-create throughput of `logbook serve --workers N` (the real command, as its own
 * processes) against `--workers 1`: 32 clients (this process) posting new QSOs for a few seconds,
 * v2 JSON and v1 api/qso with one ADIF record, into a location of a scratch database.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/workers.ts \
 *     [--workers N (default: CPUs)] [--clients 32] [--seconds 8]
 */
import { availableParallelism } from 'node:os';
import { numberOption, percentile, scratchDatabase, secondsSince } from './lib/scratch.js';
import { startServe } from './lib/serveProcess.js';
import { createUser } from '../lib/accounts/users.js';
import { createStation } from '../lib/accounts/stations.js';
import { createToken } from '../lib/auth/tokens.js';
import { createKey } from '../lib/auth/keys.js';

const WORKERS = numberOption('workers', availableParallelism());
const CLIENTS = numberOption('clients', 32);
const SECONDS = numberOption('seconds', 8);

const database = await scratchDatabase('workers');
const userId = await createUser(database.pool, { username: 'bench', callsign: 'DL1BEN' });
const stationId = await createStation(database.pool, { userId, name: 'Home', callsign: 'DL1BEN', gridsquare: 'JO62QM' });
const { token } = await createToken(database.pool, { userId, createdBy: userId, name: 'bench', scopes: ['qso:read', 'qso:write'], expiresAt: null });
const key = await createKey(database.pool, userId, 'rw');

let serial = 0;
async function load(url: string, door: 'v1' | 'v2'): Promise<string> {
  const deadline = Date.now() + SECONDS * 1000;
  const start = process.hrtime.bigint();
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (Date.now() < deadline) {
      const call = `W${++serial}X`;
      const body = door === 'v2'
        ? JSON.stringify({ station_profile_id: stationId, call, band: '20m', mode: 'FT8', qso_date: '2026-01-01', time_on: '1200', freq: 14074000 })
        : JSON.stringify({ key, station_profile_id: stationId, type: 'adif', string: `<call:${call.length}>${call}<band:3>20m<mode:3>FT8<qso_date:8>20260101<time_on:4>1200<eor>` });
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(door === 'v2' ? { authorization: `Bearer ${token}` } : {}) };
      const begin = process.hrtime.bigint();
      const response = await fetch(door === 'v2' ? `${url}/api/v2/qso` : `${url}/api/qso`, { method: 'POST', headers, body });
      await response.arrayBuffer();
      latencies.push(secondsSince(begin) * 1000);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
  }));
  const elapsed = secondsSince(start);
  latencies.sort((a, b) => a - b);
  return `${Math.round(latencies.length / elapsed)} req/s (${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')}), p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`;
}

console.log(`| processes | door | ${CLIENTS} clients, ${SECONDS} s |\n|---|---|---|`);
for (const workers of [1, WORKERS]) {
  const server = await startServe(database.url, { workers });
  for (const door of ['v2', 'v1'] as const) console.log(`| ${workers} | ${door} | ${await load(server.url, door)} |`);
  await server.stop();
}
await database.dispose();
