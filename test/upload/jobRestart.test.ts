import { readdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { spawnApiProcess, type ApiProcess } from '../helpers/apiProcess.js';
import { adifDocument } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function job(api: ApiProcess, token: string, location: string): Promise<{ state: string; records_done: number; error: string | null }> {
  const res = await fetch(`${api.url}${location}`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET ${location}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { state: string; records_done: number; error: string | null } }).data;
}

/**
 * A real crash, not a simulation: `logbook serve` is killed with SIGKILL while a background import
 * is half-way through its records; a new process on the same database and spool folder fails the
 * job, removes its spool, and nothing of the upload is ever stored.
 */
t.test('a server killed mid-import: the restarted server fails the job, removes the spool, nothing stored', async (t) => {
  const db = await testDatabase(t);
  const spoolDir = mkdtempSync(join(tmpdir(), 'logbook-crash-'));
  const config = { import_jobs: { spool_dir: spoolDir }, import_batch_rows: 5 };
  const op = await createOperator(db.pool, { callsign: 'DL1KIL' });
  const stored = async () => (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [op.stationId])).rows[0]!.n;

  const first = await spawnApiProcess(db.url, config);
  t.teardown(() => first.kill());
  // Holding SHARE on qso stops the job at its first batch INSERT: records read, none stored.
  const blocker = await db.pool.connect();
  await blocker.query('BEGIN');
  await blocker.query('LOCK TABLE qso IN SHARE MODE');
  try {
    const upload = await fetch(`${first.url}/api/v2/qso?station_profile_id=${op.stationId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${op.token}`, 'content-type': 'text/plain', prefer: 'respond-async' },
      body: adifDocument(300),
    });
    t.equal(upload.status, 202, 'accepted as a background job');
    const location = upload.headers.get('location')!;
    for (let i = 0; ; i++) {
      const state = await job(first, op.token, location);
      if (state.state === 'running' && state.records_done > 0) break;
      if (i > 200) throw new Error(`the job never got going: ${JSON.stringify(state)}`);
      await sleep(50);
    }
    t.equal(readdirSync(spoolDir).length, 1, 'the upload is spooled while it runs');
    await first.kill();
  } finally {
    await blocker.query('COMMIT');
    blocker.release();
  }

  const second = await spawnApiProcess(db.url, config);
  t.teardown(() => second.stop());
  const list = await fetch(`${second.url}/api/v2/import`, { headers: { authorization: `Bearer ${op.token}` } });
  const jobs = ((await list.json()) as { data: Array<{ state: string; error: string | null }> }).data;
  t.equal(jobs.length, 1);
  t.match(jobs[0], { state: 'failed', error: /interrupted by a server restart/ });
  t.same(readdirSync(spoolDir), [], 'the spool is removed at start');
  // The killed process's database session ends when PostgreSQL finds its client gone; its
  // transaction is rolled back, never committed.
  for (let i = 0; i < 100; i++) {
    const { rows } = await db.pool.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()");
    if (rows.length === 0) break;
    await sleep(100);
  }
  t.equal(await stored(), 0, 'nothing of the interrupted upload is stored');
});
