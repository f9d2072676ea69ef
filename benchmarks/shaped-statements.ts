/**
 * What naming a list's statements by their shape (lib/db/shapedStatement.ts) saves: the
 * statements of a QSO list page before its COPY (the cut, the snapshot, where a deep page
 * starts, the total binding the page's values) and of a confirmation page, run on one
 * connection, sent unnamed (parsed and planned at every use, as before) and named, taking turns
 * round by round so that the machine's drift touches both alike. The unnamed run is the ceiling
 * each ratio is set against. Prints p50 / p90 / p99 per scenario, the backend's memory for the
 * statements it prepared, and this process's peak RSS. With --page-plans, also what a list
 * page's own statement (sent as a `COPY`, which is planned at every request) would cost as a
 * prepared SELECT planned for its values and with a generic plan: planning plus execution, the
 * best of five `EXPLAIN ANALYZE EXECUTE` each.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/shaped-statements.ts \
 *     --reuse <database kept by benchmarks/qso-list.ts or lookups.ts> [--confirmations <database kept by confirmation.ts>] [--rounds 60] [--page-plans]
 */
import pg from 'pg';
import { numberOption, percentile, stringOption } from './lib/scratch.js';
import { pageSql, withItsCut } from '../lib/qso/list/query.js';
import { parseListQuery } from '../lib/http/v2/resources/qso/listParams.js';
import { pageSeek } from '../lib/qso/list/seek.js';
import { countTotalBindingPage } from '../lib/qso/list/total.js';
import { beginSnapshot } from '../lib/http/v2/resources/qso/snapshot.js';
import { listConfirmations } from '../lib/confirmations/query.js';
import { CONFIRMATION_KEYS } from '../lib/qso/confirmationTypes.js';
import type { Principal } from '../lib/http/v2/principal.js';
import type { RequestContext } from '../lib/http/v2/resource.js';

/** No parallel workers, as the server's connections run (lib/db/database.ts). */
const CONNECTION_OPTIONS = '-c max_parallel_workers_per_gather=0';

const ROUNDS = numberOption('rounds', 60);
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('set DATABASE_URL');
const urlOf = (name: string) => Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();
const listsDb = stringOption('reuse');
if (listsDb === null) throw new Error('--reuse <database> names a database kept by benchmarks/qso-list.ts or benchmarks/lookups.ts');
const confirmationsDb = stringOption('confirmations');

/** A pool of one connection whose statements go unnamed: its client drops every query config's name. */
function unnamedPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 1, options: CONNECTION_OPTIONS });
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (config: unknown, ...rest: unknown[]) => unknown;
    // benchmark only: the same client, its named statements sent unnamed.
    client.query = ((config: unknown, ...rest: unknown[]) =>
      query(typeof config === 'object' && config !== null && 'text' in config ? { ...config, name: undefined } : config, ...rest)) as typeof client.query;
  });
  return pool;
}

/** One connection's worth: `run` on it `ROUNDS` times, named and unnamed in turns. */
async function measure(url: string, run: (db: pg.Pool) => Promise<void>): Promise<{ unnamed: number[]; named: number[]; preparedKb: number }> {
  const named = new pg.Pool({ connectionString: url, max: 1, options: CONNECTION_OPTIONS });
  const unnamed = unnamedPool(url);
  const times = { unnamed: [] as number[], named: [] as number[] };
  for (let round = 0; round < ROUNDS + 5; round++) {
    for (const [label, db] of [['unnamed', unnamed], ['named', named]] as const) {
      const start = process.hrtime.bigint();
      await run(db);
      // The first five: PostgreSQL's trial of custom plans, and the connections' first use.
      if (round >= 5) times[label].push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  const memory = async (db: pg.Pool) => Number((await db.query<{ bytes: string }>('SELECT sum(total_bytes) AS bytes FROM pg_backend_memory_contexts')).rows[0]!.bytes);
  const preparedKb = ((await memory(named)) - (await memory(unnamed))) / 1024;
  await named.end();
  await unnamed.end();
  return { unnamed: times.unnamed.sort((a, b) => a - b), named: times.named.sort((a, b) => a - b), preparedKb };
}

const lists = new pg.Pool({ connectionString: urlOf(listsDb), max: 1 });
const { rows: [owner] } = await lists.query<{ user_id: number; ids: number[] }>(
  `SELECT user_id, array_agg(id ORDER BY id) AS ids FROM stations
    WHERE user_id = (SELECT user_id FROM stations s JOIN qso q ON q.station_id = s.id GROUP BY user_id ORDER BY count(*) DESC LIMIT 1)
    GROUP BY user_id`,
);
await lists.end();
// benchmark only: parseListQuery reads a request's query and principal.
const principal = { userId: owner!.user_id, club: null, stationIds: owner!.ids } as unknown as Principal;

/** A list page's statements up to its COPY, in one snapshot on `db`'s connection, as answerListPage runs them. */
const listStatements = (query: string) => async (db: pg.Pool) => {
  const request = { query: Object.fromEntries(new URLSearchParams(query)), principal } as unknown as RequestContext;
  const client = await db.connect();
  try {
    const list = await withItsCut(client, parseListQuery(request));
    await beginSnapshot(client);
    await countTotalBindingPage(client, list, pageSql(list, undefined, await pageSeek(client, list)));
    await client.query('COMMIT');
  } finally {
    client.release();
  }
};

const LIST_QUERIES = [
  '', 'page=100', 'page=10000', 'band=20m', 'mode=CW', 'qsl_filter=qsl,qrz', 'callsign=K6441X', 'band=20m&page=1500',
  'qso_since=2016-01-01&qso_until=2016-12-31&page=2000', 'format=adif', 'format=adif&mode=CW', 'format=adif&band=SAT',
  'format=adif&qso_since=2016-03-01&qso_until=2016-03-31', 'format=adif&band=20m&mode=CW', 'format=adif&page=500',
];
const scenarios: Array<[label: string, url: string, run: (db: pg.Pool) => Promise<void>]> =
  LIST_QUERIES.map((query) => [`GET /qso?${query}`, urlOf(listsDb), listStatements(query)]);

if (confirmationsDb !== null) {
  const db = new pg.Pool({ connectionString: urlOf(confirmationsDb), max: 1 });
  const { rows } = await db.query<{ id: number }>('SELECT id FROM stations ORDER BY id LIMIT 3');
  await db.end();
  const stationIds = rows.map((row) => row.id);
  for (const [query, band, offset] of [['page 1', null, 0], ['band=20m', '20m', 0], ['page 100', null, 9_900]] as const) {
    scenarios.push([`GET /confirmation ${query}`, urlOf(confirmationsDb), async (pool) => {
      const filters = { scope: { stationIds, operator: null }, types: CONFIRMATION_KEYS, since: null, qsoSince: null, qsoUntil: null, band, mode: null, callsign: null };
      await listConfirmations(pool, filters, 100, offset);
    }]);
  }
}

console.log(`${ROUNDS} rounds, named and unnamed in turns, one connection each; ms per request's statements\n`);
console.log('| scenario | unnamed p50 / p90 / p99 | named p50 / p90 / p99 | named p50 / unnamed p50 | prepared, kB of the backend |');
console.log('|---|---|---|---|---|');
const ms = (sorted: number[]) => [50, 90, 99].map((p) => percentile(sorted, p).toFixed(2)).join(' / ');
for (const [label, url, run] of scenarios) {
  const { unnamed, named, preparedKb } = await measure(url, run);
  console.log(`| ${label} | ${ms(unnamed)} | ${ms(named)} | ${(percentile(named, 50) / percentile(unnamed, 50)).toFixed(2)} | ${preparedKb.toFixed(0)} |`);
}
console.log(`\npeak RSS of this process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

/** A page's own statement, custom against generic plan: ms of planning and execution, the best of five. */
async function pagePlans(queries: readonly string[]): Promise<void> {
  const pool = new pg.Pool({ connectionString: urlOf(listsDb!), max: 1, options: CONNECTION_OPTIONS });
  const client = await pool.connect();
  console.log('\n| page statement of | custom plan ms | generic plan ms | generic / custom |\n|---|---|---|---|');
  const literal = (value: unknown) => `'${Array.isArray(value) ? `{${value.join(',')}}` : String(value).replaceAll("'", "''")}'`;
  for (const [index, query] of queries.entries()) {
    const request = { query: Object.fromEntries(new URLSearchParams(query)), principal } as unknown as RequestContext;
    const list = await withItsCut(client, parseListQuery(request));
    const { text, values } = pageSql(list, undefined, await pageSeek(client, list));
    await client.query(`PREPARE page_${index} AS ${text}`);
    const best: number[] = [];
    for (const mode of ['force_custom_plan', 'force_generic_plan']) {
      await client.query(`SET plan_cache_mode = ${mode}`);
      let fastest = Infinity;
      for (let run = 0; run < 5; run++) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) EXECUTE page_${index}(${values.map(literal).join(', ')})`);
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        const ms = (label: string) => Number(new RegExp(`${label} Time: ([\\d.]+)`).exec(plan)?.[1] ?? 0);
        fastest = Math.min(fastest, ms('Planning') + ms('Execution'));
      }
      best.push(fastest);
    }
    console.log(`| GET /qso?${query} | ${best[0]!.toFixed(2)} | ${best[1]!.toFixed(2)} | ${(best[1]! / best[0]!).toFixed(2)} |`);
  }
  client.release();
  await pool.end();
}

if (process.argv.includes('--page-plans')) await pagePlans(LIST_QUERIES);
