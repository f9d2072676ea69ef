import t from 'tap';
import { once } from 'node:events';
import QueryStream from 'pg-query-stream';
import { testDatabase } from '../helpers/db.js';
import { QueryScope, runInQueryScope } from '../../lib/db/queryScope.js';

t.test('a checked-out connection whose backend is terminated fails its work, not the process', async (t) => {
  const db = await testDatabase(t);
  const client = await db.pool.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const uncaught: Error[] = [];
  const onUncaught = (error: Error) => void uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  t.teardown(() => void process.off('uncaughtException', onUncaught));
  // What abandon() does to a request's connections when its client goes away.
  await db.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.same(uncaught.map((error) => error.message), [], 'no error reached the process');
  await t.rejects(client.query('SELECT 1'), 'the work using the connection learns of it');
  client.release();
  t.same((await db.pool.query<{ one: number }>('SELECT 1 AS one')).rows, [{ one: 1 }], 'the pool goes on with a fresh connection');
});

t.test('abandoned cursor streams give their connections back to the pool', async (t) => {
  const db = await testDatabase(t);
  const pool = db.bulkPool;
  // As many abandoned lists as the bulk pool has connections, each mid-query in a cursor stream.
  const scopes = Array.from({ length: pool.options.max }, () => new QueryScope());
  const started = await Promise.all(scopes.map((scope) => runInQueryScope(scope, async () => {
    const client = await pool.connect();
    const rows = client.query(new QueryStream('SELECT pg_sleep(30)', []));
    // What a list handler does; on a terminated connection this never settles (the stream's destroy waits forever).
    once(rows, 'readable').then(() => client.release(), (error: Error) => client.release(error));
    return client;
  })));
  t.equal(started.length, pool.options.max);
  await new Promise((resolve) => setTimeout(resolve, 200));
  await Promise.all(scopes.map((scope) => pool.abandon(scope)));
  const next = await Promise.race([
    pool.connect().then((client) => (client.release(), 'connected')),
    new Promise((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5000)),
  ]);
  t.equal(next, 'connected', 'a new request gets a connection');
  t.equal(pool.totalCount <= pool.options.max, true);
});

t.test('a connection its abandoned request releases while being terminated is never lent again', async (t) => {
  const db = await testDatabase(t);
  const pool = db.bulkPool;
  // Every connection of the pool but one taken, so the next check-out is the one just released.
  const others = await Promise.all(Array.from({ length: pool.options.max - 1 }, () => pool.connect()));
  t.teardown(() => others.forEach((client) => client.release()));
  const idleFailures: string[] = [];
  pool.on('error', (error, client) => void (pool.wasAbandoned(client) || idleFailures.push(error.message)));
  for (let round = 0; round < 5; round++) {
    const scope = new QueryScope();
    const client = await runInQueryScope(scope, () => pool.connect());
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // The client goes away just as its request finishes: abandon() has its connection in hand
    // and is terminating the backend when the work hands the connection back.
    const abandoning = pool.abandon(scope);
    client.release();
    const bystander = await pool.connect();
    try {
      const { rows: mine } = await bystander.query<{ pid: number; slept: string }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.2)::text AS slept');
      t.not(mine[0]!.pid, rows[0]!.pid, `round ${round}: the next request gets another backend`);
    } finally {
      bystander.release();
      await abandoning;
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.same(idleFailures, [], 'no connection the pool kept was terminated');
});
