/**
 * The small reads a logger or a widget makes for every callsign or locator it sees, against the
 * generated log of benchmarks/qso-list.ts (1M QSOs of the owner, 1M of another user; 20,000
 * calls in as many gridsquares, one DXCC entity): v1 `api/private_lookup`,
 * `api/logbook_check_callsign` and `api/logbook_check_grid`, `api/statistics`, `api/get_wp_stats`,
 * `api/radio` (a rig's status report, a write every second or so), and the v2 lookup and statistic resources, each with an answer found early and one that has to look through
 * everything (a square nobody worked, an entity never confirmed on a band). Sequential requests
 * against `logbook serve --workers 1`, each followed by the ceiling request of the list benchmark
 * (`GET /api/v2/qso/{id}`); p50 / p99 and the CPU each costs the server and the database.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/lookups.ts \
 *     [--qsos 1000000] [--runs 100] [--keep | --reuse <database>]
 *
 * A database kept by qso-list.ts before 2026-11-27 (fourth session) has no DXCC entity and one
 * square on every QSO: generate a new one.
 */
import { databaseName, numberOption, percentile, scratchDatabase } from './lib/scratch.js';
import { generateLogs } from './lib/generatedLog.js';
import { startServe } from './lib/serveProcess.js';
import { CpuMeter, cpuSpent } from './lib/cpuMeter.js';
import { closeConnections, send } from './lib/httpClient.js';
import { createToken } from '../lib/auth/tokens.js';
import { createLogbook } from '../lib/accounts/logbooks.js';
import { compactQsoCounts } from '../lib/qso/counts.js';

const QSOS = numberOption('qsos', 1_000_000);
const RUNS = numberOption('runs', 100);

const database = await scratchDatabase('lookups');
const db = database.pool;
const { ownerId, home, portable, v1Key } = await generateLogs(db, QSOS);
await compactQsoCounts(db, 0);
const { token } = await createToken(db, { userId: ownerId, createdBy: ownerId, name: 'lookups', scopes: ['qso:read', 'lookup:read', 'statistic:read'], expiresAt: null });
// The public logbook of both locations (kept from an earlier run of a reused database).
const { rows: [kept] } = await db.query<{ slug: string }>("SELECT slug FROM logbooks WHERE user_id = $1 AND name = 'Public'", [ownerId]);
const { slug } = kept ?? await createLogbook(db, { userId: ownerId, name: 'Public', stationIds: [home, portable] });
const { rows: [busy] } = await db.query<{ call: string; gridsquare: string; band: string }>(
  'SELECT call, gridsquare, band FROM qso WHERE station_id = $1 GROUP BY call, gridsquare, band ORDER BY count(*) DESC LIMIT 1', [home],
);
const { rows: [newest] } = await db.query<{ id: number }>('SELECT max(id) AS id FROM qso WHERE station_id = $1', [home]);

const server = await startServe(database.url, { workers: 1 });
const bearer = { authorization: `Bearer ${token}` };
const json = { 'content-type': 'application/json' };
interface Request {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}
const v1 = (call: string, body: Record<string, unknown>): Request => ({ url: `${server.url}/index.php/api/${call}`, method: 'POST', headers: json, body: JSON.stringify({ key: v1Key, ...body }) });
const v2 = (path: string): Request => ({ url: `${server.url}/api/v2/${path}`, method: 'GET', headers: bearer });

const scenarios: Array<[string, Request]> = [
  [`v1 private_lookup, a worked call (${busy!.call}), band and mode`, v1('private_lookup', { callsign: busy!.call, band: busy!.band, mode: 'CW' })],
  ['v1 private_lookup, a new call of the same entity, band and mode', v1('private_lookup', { callsign: 'K99999Z', band: '20m', mode: 'CW' })],
  ['v1 private_lookup, a new call, a band the entity was never confirmed on', v1('private_lookup', { callsign: 'K99999Z', band: '23cm', mode: 'CW' })],
  ['v1 logbook_check_callsign, worked', v1('logbook_check_callsign', { logbook_public_slug: slug, callsign: busy!.call, band: busy!.band })],
  ['v1 logbook_check_callsign, not worked', v1('logbook_check_callsign', { logbook_public_slug: slug, callsign: 'K99999Z' })],
  [`v1 logbook_check_grid, worked (${busy!.gridsquare})`, v1('logbook_check_grid', { logbook_public_slug: slug, grid: busy!.gridsquare })],
  ['v1 logbook_check_grid, a square nobody worked', v1('logbook_check_grid', { logbook_public_slug: slug, grid: 'RR99' })],
  ['v1 logbook_check_grid, worked, confirmed by LoTW?', v1('logbook_check_grid', { logbook_public_slug: slug, grid: busy!.gridsquare, band: busy!.band, cnfm: 'lotw' })],
  ['v1 radio, a rig reporting its frequency and mode', v1('radio', { radio: 'IC-7300', frequency: 14074000, mode: 'FT8', power: 50 })],
  ['v1 statistics', { url: `${server.url}/index.php/api/statistics/${v1Key}`, method: 'GET', headers: {} }],
  ['v1 get_wp_stats (Home)', v1('get_wp_stats', { station_id: home })],
  ['v2 lookup, callsign, detail=full', v2(`lookup?callsign=${busy!.call}&detail=full&band=${busy!.band}&mode=CW`)],
  ['v2 lookup, grid, not worked', v2('lookup?grid=RR99')],
  ['v2 lookup, grid=all', v2('lookup?grid=all')],
  ['v2 statistic, profile=qso', v2('statistic')],
  ['v2 statistic, profile=confirmations', v2('statistic?profile=confirmations')],
];

const meter = CpuMeter.available() ? new CpuMeter(server.pid, databaseName(database.url)) : null;
/** One request, its whole answer read; ms. Every scenario answers 200 or 201. */
const timed = async ({ url, method, headers, body }: Request): Promise<number> => {
  const start = process.hrtime.bigint();
  const { status } = await send(url, { method, headers, body, gzip: true });
  if (status >= 300) throw new Error(`${method} ${url}: HTTP ${status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
};
const ceiling: Request = { url: `${server.url}/api/v2/qso/${newest!.id}`, method: 'GET', headers: bearer };

console.log(`\nlogbook serve --workers 1, ${RUNS} runs per scenario; call ${busy!.call}, square ${busy!.gridsquare}\n`);
console.log('| request | p50 ms | p99 ms | ceiling p50 / p99 ms | CPU ms per request: server / database |\n|---|---|---|---|---|');
for (const [label, request] of scenarios) {
  for (let i = 0; i < 3; i++) await timed(request);
  const times: number[] = [];
  const ceilings: number[] = [];
  let serverCpu = 0;
  let databaseCpu = 0;
  for (let i = 0; i < RUNS; i++) {
    const before = meter?.sample();
    times.push(await timed(request));
    const after = meter?.sample();
    if (before && after) {
      const spent = cpuSpent(before, after);
      serverCpu += spent.server ?? 0;
      databaseCpu += spent.database;
    }
    ceilings.push(await timed(ceiling));
  }
  times.sort((a, b) => a - b);
  ceilings.sort((a, b) => a - b);
  const cpu = meter === null ? 'n/a' : `${(serverCpu / RUNS).toFixed(1)} / ${(databaseCpu / RUNS).toFixed(1)}`;
  console.log(`| ${label} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${percentile(ceilings, 50).toFixed(1)} / ${percentile(ceilings, 99).toFixed(1)} | ${cpu} |`);
}
closeConnections();
await server.stop();
await database.dispose();
