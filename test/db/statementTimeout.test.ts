import t from 'tap';
import pg from 'pg';
import { openDatabase } from '../../lib/db/database.js';
import { createLogger } from '../../lib/log.js';
import { testDatabase } from '../helpers/db.js';

t.test('statementTimeoutMs bounds every statement of both pools; a transaction may lift it', async (t) => {
  const base = await testDatabase(t);
  const db = await openDatabase({ logger: createLogger({}, true), url: base.url, migrate: false, statementTimeoutMs: 200 });
  t.teardown(() => db.close());
  for (const pool of [db.pool, db.bulkPool, db.pagePool]) {
    await t.rejects(pool.query('SELECT pg_sleep(2)'), { code: '57014', message: /statement timeout/ });
  }
  const client = await db.bulkPool.connect();
  try {
    await client.query('BEGIN; SET LOCAL statement_timeout = 0');
    await client.query('SELECT pg_sleep(0.4)');
    await client.query('COMMIT');
    t.equal((await client.query('SHOW statement_timeout')).rows[0].statement_timeout, '200ms', 'back after the transaction');
  } finally {
    client.release();
  }
});

t.test('both pools plan without parallel workers (their start costs more than a request)', async (t) => {
  const base = await testDatabase(t);
  const db = await openDatabase({ logger: createLogger({}, true), url: base.url, migrate: false });
  t.teardown(() => db.close());
  await db.pool.query('CREATE TABLE parallel_probe AS SELECT g FROM generate_series(1, 10000) g; ANALYZE parallel_probe');
  // Parallel plans made free: a connection that may use workers plans a Gather.
  const plan = async (client: Pick<pg.ClientBase, 'query'>) => {
    await client.query('BEGIN; SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0; SET LOCAL min_parallel_table_scan_size = 0');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>('EXPLAIN SELECT count(*) FROM parallel_probe');
    await client.query('COMMIT');
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  };
  const plain = new pg.Client({ connectionString: base.url });
  await plain.connect();
  // Ended here, before the test database is dropped (its teardown comes first).
  try {
    t.match(await plan(plain), /Gather/, 'a plain connection would start workers');
    for (const [name, pool] of [['pool', db.pool], ['bulkPool', db.bulkPool], ['pagePool', db.pagePool]] as const) {
      const client = await pool.connect();
      try {
        t.notMatch(await plan(client), /Gather/, `${name}: no workers`);
      } finally {
        client.release();
      }
    }
  } finally {
    await plain.end();
  }
});
