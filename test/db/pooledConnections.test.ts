import t, { type Test } from 'tap';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONNECTION_WARM_UP, openDatabase, type Database, type OpenOptions } from '../../lib/db/database.js';
import { createLogger } from '../../lib/log.js';
import { testDatabase } from '../helpers/db.js';

/** The backends of connections checked out together (so each is a connection of its own), released again. */
async function openConnections(pool: pg.Pool, count: number): Promise<number[]> {
  const clients = await Promise.all(Array.from({ length: count }, () => pool.connect()));
  const pids = clients.map((client) => (client as pg.PoolClient & { processID: number }).processID);
  for (const client of clients) client.release();
  return pids;
}

/**
 * The database's pools, opened with `options`, and a connection of its own that watches their
 * backends. The test ends the observer itself, before the test database is dropped (that
 * teardown comes first and would terminate it under a client nobody listens to).
 */
async function poolsAndObserver(t: Test, options: Partial<OpenOptions> = {}): Promise<{ db: Database; observer: pg.Client }> {
  const base = await testDatabase(t);
  const db = await openDatabase({ logger: createLogger({}, true), url: base.url, migrate: false, ...options });
  t.teardown(() => db.close());
  const observer = new pg.Client({ connectionString: base.url });
  await observer.connect();
  return { db, observer };
}

t.test("every pooled connection's first statement is the malloc warm-up", async (t) => {
  const { db, observer } = await poolsAndObserver(t);
  try {
    for (const [name, pool] of [['pool', db.pool], ['bulkPool', db.bulkPool], ['pagePool', db.pagePool]] as const) {
      // Checked out and released without a statement of their own: the last statement each
      // backend ran is the warm-up, once it has run.
      const pids = await openConnections(pool, Math.min(2, pool.options.max ?? 2));
      let rows: Array<{ state: string; query: string }> = [];
      for (let attempt = 0; attempt < 50; attempt++) {
        ({ rows } = await observer.query('SELECT state, query FROM pg_stat_activity WHERE pid = ANY($1) ORDER BY pid', [pids]));
        // A new backend is idle with no query before the warm-up reaches it: wait for a statement.
        if (rows.length === pids.length && rows.every((row) => row.state === 'idle' && row.query !== '')) break;
        await sleep(20);
      }
      // The warm-up goes in one round trip after the session's settings (SET …; SET …; warm-up).
      t.same(rows.map((row) => ({ state: row.state, query: row.query.slice(row.query.lastIndexOf('; ') + 2) })), pids.map(() => ({ state: 'idle', query: CONNECTION_WARM_UP })), `${name}: each connection ran the warm-up`);
    }
  } finally {
    await observer.end();
  }
});

t.test('without the warm-up (the command line), a connection runs only its settings first', async (t) => {
  const { db, observer } = await poolsAndObserver(t, { warmUp: false, statementTimeoutMs: 5000 });
  try {
    const [pid] = await openConnections(db.pool, 1);
    let rows: Array<{ state: string; query: string }> = [];
    for (let attempt = 0; attempt < 50; attempt++) {
      ({ rows } = await observer.query('SELECT state, query FROM pg_stat_activity WHERE pid = $1', [pid]));
      if (rows.length === 1 && rows[0]!.state === 'idle' && rows[0]!.query !== '') break;
      await sleep(20);
    }
    t.same(rows, [{ state: 'idle', query: 'SET max_parallel_workers_per_gather = 0; SET statement_timeout = 5000' }]);
    const { rows: [setting] } = await db.pool.query<{ statement_timeout: string }>('SHOW statement_timeout');
    t.equal(setting!.statement_timeout, '5s', 'the settings hold all the same');
  } finally {
    await observer.end();
  }
});

t.test('a pool keeps two connections open however long it stays idle, and closes the others', async (t) => {
  const { db, observer } = await poolsAndObserver(t, { idleTimeoutMs: 100 });
  try {
    for (const [name, pool] of [['pool', db.pool], ['bulkPool', db.bulkPool]] as const) {
      const pids = await openConnections(pool, 4);
      t.equal(new Set(pids).size, 4, `${name}: four connections at once`);
      // Well past the idle timeout; a closed connection's backend exits a moment after.
      await sleep(500);
      let rows: Array<{ pid: number }> = [];
      for (let attempt = 0; attempt < 50; attempt++) {
        ({ rows } = await observer.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE pid = ANY($1)', [pids]));
        if (rows.length <= 2) break;
        await sleep(50);
      }
      t.equal(pool.totalCount, 2, `${name}: two left after the idle timeout`);
      t.equal(rows.length, 2, `${name}: the others' backends are gone`);
      const again = await openConnections(pool, 2);
      t.same(again.sort(), rows.map((row) => row.pid).sort(), `${name}: the next requests use the backends kept`);
    }
  } finally {
    await observer.end();
  }
});
