import t from 'tap';
import { testDatabase } from '../helpers/db.js';

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
