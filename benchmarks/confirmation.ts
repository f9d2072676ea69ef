/**
 * Confirmation list latency on a generated log: 1M QSOs over three station locations, 30 % of
 * them confirmed by one to five types. Built with INSERT … SELECT generate_series in a
 * throw-away database (dropped at the end unless --keep), then measured over HTTP against a
 * `logbook serve` process (needs `npm run build`), sequential requests, p50 / p99 per scenario
 * beside the cheapest QSO read's, and the CPU each request costs the server and the database
 * (benchmarks/lib/cpuMeter.ts); then page 1 after quiet spells. The EXPLAIN of the page query
 * for page 1 and the deep page is printed for docs/api-v2/confirmation.md.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/confirmation.ts [--qsos 1000000] [--runs 100] [--keep | --reuse <database>]
 */
import type pg from 'pg';
import { LIST_LATENCY_HEAD, databaseName, listLatencyRow, measureList, numberOption, scratchDatabase, secondsSince, timedGet } from './lib/scratch.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { CpuMeter } from './lib/cpuMeter.js';
import { startServe } from './lib/serveProcess.js';
import { cpus } from 'node:os';
import { createUser } from '../lib/accounts/users.js';
import { createStation } from '../lib/accounts/stations.js';
import { createToken } from '../lib/auth/tokens.js';
import { beginQsoWrite } from '../lib/qso/writeLock.js';
import { listConfirmations, type ConfirmationFilters } from '../lib/confirmations/query.js';
import { CONFIRMATION_KEYS } from '../lib/qso/confirmationTypes.js';

const QSOS = numberOption('qsos', 1_000_000);
const RUNS = numberOption('runs', 100);

const database = await scratchDatabase('confirmation');
const db = database.pool;

const seconds = secondsSince;

// --- the log --------------------------------------------------------------------------------
// A database kept by an earlier run (`--reuse`) has its user and locations: only a new token.
const { rows: [kept] } = await db.query<{ id: number; stations: number[] }>(
  `SELECT u.id, array_agg(s.id ORDER BY s.id) AS stations FROM users u JOIN stations s ON s.user_id = u.id WHERE u.username = 'bench' GROUP BY u.id`,
);
const userId = kept?.id ?? await createUser(db, { username: 'bench', callsign: 'DL1BEN' });
const stations = kept?.stations ?? [
  await createStation(db, { userId, name: 'Home', callsign: 'DL1BEN', gridsquare: 'JO62QM' }),
  await createStation(db, { userId, name: 'Portable', callsign: 'DL1BEN/P', gridsquare: 'JO63' }),
  await createStation(db, { userId, name: 'Contest', callsign: 'DL1BEN', gridsquare: 'JO62QM' }),
];
const { token } = await createToken(db, { userId, createdBy: userId, name: 'bench', scopes: ['confirmation:read', 'qso:read'], expiresAt: null });

let start = process.hrtime.bigint();
if (!kept) {
  // One QSO every 5 minutes from 2015 on (time_on is unique, so the duplicate key never trips);
  // 20,000 distinct calls; 30 % confirmed, each confirmed QSO by LoTW 70 %, eQSL 40 %, card 15 %,
  // QRZ 25 %, Clublog 35 % (at least one), received 0–400 days after the QSO; 2 % of the cards
  // received without a date.
  const client = await db.connect();
  await client.query('SELECT setseed(0.42)');
  await client.query('BEGIN');
  await beginQsoWrite(client, [userId]);
  await client.query(
    `INSERT INTO qso (station_id, call, time_on, band, mode, submode, gridsquare, operator,
                      lotw_qsl_rcvd, lotw_qslrdate, eqsl_qsl_rcvd, eqsl_qslrdate, qsl_rcvd, qslrdate,
                      qrzcom_qso_download_status, qrzcom_qso_download_date, clublog_qso_download_status, clublog_qso_download_date)
     SELECT station_id, call, time_on, band, mode, CASE WHEN mode = 'MFSK' THEN 'FT4' END, 'JO62', 'DL1BEN',
            CASE WHEN lotw THEN 'Y' ELSE 'N' END, CASE WHEN lotw THEN time_on::date + d1 END,
            CASE WHEN eqsl THEN 'Y' ELSE 'N' END, CASE WHEN eqsl THEN time_on::date + d2 END,
            CASE WHEN card THEN 'Y' ELSE 'N' END, CASE WHEN card AND r_undated >= 0.02 THEN time_on::date + d3 END,
            CASE WHEN qrz THEN 'Y' ELSE 'N' END, CASE WHEN qrz THEN time_on::date + d4 END,
            CASE WHEN clublog THEN 'Y' ELSE 'N' END, CASE WHEN clublog THEN time_on::date + d5 END
       FROM (SELECT *, confirmed AND (l OR NOT (e OR c OR z OR b)) AS lotw, confirmed AND e AS eqsl, confirmed AND c AS card,
                    confirmed AND z AS qrz, confirmed AND b AS clublog
               FROM (SELECT ($1::int[])[1 + floor(random() * 3)::int] AS station_id,
                            'K' || floor(random() * 20000)::int || 'X' AS call,
                            timestamp '2015-01-01' + g * interval '5 minutes' AS time_on,
                            (ARRAY['160m','80m','40m','30m','20m','17m','15m','12m','10m','6m','2m'])[1 + floor(random() * 11)::int] AS band,
                            (ARRAY['CW','SSB','FT8','MFSK','RTTY'])[1 + floor(random() * 5)::int] AS mode,
                            random() < 0.3 AS confirmed,
                            random() < 0.7 AS l, random() < 0.4 AS e, random() < 0.15 AS c, random() < 0.25 AS z, random() < 0.35 AS b,
                            floor(random() * 400)::int AS d1, floor(random() * 400)::int AS d2, floor(random() * 400)::int AS d3,
                            floor(random() * 400)::int AS d4, floor(random() * 400)::int AS d5, random() AS r_undated
                       FROM generate_series(1, $2::int) g) raw) flags`,
    [stations, QSOS],
  );
  await client.query('COMMIT');
  client.release();
  await db.query('VACUUM ANALYZE qso');
}
const { rows: [shape] } = await db.query<{ qsos: number; confirmed: number; rows: number }>(
  `SELECT count(*)::int AS qsos,
          count(*) FILTER (WHERE 'Y' IN (lotw_qsl_rcvd, eqsl_qsl_rcvd, qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status))::int AS confirmed,
          (count(*) FILTER (WHERE lotw_qsl_rcvd = 'Y') + count(*) FILTER (WHERE eqsl_qsl_rcvd = 'Y') + count(*) FILTER (WHERE qsl_rcvd = 'Y' AND qslrdate IS NOT NULL)
           + count(*) FILTER (WHERE qrzcom_qso_download_status = 'Y') + count(*) FILTER (WHERE clublog_qso_download_status = 'Y'))::int AS rows
     FROM qso`,
);
console.log(`${kept ? 'kept' : 'generated'} ${shape!.qsos} QSOs (${((100 * shape!.confirmed) / shape!.qsos).toFixed(1)} % confirmed, ${shape!.rows} confirmation rows) in ${seconds(start).toFixed(0)} s`);

// --- the EXPLAIN gist -----------------------------------------------------------------------
/** Runs the query listConfirmations sends, as EXPLAIN ANALYZE (benchmark only: a stand-in pool). */
async function explain(perPage: number, offset: number): Promise<string> {
  let plan = '';
  const explaining = {
    query: async ({ text, values }: { text: string; values: unknown[] }) => {
      if (!/\bpage AS \(/.test(text)) return { rows: [{ total: 0 }] };
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${text}`, values);
      plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      // The page's statement carries its total on an empty page's one row.
      return { rows: [{ total: 0, qso_id: null }] };
    },
  } as unknown as pg.Pool;
  const filters: ConfirmationFilters = {
    scope: { stationIds: stations, operator: null }, types: CONFIRMATION_KEYS, since: null, qsoSince: null, qsoUntil: null, band: null, mode: null, callsign: null,
  };
  await listConfirmations(explaining, filters, perPage, offset);
  return plan;
}
console.log('\nEXPLAIN, page 1 (per_page 100):\n' + (await explain(100, 0)));
console.log('\nEXPLAIN, page 1000 (per_page 100, offset 99,900):\n' + (await explain(100, 99_900)));

// --- latency over HTTP ----------------------------------------------------------------------
// Against `logbook serve` as `npm start` runs it (a worker per core), as benchmarks/qso-list.ts.
const server = await startServe(database.url, { workers: cpus().length });
const meter = CpuMeter.available() ? new CpuMeter(server.pid, databaseName(database.url)) : null;
console.log(`\nserved by logbook serve --workers ${cpus().length}`);
const { rows: [busy] } = await db.query<{ call: string }>('SELECT call FROM qso GROUP BY call ORDER BY count(*) DESC LIMIT 1');
const scenarios: Array<[string, string]> = [
  ['page 1 (per_page 100)', ''],
  ['page 1, per_page 1000', '?per_page=1000'],
  ['page 100 (offset 9,900)', '?page=100'],
  ['page 1000 (offset 99,900)', '?page=1000'],
  ['type=lotw', '?type=lotw'],
  ['since=2024-06-01', '?since=2024-06-01'],
  ['band=20m', '?band=20m'],
  ['mode=FT4 (submode)', '?mode=FT4'],
  [`callsign=${busy!.call}`, `?callsign=${busy!.call}`],
  ['station_id (one of three)', `?station_id=${stations[1]}`],
  ['qso_since/qso_until (one month)', '?qso_since=2020-03-01&qso_until=2020-03-31'],
];

// The ceiling: the cheapest request that reads a QSO (the token's lookup, one row by its key).
const { rows: [newest] } = await db.query<{ id: number }>('SELECT max(id) AS id FROM qso WHERE station_id = $1', [stations[0]]);
console.log(`\n${LIST_LATENCY_HEAD}`);
for (const [label, query] of scenarios) {
  const latency = await measureList(`${server.url}/api/v2/confirmation${query}`, `${server.url}/api/v2/qso/${newest!.id}`, { authorization: `Bearer ${token}` }, RUNS, 4, meter);
  console.log(listLatencyRow(label, latency));
}

// After a quiet spell (longer than the pools' idle timeout of 10 s and the server's keep-alive
// of 5 s), as a logger that asks now and then meets the server: the first request, each time.
const QUIET_SECONDS = 12;
const afterQuiet: string[] = [];
for (let round = 0; round < 3; round++) {
  await sleep(QUIET_SECONDS * 1000);
  afterQuiet.push((await timedGet(`${server.url}/api/v2/confirmation`, { authorization: `Bearer ${token}` })).ms.toFixed(1));
}
console.log(`
page 1, the first request after ${QUIET_SECONDS} s without requests (three times): ${afterQuiet.join(', ')} ms`);

await server.stop();
await database.dispose();
