import t from 'tap';
import pg from 'pg';
import { MAX_NAMED_TEXT, shapedStatement } from '../../lib/db/shapedStatement.js';
import { testDatabase } from '../helpers/db.js';
import { endPool } from '../../lib/db/poolEnd.js';

/** A statement of shape k, 1,024 characters long: its text differs by k, its value is bound. */
const shape = (k: number) => `SELECT $1::int + ${k} AS n`.padEnd(1024, ' ');
/** How many such shapes a connection names. */
const MAX_NAMED = MAX_NAMED_TEXT / 1024;

t.test('a shape is prepared once per connection, which names shapes up to MAX_NAMED_TEXT characters', async (t) => {
  const db = await testDatabase(t);
  // One connection: pg_prepared_statements is the backend's own.
  const connection = new pg.Pool({ ...db.pool.options, max: 1 });
  try {
    const prepared = async () => (await connection.query<{ name: string; runs: number }>(
      'SELECT name, (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements')).rows;

    for (let i = 0; i < 7; i++) t.equal((await connection.query<{ n: number }>(shapedStatement(connection, shape(0), [i]))).rows[0]!.n, i);
    const first = shapedStatement(connection, shape(0), [0]).name;
    t.same(await prepared(), [{ name: first, runs: 7 }], 'one statement, run seven times');
    t.equal(shapedStatement(db.pool, shape(0), [0]).name, first, 'the same text has the same name wherever it is built');

    for (let k = 1; k < MAX_NAMED + 20; k++) {
      t.equal((await connection.query<{ n: number }>(shapedStatement(connection, shape(k), [k]))).rows[0]!.n, 2 * k, `shape ${k} answers`);
    }
    t.equal((await prepared()).length, MAX_NAMED, `no more than ${MAX_NAMED} statements prepared`);
    t.equal(shapedStatement(connection, shape(0), [0]).name, first, 'a shape named before stays named');
    t.equal(shapedStatement(connection, shape(MAX_NAMED + 5), [0]).name, undefined, 'a shape beyond the budget goes unnamed');
    t.type(shapedStatement(db.pool, shape(MAX_NAMED + 5), [0]).name, 'string', 'another pool has a budget of its own');
  } finally {
    await endPool(connection);
  }
});
