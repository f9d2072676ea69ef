import t, { type Test } from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openDatabase, type Database } from '../../lib/db/database.js';
import type { PoolMode } from '../../lib/db/connectionSetup.js';
import { begin } from '../../lib/db/transaction.js';
import { createLogger, type Logger } from '../../lib/log.js';
import { testDatabase } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { mirrorsEqualTheLog } from '../helpers/mirrorScenario.js';
import { NO_PGBOUNCER_REASON, pgbouncerInstalled, startPgbouncer } from '../helpers/pgbouncer.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { slowProbes } from '../helpers/slowProbe.js';
import { adifDocument } from '../upload/helpers.js';

// Issue 47 defect 8: with pgbouncer's default configuration the server did not start
// ("unsupported startup parameter: statement_timeout"); in transaction pooling its settings
// were lost, named statements failed, an abandoned request's "backend" was pgbouncer's fake
// process id, and LISTEN could not work.

if (!pgbouncerInstalled()) {
  t.comment(`skipped: ${NO_PGBOUNCER_REASON}`);
  t.pass(`skipped: ${NO_PGBOUNCER_REASON}`);
} else {
  t.test('pgbouncer with its default configuration (session pooling)', async (t) => {
    const direct = await testDatabase(t);
    const url = await startPgbouncer(t, direct.url);
    await settingsHold(t, await openThrough(t, url, 'session', 200), 'session');
    const db = await openThrough(t, url, 'session', 30_000);
    const server = await startTestServer(t, { db });
    const op = await createOperator(db.pool);
    const created = await server.request('/api/v2/qso', { method: 'POST', token: op.token, json: { station_profile_id: op.stationId, call: 'DL1PGB', band: '20m', mode: 'CW', qso_date: '2024-01-02', time_on: '1200' } });
    t.equal(created.status, 201, created.text);
    const list = await server.request('/api/v2/qso', { token: op.token });
    t.equal(list.status, 200, list.text);
    t.equal(list.body.meta.total, 1, 'the list through pgbouncer');
  });

  t.test('pgbouncer in transaction pooling', async (t) => {
    const direct = await testDatabase(t);
    const url = await startPgbouncer(t, direct.url, { poolMode: 'transaction' });

    t.test('settings go with every transaction and stay in it', async (t) => {
      const db = await openThrough(t, url, 'transaction', 200);
      await settingsHold(t, db, 'transaction');
      // Other clients of the same backends see the server's defaults: nothing leaked.
      const plain = new pg.Client({ connectionString: url });
      await plain.connect();
      const seen = new Set<string>();
      for (let i = 0; i < 10; i++) seen.add((await plain.query<{ statement_timeout: string }>('SHOW statement_timeout')).rows[0]!.statement_timeout);
      await plain.end();
      t.same([...seen], ['0'], 'no session setting left on the backends');
    });

    t.test('the server under concurrent load', async (t) => {
      const { logger, problems } = recordingLogger();
      const db = await openThrough(t, url, 'transaction', 30_000, logger);
      const config = { import_batch_rows: 25, database: { pool_mode: 'transaction' } };
      const server = await startTestServer(t, { db, config, logger });
      await mirrorsEqualTheLog(t, server, 1, 40);
      await totalsEqualCounts(t, server);
      await importsSucceed(t, server);
      await abandonedWorkCancelled(t, await startTestServer(t, { db, config, resources: slowProbes }), direct);
      // The mirror's writers do not look at every answer: a statement that failed is logged.
      t.same(problems, [], 'no request failed, no statement went named');
    });
  });
}

/** A logger that keeps the errors (a request's 500 is logged as an unhandled error) and the names sent unnamed. */
function recordingLogger(): { logger: Logger; problems: string[] } {
  const problems: string[] = [];
  const logger: Logger = {
    info: () => undefined,
    warn: (message, fields) => message.startsWith('named statement') && problems.push(`${message} ${JSON.stringify(fields)}`),
    error: (message, fields) => problems.push(`${message} ${JSON.stringify(fields)}`),
    child: () => logger,
  };
  return { logger, problems };
}

/** The test database through pgbouncer, as `logbook serve` opens it (migrated through pgbouncer as well). */
async function openThrough(t: Test, url: string, poolMode: PoolMode, statementTimeoutMs: number, logger = createLogger({}, true)): Promise<Database> {
  const db = await openDatabase({ logger, url, poolMode, statementTimeoutMs });
  t.teardown(() => db.close());
  return db;
}

/** statement_timeout (200 ms) and no parallel workers hold on every pool, alone and inside a transaction; a transaction may lift the timeout. */
async function settingsHold(t: Test, db: Database, mode: PoolMode): Promise<void> {
  for (const [name, pool] of [['pool', db.pool], ['bulkPool', db.bulkPool], ['pagePool', db.pagePool]] as const) {
    await t.rejects(pool.query('SELECT pg_sleep(2)'), { code: '57014', message: /statement timeout/ }, `${name} (${mode}): a lone statement times out`);
    const client = await pool.connect();
    try {
      await begin(client);
      const { rows } = await client.query<{ timeout: string; workers: string }>(
        "SELECT current_setting('statement_timeout') AS timeout, current_setting('max_parallel_workers_per_gather') AS workers");
      t.same(rows[0], { timeout: '200ms', workers: '0' }, `${name} (${mode}): the settings inside a transaction`);
      await client.query('COMMIT');
      await begin(client, '', { statement_timeout: 0 });
      await client.query('SELECT pg_sleep(0.3)');
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  }
}

/** Lists' and confirmations' totals equal a fresh COUNT(*), asked many at once. */
async function totalsEqualCounts(t: Test, server: TestServer): Promise<void> {
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => i).map(async (i) => {
    const op = await createOperator(server.db.pool, { callsign: `DL${i}TOT` });
    const qsos = Array.from({ length: i + 1 }, (_, n) => ({ call: `K${n}T`, band: '40m', mode: 'SSB', qso_date: '2024-02-03', time_on: `12${String(n).padStart(2, '0')}` }));
    const created = await server.request('/api/v2/qso', { method: 'POST', token: op.token, json: { station_profile_id: op.stationId, qsos } });
    if (created.status >= 300) throw new Error(`bulk create ${created.status}: ${created.text}`);
    const [list, confirmations] = await Promise.all([
      server.request('/api/v2/qso?per_page=2', { token: op.token }),
      server.request('/api/v2/confirmation?per_page=2', { token: op.token }),
    ]);
    const count = (await server.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [op.stationId])).rows[0]!.n;
    return { statuses: [list.status, confirmations.status], total: list.body?.meta?.total, count, expected: i + 1, confirmationTotal: confirmations.body?.meta?.total };
  }));
  t.same(answers.filter((a) => a.statuses.some((s) => s !== 200)), [], 'every list answered 200');
  t.same(answers.filter((a) => a.total !== a.count || a.count !== a.expected), [], 'every list total equals COUNT(*)');
  t.same(answers.filter((a) => typeof a.confirmationTotal !== 'number'), [], 'every confirmation list has its total');
}

/** Two synchronous imports and two background jobs at once, every record stored. */
async function importsSucceed(t: Test, server: TestServer): Promise<void> {
  const op = await createOperator(server.db.pool, { callsign: 'DL1IMP' });
  const upload = (start: number, prefer?: string) => server.request(`/api/v2/qso?station_profile_id=${op.stationId}`, {
    method: 'POST', token: op.token, body: adifDocument(120, start), headers: { 'content-type': 'text/plain', ...(prefer ? { prefer } : {}) },
  });
  const answers = await Promise.all([upload(0), upload(1000), upload(2000, 'respond-async'), upload(3000, 'respond-async')]);
  t.same(answers.map((a) => a.status), [201, 201, 202, 202], 'imports accepted');
  for (const answer of answers.filter((a) => a.status === 202)) {
    const location = answer.headers.get('location')!;
    let job: { state: string; summary?: { imported: number } } = { state: 'queued' };
    for (let i = 0; i < 200 && (job.state === 'queued' || job.state === 'running'); i++) {
      await sleep(100);
      job = (await server.request(location, { token: op.token })).body.data;
    }
    t.match(job, { state: 'done', summary: { imported: 120 } }, `job ${location} done`);
  }
  const { rows } = await server.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [op.stationId]);
  t.equal(rows[0]!.n, 480, 'every record stored');
}

/** A request abandoned by its client has its statement cancelled through pgbouncer; the pools carry on. */
async function abandonedWorkCancelled(t: Test, server: TestServer, direct: Database): Promise<void> {
  const { token } = await createOperator(server.db.pool, { callsign: 'DL1ABN' });
  const running = async (tag: string) => (await direct.pool.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg_sleep(30)%' AND query LIKE $1 AND pid <> pg_backend_pid()", [`%${tag}%`])).rows;
  for (const via of ['query', 'client', 'page']) {
    const tag = `pgbabandon${via}`;
    const aborter = new AbortController();
    const request = fetch(`${server.url}/api/v2/lookup?via=${via}&tag=${tag}`, { signal: aborter.signal, headers: { authorization: `Bearer ${token}` } }).catch(() => 'aborted');
    let found = 0;
    for (let i = 0; i < 100 && found === 0; i++) {
      await sleep(20);
      found = (await running(tag)).length;
    }
    t.equal(found, 1, `${via}: the request's statement runs`);
    aborter.abort();
    t.equal(await request, 'aborted');
    for (let i = 0; i < 100 && found > 0; i++) {
      await sleep(20);
      found = (await running(tag)).length;
    }
    t.equal(found, 0, `${via}: the statement was cancelled`);
  }
  t.equal((await server.request('/api/v2/status')).status, 200);
  for (const pool of [server.services.db, server.services.bulkDb, server.services.pageDb]) t.equal((await pool.query('SELECT 1 AS one')).rows[0].one, 1);
}
