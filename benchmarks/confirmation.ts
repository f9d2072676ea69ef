/**
 * Confirmation list latency on the list benchmarks' generated logs (benchmarks/lib/generatedLog.ts:
 * 1M QSOs of the token's owner, 900k in Home, and 1M of another user interleaved; confirmed by
 * LoTW 15 %, eQSL 10 %, Clublog 8 %, QRZ 5 %, card 3 %, with received dates): some 410k
 * confirmation rows of the owner. Measured over HTTP against `logbook serve` as `npm start` runs
 * it (a worker per core; needs `npm run build`), sequential requests, p50 / p99 per scenario
 * beside a ceiling taken between them (one QSO by its id), and the CPU each request costs the
 * server and the database (benchmarks/lib/cpuMeter.ts): page 1 of all types and of each type,
 * a deep page (offset 100k), the filters; then page 1 after quiet spells. `--explain` prints the
 * EXPLAIN (ANALYZE, BUFFERS) of the page statement for page 1 and the deep page.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/confirmation.ts \
 *     [--qsos 1000000] [--runs 100] [--explain] [--keep | --reuse <database>]
 */
import type pg from 'pg';
import { loadavg, cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { LIST_LATENCY_HEAD, databaseName, listLatencyRow, measureList, numberOption, scratchDatabase, timedGet } from './lib/scratch.js';
import { CpuMeter } from './lib/cpuMeter.js';
import { startServe } from './lib/serveProcess.js';
import { generateLogs } from './lib/generatedLog.js';
import { compactQsoCounts } from '../lib/qso/counts.js';
import { listConfirmations, type ConfirmationFilters } from '../lib/confirmations/query.js';
import { CONFIRMATION_KEYS, type ConfirmationType } from '../lib/qso/confirmationTypes.js';

const QSOS = numberOption('qsos', 1_000_000);
const RUNS = numberOption('runs', 100);

const database = await scratchDatabase('qso');
const db = database.pool;
const { ownerId, home, token } = await generateLogs(db, QSOS);
await compactQsoCounts(db, 0);
const { rows: [owned] } = await db.query<{ ids: number[] }>('SELECT array_agg(id ORDER BY id) AS ids FROM stations WHERE user_id = $1', [ownerId]);
const { rows: [shape] } = await db.query<{ rows: number; undated: number }>(
  `SELECT (count(*) FILTER (WHERE lotw_qsl_rcvd = 'Y' AND lotw_qslrdate IS NOT NULL) + count(*) FILTER (WHERE eqsl_qsl_rcvd = 'Y' AND eqsl_qslrdate IS NOT NULL)
           + count(*) FILTER (WHERE qsl_rcvd = 'Y' AND qslrdate IS NOT NULL) + count(*) FILTER (WHERE qrzcom_qso_download_status = 'Y' AND qrzcom_qso_download_date IS NOT NULL)
           + count(*) FILTER (WHERE clublog_qso_download_status = 'Y' AND clublog_qso_download_date IS NOT NULL))::int AS rows,
          count(*) FILTER (WHERE qsl_rcvd = 'Y' AND qslrdate IS NULL)::int AS undated
     FROM qso WHERE station_id = ANY($1::int[])`,
  [owned!.ids],
);
console.log(`the owner's confirmation rows: ${shape!.rows} (and ${shape!.undated} cards received undated)`);

// --- the EXPLAIN of the page statement --------------------------------------------------------
/** Runs the statements listConfirmations sends, the page's as EXPLAIN (benchmark only: a stand-in pool). */
async function explain(types: readonly ConfirmationType[], perPage: number, offset: number): Promise<string> {
  let plan = '';
  const explaining = {
    query: async (statement: { text: string; values: unknown[] }) => {
      if (!/\bpage AS \(/.test(statement.text)) return db.query(statement);
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${statement.text}`, statement.values);
      plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      // The page's statement carries its total on an empty page's one row.
      return { rows: [{ total: 0, qso_id: null }] };
    },
  } as unknown as pg.Pool;
  const filters: ConfirmationFilters = {
    scope: { stationIds: owned!.ids, operator: null }, types, since: null, qsoSince: null, qsoUntil: null, band: null, mode: null, callsign: null,
  };
  await listConfirmations(explaining, filters, perPage, offset);
  return plan;
}
if (process.argv.includes('--explain')) {
  console.log('\nEXPLAIN, page 1 (per_page 100):\n' + (await explain(CONFIRMATION_KEYS, 100, 0)));
  console.log('\nEXPLAIN, page 1001 (per_page 100, offset 100,000):\n' + (await explain(CONFIRMATION_KEYS, 100, 100_000)));
  console.log('\nEXPLAIN, type=lotw, page 1001 (per_page 100, offset 100,000):\n' + (await explain(['lotw'], 100, 100_000)));
}

// --- latency over HTTP ----------------------------------------------------------------------
const server = await startServe(database.url, { workers: cpus().length });
const meter = CpuMeter.available() ? new CpuMeter(server.pid, databaseName(database.url)) : null;
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
console.log(`\nserved by logbook serve --workers ${cpus().length}`);
const { rows: [busy] } = await db.query<{ call: string }>(
  `SELECT call FROM qso WHERE station_id = $1 AND lotw_qsl_rcvd = 'Y' GROUP BY call ORDER BY count(*) DESC LIMIT 1`, [home],
);
const scenarios: Array<[string, string]> = [
  ['page 1, all types (per_page 100)', ''],
  ...CONFIRMATION_KEYS.map((type): [string, string] => [`type=${type}, page 1`, `?type=${type}`]),
  ['page 1, per_page 1000', '?per_page=1000'],
  ['page 1001 (offset 100,000), all types', '?page=1001'],
  ['type=lotw, page 1001 (offset 100,000)', '?type=lotw&page=1001'],
  ['type=eqsl, page 501 (offset 50,000)', '?type=eqsl&page=501'],
  ['since=2019-06-01', '?since=2019-06-01'],
  ['band=20m', '?band=20m'],
  ['mode=FT4 (submode)', '?mode=FT4'],
  [`callsign=${busy!.call}`, `?callsign=${busy!.call}`],
  ['station_id=Home', `?station_id=${home}`],
  ['qso_since/qso_until (one month)', '?qso_since=2017-03-01&qso_until=2017-03-31'],
  ['qso_since/qso_until (one year)', '?qso_since=2017-01-01&qso_until=2017-12-31'],
  ['band=20m, page 101 (offset 10,000)', '?band=20m&page=101'],
];

// The ceiling: the cheapest request that reads a QSO (the token's lookup, one row by its key).
const { rows: [newest] } = await db.query<{ id: number }>('SELECT max(id) AS id FROM qso WHERE station_id = $1', [home]);
const headers = { authorization: `Bearer ${token}` };
// The server's processes are new: every scenario a few times first, so that the first measured
// does not pay for their compilation of the list code.
for (const [, query] of scenarios) for (let i = 0; i < 3; i++) await timedGet(`${server.url}/api/v2/confirmation${query}`, headers);
console.log(`load before: ${load()}\n\n${LIST_LATENCY_HEAD}`);
for (const [label, query] of scenarios) {
  const latency = await measureList(`${server.url}/api/v2/confirmation${query}`, `${server.url}/api/v2/qso/${newest!.id}`, headers, RUNS, 3, meter);
  console.log(listLatencyRow(label, latency));
}
console.log(`load after: ${load()}`);

// After a quiet spell (longer than the pools' idle timeout of 10 s and the server's keep-alive
// of 5 s), as a logger that asks now and then meets the server: the first request, each time.
const QUIET_SECONDS = 12;
const afterQuiet: string[] = [];
for (let round = 0; round < 3; round++) {
  await sleep(QUIET_SECONDS * 1000);
  afterQuiet.push((await timedGet(`${server.url}/api/v2/confirmation`, headers)).ms.toFixed(1));
}
console.log(`\npage 1, the first request after ${QUIET_SECONDS} s without requests (three times): ${afterQuiet.join(', ')} ms`);

await server.stop();
await database.dispose();
