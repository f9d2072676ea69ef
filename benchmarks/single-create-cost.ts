/**
 * A single create's database cost against the floor issue 51 sets: a one-row INSERT into qso
 * (every index, the foreign key, the counting and writer triggers) against the same INSERT into
 * a bare qso-shaped table (columns, defaults, identity; only the primary key and the duplicate
 * index) and into a copy of qso with all its indexes but no trigger or foreign key, in turn,
 * timed in the database (EXPLAIN ANALYZE's execution time, which includes the AFTER triggers),
 * with each trigger's own time as EXPLAIN reports it.
 *
 *   DATABASE_URL=… npx tsx benchmarks/single-create-cost.ts [--runs 300] [--rounds 4]
 */
import { cpus, loadavg } from 'node:os';
import { createStation } from '../lib/accounts/stations.js';
import { createUser } from '../lib/accounts/users.js';
import { numberOption, percentile, scratchDatabase } from './lib/scratch.js';

const runs = numberOption('runs', 300);
const rounds = numberOption('rounds', 4);
const machine = () => `nproc ${cpus().length}, Node ${process.version}, ${new Date().toISOString()}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;
console.log(machine());

interface Plan {
  'Execution Time': number;
  'Planning Time': number;
  Triggers?: Array<{ 'Trigger Name': string; Time: number; Calls: number }>;
}

const db = await scratchDatabase('single_create');
try {
  const userId = await createUser(db.pool, { username: 'single', email: 'single@example.org', callsign: 'DL0SGL' });
  const stationId = await createStation(db.pool, { userId, name: 'Home', callsign: 'DL0SGL', gridsquare: 'JO62QM' });
  await db.pool.query('CREATE TABLE qso_bare (LIKE qso INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING GENERATED)');
  const { rows: indexes } = await db.pool.query<{ name: string; definition: string }>(
    "SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE tablename = 'qso' AND indexname IN ('qso_pkey', 'qso_dupe_key')");
  for (const { name, definition } of indexes) await db.pool.query(definition.replace(` ${name} ON public.qso `, ` bare_${name} ON public.qso_bare `));
  await db.pool.query('CREATE TABLE qso_indexed (LIKE qso INCLUDING ALL)');
  const client = await db.pool.connect();
  const plan = async (table: string): Promise<Plan> => {
    await client.query('BEGIN');
    await client.query('SELECT qso_write_begin($1::int[])', [[userId]]);
    const { rows } = await client.query<{ 'QUERY PLAN': Plan[] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) INSERT INTO ${table} (station_id, call, time_on, band, mode, operator, dxcc) VALUES ($1, 'DL1ABC', now(), '20m', 'FT8', 'DL0SGL', 230)`,
      [stationId]);
    await client.query('ROLLBACK');
    return rows[0]!['QUERY PLAN'][0]!;
  };
  const tables = ['qso', 'qso_indexed', 'qso_bare'];
  const results = new Map<string, Plan[]>(tables.map((table) => [table, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const table of [...tables.slice(round % 3), ...tables.slice(0, round % 3)]) {
        for (let i = 0; i < 20; i++) await plan(table); // plans cached in the session
        for (let i = 0; i < runs; i++) results.get(table)!.push(await plan(table));
      }
    }
  } finally {
    client.release();
  }
  const p50 = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
  const bare = p50(results.get('qso_bare')!.map((p) => p['Execution Time']));
  for (const [table, plans] of results) {
    const execution = p50(plans.map((p) => p['Execution Time']));
    console.log(`${table}: execution p50 ${execution.toFixed(3)} ms (${(execution / bare).toFixed(2)}× the bare table)`);
    const names = new Set(plans.flatMap((p) => (p.Triggers ?? []).map((t) => t['Trigger Name'])));
    for (const name of names) console.log(`  trigger ${name}: p50 ${p50(plans.map((p) => p.Triggers?.find((t) => t['Trigger Name'] === name)?.Time ?? 0)).toFixed(3)} ms`);
  }
  console.log(machine());
} finally {
  await db.dispose();
}
