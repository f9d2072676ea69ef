import t from 'tap';
import { openDatabase } from '../../lib/db/database.js';
import { createLogger } from '../../lib/log.js';
import { testDatabase } from '../helpers/db.js';

t.test('statementTimeoutMs bounds every statement of both pools; a transaction may lift it', async (t) => {
  const base = await testDatabase(t);
  const db = await openDatabase({ logger: createLogger({}, true), url: base.url, migrate: false, statementTimeoutMs: 200 });
  t.teardown(() => db.close());
  for (const pool of [db.pool, db.bulkPool]) {
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
