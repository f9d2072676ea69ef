/**
 * What the counting trigger costs the smallest and the largest writes: a single-row INSERT (as a
 * single create writes it) and a 25,000-row INSERT … SELECT (an import statement's batch),
 * timed in the database (EXPLAIN ANALYZE's execution time, which includes the AFTER STATEMENT
 * triggers), alternately with the definition of qso_counts_record() in force, the one before it
 * (the previous migration that defined it) and, as the ceiling, the INSERT trigger disabled.
 *
 *   DATABASE_URL=… npx tsx benchmarks/count-trigger.ts [--runs 400] [--rounds 4] [--batch 25000]
 *
 * --batch sets the large statement's rows (an import writes 25,000 a statement; deleting a
 * location or a raw COPY writes all of its rows in one).
 */
import { cpus, loadavg } from 'node:os';
import { createStation } from '../lib/accounts/stations.js';
import { createUser } from '../lib/accounts/users.js';
import { countingFunctionSql, countingMigrations } from './lib/countingFunction.js';
import { numberOption, percentile, scratchDatabase } from './lib/scratch.js';

const UNCOUNTED = 'without the counting trigger (ceiling)';

const runs = numberOption('runs', 400);
const rounds = numberOption('rounds', 4);
const batchRows = numberOption('batch', 25_000);
const machine = () => `nproc ${cpus().length}, Node ${process.version}, ${new Date().toISOString()}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;
console.log(machine());
const [previous, current] = countingMigrations().slice(-2) as [string, string];
const VERSIONS = [current, previous, UNCOUNTED];

const db = await scratchDatabase('count_trigger');
try {
  const userId = await createUser(db.pool, { username: 'trigger', email: 'trigger@example.org', callsign: 'DL0TRG' });
  const stationId = await createStation(db.pool, { userId, name: 'Home', callsign: 'DL0TRG', gridsquare: 'JO62QM' });
  const client = await db.pool.connect();
  const executionMs = async (sql: string, values: unknown[]): Promise<number> => {
    await client.query('BEGIN');
    await client.query('SELECT qso_write_begin($1::int[])', [[userId]]);
    const { rows } = await client.query<{ 'QUERY PLAN': Array<{ 'Execution Time': number }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, values);
    await client.query('ROLLBACK');
    return rows[0]!['QUERY PLAN'][0]!['Execution Time'];
  };
  const single = `INSERT INTO qso (station_id, call, time_on, band, mode, operator) VALUES ($1, 'DL1ABC', now(), '20m', 'FT8', 'DL0TRG')`;
  // Every fifth confirmed on LoTW, received over a year (the confirmation months count those).
  const batch = `INSERT INTO qso (station_id, call, time_on, band, mode, submode, operator, lotw_qsl_rcvd, lotw_qslrdate)
                 SELECT $1, 'B' || g, timestamp '2024-01-01' + g * interval '7 minutes', (ARRAY['20m','40m','15m'])[1 + g % 3],
                        (ARRAY['FT8','SSB','CW','MFSK'])[1 + g % 4], CASE WHEN g % 4 = 3 THEN 'FT4' END, 'DL0TRG', CASE WHEN g % 5 = 0 THEN 'Y' END,
                        CASE WHEN g % 5 = 0 THEN date '2024-03-01' + g % 365 END
                   FROM generate_series(1, ${batchRows}) g`;
  const results = new Map<string, { single: number[]; batch: number[] }>(VERSIONS.map((v) => [v, { single: [], batch: [] }]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const version of round % 2 ? [...VERSIONS].reverse() : VERSIONS) {
        if (version === UNCOUNTED) await client.query('ALTER TABLE qso DISABLE TRIGGER qso_counts_insert');
        else await client.query(countingFunctionSql(version));
        const result = results.get(version)!;
        for (let i = 0; i < 20; i++) await executionMs(single, [stationId]); // plans cached in the session
        for (let i = 0; i < runs; i++) result.single.push(await executionMs(single, [stationId]));
        for (let i = 0; i < 3; i++) result.batch.push(await executionMs(batch, [stationId]));
        if (version === UNCOUNTED) await client.query('ALTER TABLE qso ENABLE TRIGGER qso_counts_insert');
      }
    }
    await client.query(countingFunctionSql(current));
  } finally {
    client.release();
  }
  const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
  const ceiling = results.get(UNCOUNTED)!;
  console.log(`\n| counting | single-row INSERT p50 / p90 / p99 ms | its p50 against the ceiling | ${batchRows}-row INSERT p50 ms (rows/s) | its rows/s against the ceiling |\n|---|---|---|---|---|`);
  for (const [version, result] of results) {
    const single = [...result.single].sort((a, b) => a - b);
    const batchMs = median(result.batch);
    console.log(`| ${version} | ${[50, 90, 99].map((p) => percentile(single, p).toFixed(3)).join(' / ')} | ${((median(ceiling.single) / percentile(single, 50)) * 100).toFixed(0)} % | ${batchMs.toFixed(1)} (${Math.round(batchRows / (batchMs / 1000))}) | ${((median(ceiling.batch) / batchMs) * 100).toFixed(0)} % |`);
  }
  console.log(`peak RSS of this process ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB (the work is the database's)`);
  console.log(machine());
} finally {
  await db.dispose();
}
