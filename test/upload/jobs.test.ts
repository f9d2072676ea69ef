import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { adifDocument, formBody } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the job until `done(job)` holds (or 20 s pass). */
async function waitForJob(server: TestServer, token: string, location: string, done: (job: { state: string; records_done: number }) => boolean) {
  for (let i = 0; i < 200; i++) {
    const res = await server.request(location, { token });
    if (res.status === 200 && done(res.body.data)) return res.body.data;
    await sleep(100);
  }
  throw new Error(`job at ${location} never reached the expected state`);
}

t.test('import jobs: Prefer: respond-async, progress, list, cancel, bounds', async (t) => {
  const spoolDir = mkdtempSync(join(tmpdir(), 'logbook-jobs-'));
  const server = await startTestServer(t, {
    config: { import_jobs: { spool_dir: spoolDir, max_active_per_owner: 1 }, import_batch_rows: 5, max_body_bytes: 256 * 1024 },
  });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1JOB' });
  const reader = await createOperator(db, { callsign: 'DL2JOB', scopes: ['qso:read'] });
  const count = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [op.stationId])).rows[0]!.n;
  const upload = (query: string, body: string | Buffer, headers: Record<string, string>, token = op.token) =>
    server.request(`/api/v2/qso${query}`, { method: 'POST', token, body, headers });

  t.test('a raw upload with Prefer: respond-async: 202, Location, then done with the summary', async (t) => {
    const res = await upload(`?station_profile_id=${op.stationId}`, gzipSync(adifDocument(30)), {
      'content-type': 'text/plain', 'content-encoding': 'gzip', prefer: 'respond-async, wait=0',
    });
    t.equal(res.status, 202, res.text);
    const location = res.headers.get('location')!;
    t.match(location, /^\/api\/v2\/import\/\d+$/);
    t.equal(res.headers.get('preference-applied'), 'respond-async');
    t.match(res.body.data, { id: Number(location.split('/').pop()), state: 'queued', station_id: op.stationId, bytes_total: adifDocument(30).length });
    const job = await waitForJob(server, op.token, location, (j) => j.state === 'done');
    t.match(job, { state: 'done', records_done: 30, bytes_done: adifDocument(30).length, eta_seconds: null, error: null });
    t.match(job.summary, { parsed: 30, imported: 30, skipped: 0, failed: 0 });
    t.equal(await count(), 30);
    t.same(readdirSync(spoolDir), [], 'the spool is removed');
    const list = await server.request('/api/v2/import', { token: op.token });
    t.equal(list.status, 200);
    t.equal(list.body.data[0].id, job.id);
    t.equal((await server.request(location, { token: reader.token })).status, 404, "another owner's job is not found");
  });

  t.test('a form with async=true; a job that imports nothing ends failed with the summary', async (t) => {
    const form = formBody([['station_profile_id', String(op.stationId)], ['async', 'true']], { filename: 'more.adi', content: adifDocument(3, 100) });
    const res = await upload('', form.body, { 'content-type': form.contentType });
    t.equal(res.status, 202, res.text);
    t.equal(res.body.data.file_name, 'more.adi');
    const job = await waitForJob(server, op.token, res.headers.get('location')!, (j) => j.state === 'done');
    t.match(job.summary, { imported: 3 });
    const empty = await upload(`?station_profile_id=${op.stationId}&async=true`, 'an empty log <EOH>\n', { 'content-type': 'text/plain' });
    t.equal(empty.status, 202);
    const failed = await waitForJob(server, op.token, empty.headers.get('location')!, (j) => j.state !== 'queued' && j.state !== 'running');
    t.match(failed, { state: 'failed', error: 'No QSO records found', summary: { parsed: 0 } });
  });

  t.test('the duplicate policy travels with the job', async (t) => {
    const bad = await upload(`?station_profile_id=${op.stationId}&async=true&on_duplicate=overwrite`, adifDocument(1), { 'content-type': 'text/plain' });
    t.equal(bad.status, 400, 'checked before anything is spooled');
    t.equal(bad.body.error.details.field, 'on_duplicate');
    const withComment = adifDocument(1).replace('<EOR>', '<COMMENT:5>hello<EOR>');
    const res = await upload(`?station_profile_id=${op.stationId}&async=true&on_duplicate=merge`, withComment, { 'content-type': 'text/plain' });
    t.equal(res.status, 202, res.text);
    const job = await waitForJob(server, op.token, res.headers.get('location')!, (j) => j.state === 'done');
    t.match(job.summary, { parsed: 1, imported: 0, confirmed: 1 });
    const { rows } = await db.query("SELECT comment FROM qso WHERE station_id = $1 AND call = 'K0A'", [op.stationId]);
    t.same(rows, [{ comment: 'hello' }], 'merged into the stored QSO');
  });

  t.test('scopes: qso:write to create and cancel, qso:read to read', async (t) => {
    const denied = await upload(`?station_profile_id=${reader.stationId}&async=true`, adifDocument(1), { 'content-type': 'text/plain' }, reader.token);
    t.equal(denied.status, 403);
    t.equal(denied.body.error.details.required_scope, 'qso:write');
    t.equal((await server.request('/api/v2/import', { token: reader.token })).status, 200);
    const cancel = await server.request('/api/v2/import/1', { method: 'DELETE', token: reader.token });
    t.equal(cancel.status, 403);
    t.equal(cancel.body.error.details.required_scope, 'qso:write');
    const noRead = await createOperator(db, { scopes: ['qso:write'] });
    t.equal((await server.request('/api/v2/import', { token: noRead.token })).status, 403);
    t.equal((await server.request('/api/v2/import', { method: 'POST', token: op.token })).status, 405);
  });

  t.test('cancelled mid-way: rolled back, nothing stored; the owner bound holds meanwhile', async (t) => {
    const before = await count();
    // Holding SHARE on qso stops the job's first batch INSERT: the job has read records, stored none yet.
    const blocker = await db.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE qso IN SHARE MODE');
    const res = await upload(`?station_profile_id=${op.stationId}`, adifDocument(400, 1000), { 'content-type': 'text/plain', prefer: 'respond-async' });
    t.equal(res.status, 202, res.text);
    const location = res.headers.get('location')!;
    const running = await waitForJob(server, op.token, location, (j) => j.state === 'running' && j.records_done > 0);
    t.ok(running.records_done > 0 && running.records_done <= 400, `mid-way: ${running.records_done} records read`);

    const busy = await upload(`?station_profile_id=${op.stationId}&async=true`, adifDocument(1, 5000), { 'content-type': 'text/plain' });
    t.equal(busy.status, 409, 'max_active_per_owner 1');
    t.match(busy.body.error.details, { active: 1, max: 1 });
    t.equal(readdirSync(spoolDir).length, 1, 'the refused upload spooled nothing');

    const cancel = await server.request(location, { method: 'DELETE', token: op.token });
    t.equal(cancel.status, 202, cancel.text);
    t.equal(cancel.body.data.cancel_requested, true);
    await sleep(1200); // the runner sees the request on its next check
    await blocker.query('COMMIT');
    blocker.release();
    const job = await waitForJob(server, op.token, location, (j) => j.state !== 'running');
    t.match(job, { state: 'cancelled', error: /cancelled/ });
    t.equal(await count(), before, 'nothing of the cancelled job is stored');
    t.same(readdirSync(spoolDir), []);
    const again = await server.request(location, { method: 'DELETE', token: op.token });
    t.equal(again.status, 202, 'cancelling a cancelled job is no error');
  });

  t.test('a job recorded as ended has its spool removed already', async (t) => {
    // Watched from the database as closely as a query can follow: on the first sight of an ended
    // job its spool must be gone (it was removed after the end was recorded, and a client
    // polling fast found the file still there).
    const spools: string[] = [];
    for (let round = 0; round < 15; round++) {
      const res = await upload(`?station_profile_id=${op.stationId}&async=true`, adifDocument(2, 20_000 + round * 10), { 'content-type': 'text/plain' });
      t.equal(res.status, 202, res.text);
      const id = Number(res.headers.get('location')!.split('/').pop());
      const deadline = Date.now() + 20_000;
      for (;;) {
        const { rows } = await db.query<{ state: string }>('SELECT state FROM import_jobs WHERE id = $1', [id]);
        if (rows[0]!.state !== 'queued' && rows[0]!.state !== 'running') break;
        if (Date.now() > deadline) throw new Error(`job ${id} did not end within 20 s`);
      }
      spools.push(...readdirSync(spoolDir));
    }
    t.same(spools, [], 'no spool left behind an ended job');
  });

  t.test('cancelling a finished job is 409; unknown jobs 404', async (t) => {
    const list = await server.request('/api/v2/import', { token: op.token });
    const done = list.body.data.find((j: { state: string }) => j.state === 'done');
    const res = await server.request(`/api/v2/import/${done.id}`, { method: 'DELETE', token: op.token });
    t.equal(res.status, 409);
    t.equal((await server.request('/api/v2/import/999999', { token: op.token })).status, 404);
  });

  t.test('an upload over the limit leaves no job and no spool', async (t) => {
    const res = await upload(`?station_profile_id=${op.stationId}&async=true`, adifDocument(3000), { 'content-type': 'text/plain' });
    t.equal(res.status, 413);
    const list = await server.request('/api/v2/import', { token: op.token });
    t.notOk(list.body.data.some((j: { state: string }) => j.state === 'queued' || j.state === 'running'));
    t.same(readdirSync(spoolDir), []);
  });
});

t.test('restart recovery: a job left running by a dead process ends failed, its spool removed', async (t) => {
  const db = await testDatabase(t);
  const spoolDir = mkdtempSync(join(tmpdir(), 'logbook-jobs-'));
  const op = await createOperator(db.pool, { callsign: 'DL3JOB' });
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const spool = join(spoolDir, 'job-old.spool');
  writeFileSync(spool, adifDocument(5));
  const { rows: [job] } = await db.pool.query<{ id: number }>(
    `INSERT INTO import_jobs (user_id, station_id, state, runner_host, runner_pid, runner_instance, spool_path, bytes_total, started_at)
     VALUES ($1, $2, 'running', $3, $4, 'before-the-crash', $5, 100, now()) RETURNING id::int AS id`,
    [op.userId, op.stationId, hostname(), Number(dead.stdout), spool],
  );
  const server = await startTestServer(t, { db, config: { import_jobs: { spool_dir: spoolDir } } });
  const res = await server.request(`/api/v2/import/${job!.id}`, { token: op.token });
  t.match(res.body.data, { state: 'failed', error: /interrupted by a server restart/ });
  t.notOk(existsSync(spool));
});
