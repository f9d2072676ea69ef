/**
 * What the counting trigger costs the smallest and the largest writes: a single-row INSERT (as a
 * single create writes it), a single-row UPDATE of the band (a PATCH: two deltas), an 8-row
 * INSERT (a batch of small inserts, InsertBatcher) and a 25,000-row INSERT … SELECT (an import
 * statement's batch), timed in the database (EXPLAIN ANALYZE's execution time, which includes
 * the AFTER STATEMENT triggers), alternately with the generated qso_counts_record() in force
 * (lib/db/countTables.ts: a statement of one delta appends it ungrouped), the same body
 * grouping every statement's deltas (as before UNGROUPED_MAX_DELTAS), and, as the ceiling, the
 * INSERT and UPDATE triggers disabled.
 *
 *   DATABASE_URL=… npx tsx benchmarks/count-trigger.ts [--runs 400] [--rounds 4] [--batch 25000]
 *
 * --batch sets the large statement's rows (an import writes 25,000 a statement; deleting a
 * location or a raw COPY writes all of its rows in one).
 */
import { cpus, loadavg } from 'node:os';
import { createStation } from '../lib/accounts/stations.js';
import { createUser } from '../lib/accounts/users.js';
import { countTriggerBody, countTriggerFunctionSql, COUNT_TABLES, UNGROUPED_MAX_DELTAS } from '../lib/db/countTables.js';
import { numberOption, percentile, scratchDatabase } from './lib/scratch.js';

const IN_FORCE = `generated, ungrouped up to ${UNGROUPED_MAX_DELTAS} deltas (in force)`;
const GROUPED = 'generated, every statement grouped';
const UNCOUNTED = 'without the counting trigger (ceiling)';
const BODIES = new Map([[IN_FORCE, countTriggerBody()], [GROUPED, countTriggerBody(COUNT_TABLES, 0)]]);

const runs = numberOption('runs', 400);
const rounds = numberOption('rounds', 4);
const batchRows = numberOption('batch', 25_000);
const SMALL_BATCH_ROWS = 8;
const machine = () => `nproc ${cpus().length}, Node ${process.version}, ${new Date().toISOString()}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;
console.log(machine());
const VERSIONS = [IN_FORCE, GROUPED, UNCOUNTED];

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
  const rowsOf = (count: number) => `INSERT INTO qso (station_id, call, time_on, band, mode, submode, operator, lotw_qsl_rcvd, lotw_qslrdate)
                 SELECT $1, 'B' || g, timestamp '2024-01-01' + g * interval '7 minutes', (ARRAY['20m','40m','15m'])[1 + g % 3],
                        (ARRAY['FT8','SSB','CW','MFSK'])[1 + g % 4], CASE WHEN g % 4 = 3 THEN 'FT4' END, 'DL0TRG', CASE WHEN g % 5 = 0 THEN 'Y' END,
                        CASE WHEN g % 5 = 0 THEN date '2024-03-01' + g % 365 END
                   FROM generate_series(1, ${count}) g`;
  const small = rowsOf(SMALL_BATCH_ROWS);
  // A stored QSO whose band each run changes, in a transaction rolled back like the others'.
  await client.query('BEGIN');
  await client.query('SELECT qso_write_begin($1::int[])', [[userId]]);
  const { rows: [stored] } = await client.query<{ id: number }>(
    `INSERT INTO qso (station_id, call, time_on, band, mode, operator) VALUES ($1, 'DL1PAT', now(), '20m', 'FT8', 'DL0TRG') RETURNING id`, [stationId]);
  await client.query('COMMIT');
  const patch = `UPDATE qso SET band = CASE band WHEN '20m' THEN '40m' ELSE '20m' END WHERE id = $1`;
  const batch = rowsOf(batchRows);
  const results = new Map<string, { single: number[]; patch: number[]; small: number[]; batch: number[] }>(
    VERSIONS.map((v) => [v, { single: [], patch: [], small: [], batch: [] }]));
  const countingTriggers = (action: 'ENABLE' | 'DISABLE') => `ALTER TABLE qso ${action} TRIGGER qso_counts_insert, ${action} TRIGGER qso_counts_update`;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const version of round % 2 ? [...VERSIONS].reverse() : VERSIONS) {
        if (version === UNCOUNTED) await client.query(countingTriggers('DISABLE'));
        else await client.query(countTriggerFunctionSql(BODIES.get(version)!));
        const result = results.get(version)!;
        for (let i = 0; i < 20; i++) await executionMs(single, [stationId]); // plans cached in the session
        for (let i = 0; i < runs; i++) result.single.push(await executionMs(single, [stationId]));
        for (let i = 0; i < runs; i++) result.patch.push(await executionMs(patch, [stored!.id]));
        for (let i = 0; i < runs; i++) result.small.push(await executionMs(small, [stationId]));
        for (let i = 0; i < 3; i++) result.batch.push(await executionMs(batch, [stationId]));
        if (version === UNCOUNTED) await client.query(countingTriggers('ENABLE'));
      }
    }
    await client.query(countTriggerFunctionSql(BODIES.get(IN_FORCE)!));
  } finally {
    client.release();
  }
  const p50 = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
  const ceiling = results.get(UNCOUNTED)!;
  console.log(`\n| counting | single-row INSERT p50 / p90 / p99 ms | against the ceiling | single-row UPDATE of the band p50 ms | against the ceiling | ${SMALL_BATCH_ROWS}-row INSERT p50 ms | against the ceiling | ${batchRows}-row INSERT p50 ms (rows/s) | against the ceiling |\n|---|---|---|---|---|---|---|---|---|`);
  for (const [version, result] of results) {
    const single = [...result.single].sort((a, b) => a - b);
    const batchMs = p50(result.batch);
    console.log(`| ${version} | ${[50, 90, 99].map((p) => percentile(single, p).toFixed(3)).join(' / ')} | ${((p50(ceiling.single) / percentile(single, 50)) * 100).toFixed(0)} % `
      + `| ${p50(result.patch).toFixed(3)} | ${((p50(ceiling.patch) / p50(result.patch)) * 100).toFixed(0)} % `
      + `| ${p50(result.small).toFixed(3)} | ${((p50(ceiling.small) / p50(result.small)) * 100).toFixed(0)} % `
      + `| ${batchMs.toFixed(1)} (${Math.round(batchRows / (batchMs / 1000))}) | ${((p50(ceiling.batch) / batchMs) * 100).toFixed(0)} % |`);
  }
  console.log(`peak RSS of this process ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB (the work is the database's)`);
  console.log(machine());
} finally {
  await db.dispose();
}
