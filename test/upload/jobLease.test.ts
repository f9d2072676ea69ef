import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator, type Operator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { spawnApiProcess, type ApiProcess } from '../helpers/apiProcess.js';
import { adifDocument } from './helpers.js';
import type pg from 'pg';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A job row as another process (of `host`) left it, its lease last renewed `silentSeconds` ago. */
async function foreignJob(db: pg.Pool, op: Operator, host: string, silentSeconds: number): Promise<number> {
  const { rows: [job] } = await db.query<{ id: number }>(
    `INSERT INTO import_jobs (user_id, station_id, state, runner_host, runner_pid, runner_instance, spool_path, bytes_total, started_at, heartbeat_at, spool_bytes)
     VALUES ($1, $2, 'running', $3, 4242, 'elsewhere', '/nonexistent/job.spool', 100, now(), now() - make_interval(secs => $4), 100) RETURNING id::int AS id`,
    [op.userId, op.stationId, host, silentSeconds],
  );
  return job!.id;
}

t.test('leases: a job of a process gone on another host is failed; DELETE tells what it can do', async (t) => {
  const spoolDir = mkdtempSync(join(tmpdir(), 'logbook-lease-'));
  const server = await startTestServer(t, { config: { import_jobs: { spool_dir: spoolDir, max_active_per_owner: 1, lease_seconds: 30 } } });
  const db = server.db.pool;

  t.test("an expired lease: failed by this process, and the owner's next upload is accepted", async (t) => {
    const op = await createOperator(db, { callsign: 'DL1LSE' });
    const stale = await foreignJob(db, op, 'recreated-container', 3600);
    const res = await server.request(`/api/v2/qso?station_profile_id=${op.stationId}&async=true`, {
      method: 'POST', token: op.token, body: adifDocument(2), headers: { 'content-type': 'text/plain' },
    });
    t.equal(res.status, 202, res.text);
    const old = await server.request(`/api/v2/import/${stale}`, { token: op.token });
    t.match(old.body.data, { state: 'failed', error: /stopped renewing the job/ });
    const { rows } = await db.query<{ spool_bytes: number }>('SELECT spool_bytes::int FROM import_jobs WHERE id = $1', [stale]);
    t.same(rows, [{ spool_bytes: 0 }], 'its spool counts no more');
  });

  t.test('DELETE: 409 for a job whose process has gone quiet, 409 (ended) once its lease expired', async (t) => {
    const op = await createOperator(db, { callsign: 'DL2LSE' });
    const quiet = await foreignJob(db, op, 'quiet-host', 12);
    const res = await server.request(`/api/v2/import/${quiet}`, { method: 'DELETE', token: op.token });
    t.equal(res.status, 409, res.text);
    t.match(res.body.error, { code: 'conflict', message: /cannot be stopped now.*has not answered for 1\d seconds.*fails within 1\d seconds/, details: { reason: 'runner_unresponsive', cancel_requested: true } });
    await db.query("UPDATE import_jobs SET heartbeat_at = now() - interval '1 hour' WHERE id = $1", [quiet]);
    const gone = await server.request(`/api/v2/import/${quiet}`, { method: 'DELETE', token: op.token });
    t.equal(gone.status, 409, gone.text);
    t.match(gone.body.error, { message: /has already ended \(failed\): its server stopped renewing/, details: { state: 'failed' } });
  });
});

async function job(api: ApiProcess, token: string, id: number): Promise<{ state: string; error: string | null; summary: { imported: number } | null }> {
  const res = await fetch(`${api.url}/api/v2/import/${id}`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { data: { state: string; error: string | null; summary: { imported: number } | null } }).data;
}

/**
 * A real crash at the worst moment: the import's COMMIT is held (a deferred trigger waits on an
 * advisory lock the test holds), the server is killed with SIGKILL, then the COMMIT goes through.
 * The job's end was recorded in that same transaction: a new server reports it done, with the
 * QSOs it stored, never "failed … nothing was stored".
 */
t.test('a job committed as its server is killed reports done, with what it stored', async (t) => {
  const db = await testDatabase(t);
  const spoolDir = mkdtempSync(join(tmpdir(), 'logbook-commit-'));
  const config = { import_jobs: { spool_dir: spoolDir } };
  const op = await createOperator(db.pool, { callsign: 'DL3LSE' });
  const stored = async () => (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [op.stationId])).rows[0]!.n;
  await db.pool.query(`
    CREATE FUNCTION hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_advisory_lock_shared(4747); PERFORM pg_advisory_unlock_shared(4747); RETURN NULL; END $$;
    CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON qso DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION hold_commit();`);
  const holder = await db.pool.connect();
  await holder.query('SELECT pg_advisory_lock(4747)');

  const first = await spawnApiProcess(db.url, config);
  t.teardown(() => first.kill());
  let id: number;
  try {
    const upload = await fetch(`${first.url}/api/v2/qso?station_profile_id=${op.stationId}&async=true`, {
      method: 'POST', headers: { authorization: `Bearer ${op.token}`, 'content-type': 'text/plain' }, body: adifDocument(20),
    });
    t.equal(upload.status, 202, 'accepted as a background job');
    id = ((await upload.json()) as { data: { id: number } }).data.id;
    for (let i = 0; ; i++) {
      const { rows } = await db.pool.query("SELECT 1 FROM pg_stat_activity WHERE query = 'COMMIT' AND wait_event = 'advisory'");
      if (rows.length) break;
      if (i > 300) throw new Error('the import never reached its COMMIT');
      await sleep(50);
    }
    await first.kill();
  } finally {
    await holder.query('SELECT pg_advisory_unlock(4747)');
    holder.release();
  }
  // The killed process's session finishes its COMMIT, then finds its client gone.
  for (let i = 0; i < 100; i++) {
    const { rows } = await db.pool.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()");
    if (rows.length === 0) break;
    await sleep(100);
  }
  t.equal(await stored(), 20, 'the QSOs were committed');

  const second = await spawnApiProcess(db.url, config);
  t.teardown(() => second.stop());
  t.match(await job(second, op.token, id), { state: 'done', error: null, summary: { imported: 20 } });
});
