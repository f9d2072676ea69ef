import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOperator, type Operator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { adifDocument } from './helpers.js';
import { databaseKey } from '../../lib/import/jobs/jobStore.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const QUOTA = 1024 * 1024;

/** Bytes in the spool folder now (files vanish while listed: those count 0). */
function spooled(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    try {
      total += statSync(join(dir, name)).size;
    } catch {
      // removed meanwhile
    }
  }
  return total;
}

async function jobState(server: TestServer, op: Operator, id: number): Promise<string> {
  return (await server.request(`/api/v2/import/${id}`, { token: op.token })).body.data.state;
}

t.test('max_spool_bytes: at admission and while writing, for all live spools; cancel frees; files 0600', async (t) => {
  const spoolDir = join(mkdtempSync(join(tmpdir(), 'logbook-quota-')), 'spool');
  const server = await startTestServer(t, { config: { import_jobs: { spool_dir: spoolDir, max_spool_bytes: QUOTA, concurrency: 1 }, import_batch_rows: 5 } });
  const db = server.db.pool;
  const upload = (op: Operator, body: string | Buffer, headers: Record<string, string> = {}) =>
    server.request(`/api/v2/qso?station_profile_id=${op.stationId}&async=true`, { method: 'POST', token: op.token, body, headers: { 'content-type': 'text/plain', ...headers } });
  const jobs: Array<[Operator, number]> = [];
  const idOf = (res: { headers: Headers }) => Number(res.headers.get('location')!.split('/').pop());

  // Holding SHARE on qso stops the running job at its first INSERT: every spool stays on disk.
  const blocker = await db.connect();
  await blocker.query('BEGIN');
  await blocker.query('LOCK TABLE qso IN SHARE MODE');
  t.teardown(async () => {
    await blocker.query('COMMIT').catch(() => undefined);
    blocker.release();
  });

  const first = await createOperator(db, { callsign: 'DL1SPA' });
  const running = await upload(first, adifDocument(1));
  t.equal(running.status, 202, running.text);
  jobs.push([first, idOf(running)]);
  t.equal(statSync(spoolDir).mode & 0o777, 0o700, 'the spool folder is the server user\'s only');

  t.test('a declared size over the quota is 413, over what is left 409, before a byte is written', async (t) => {
    const op = await createOperator(db, { callsign: 'DL2SPA' });
    const document = adifDocument(7000);
    t.ok(document.length > QUOTA / 2 && document.length < QUOTA, `${document.length} bytes`);
    const queued = await upload(op, document);
    t.equal(queued.status, 202, queued.text);
    jobs.push([op, idOf(queued)]);
    const file = join(spoolDir, `job-${await databaseKey(db)}-${idOf(queued)}.spool`);
    t.equal(statSync(file).mode & 0o777, 0o600, 'the spool file is the server user\'s only');
    const other = await createOperator(db, { callsign: 'DL3SPA' });
    const full = await upload(other, adifDocument(7000, 10_000));
    t.equal(full.status, 409, full.text);
    t.match(full.body.error.details, { reason: 'spool_full' });
    const huge = await upload(other, adifDocument(14_000));
    t.equal(huge.status, 413, huge.text);
    t.match(huge.body.error, { code: 'payload_too_large', details: { limit: QUOTA } });
    t.equal(readdirSync(spoolDir).length, 2, 'the refused uploads spooled nothing');

    // Upload, then cancel: its bytes are free again at once.
    const cancel = await server.request(`/api/v2/import/${idOf(queued)}`, { method: 'DELETE', token: op.token });
    t.equal(cancel.status, 202, cancel.text);
    t.notOk(existsSync(file), 'the cancelled upload is removed');
    const again = await upload(other, adifDocument(7000, 10_000));
    t.equal(again.status, 202, again.text);
    jobs.push([other, idOf(again)]);
    const cancelAgain = await server.request(`/api/v2/import/${idOf(again)}`, { method: 'DELETE', token: other.token });
    t.equal(cancelAgain.status, 202);
  });

  t.test('three uploads at once of unknown size: those over the quota are refused, the disk never holds more', async (t) => {
    const ops = await Promise.all(['DL4SPA', 'DL5SPA', 'DL6SPA'].map((callsign) => createOperator(db, { callsign })));
    let most = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        most = Math.max(most, spooled(spoolDir));
        await sleep(1);
      }
    })();
    const answers = await Promise.all(ops.map((op, i) => upload(op, gzipSync(adifDocument(7000, 20_000 * (i + 1))), { 'content-encoding': 'gzip' })));
    watching = false;
    await watcher;
    const accepted = answers.filter((res) => res.status === 202);
    const refused = answers.filter((res) => res.status !== 202);
    // Only one fits; the oldest of those racing for the room waits for the younger ones to give theirs back.
    t.equal(accepted.length, 1, `answers: ${answers.map((res) => res.status).join(', ')}`);
    for (const res of refused) {
      t.ok(res.status === 413 || res.status === 409, res.text);
      t.match(res.body.error.details, { reason: 'spool_full' });
    }
    t.ok(most <= QUOTA, `at most ${most} bytes on disk`);
    for (const res of accepted) jobs.push([ops[answers.indexOf(res)]!, idOf(res)]);
    t.equal(readdirSync(spoolDir).length, 1 + accepted.length, 'the running job and the accepted upload; the refused ones were removed');
  });

  t.test('the jobs end and leave no spool', async (t) => {
    for (const [op, id] of jobs) await server.request(`/api/v2/import/${id}`, { method: 'DELETE', token: op.token });
    await sleep(1200); // the running job sees its cancel
    await blocker.query('COMMIT');
    for (const [op, id] of jobs) {
      for (let i = 0; ['queued', 'running'].includes(await jobState(server, op, id)); i++) {
        if (i > 100) throw new Error(`job ${id} never ended`);
        await sleep(100);
      }
    }
    t.same(readdirSync(spoolDir), []);
    const { rows } = await db.query<{ n: number }>('SELECT coalesce(sum(spool_bytes), 0)::int AS n FROM import_jobs');
    t.equal(rows[0]!.n, 0, 'no spool is counted any more');
  });
});

t.test('start-up removes every orphan spool: of a job cancelled while queued before a crash, of no job', async (t) => {
  const db = await testDatabase(t);
  const spoolDir = mkdtempSync(join(tmpdir(), 'logbook-orphans-'));
  const op = await createOperator(db.pool, { callsign: 'DL7SPA' });
  const key = await databaseKey(db.pool);
  const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
  const row = async (state: string, host: string, pid: number) => {
    const { rows: [job] } = await db.pool.query<{ id: number }>(
      `INSERT INTO import_jobs (user_id, station_id, state, runner_host, runner_pid, runner_instance, spool_path, spool_bytes)
       VALUES ($1, $2, $3, $4, $5, 'before', '', 100) RETURNING id::int AS id`,
      [op.userId, op.stationId, state, host, pid],
    );
    const path = join(spoolDir, `job-${key}-${job!.id}.spool`);
    await db.pool.query('UPDATE import_jobs SET spool_path = $2 WHERE id = $1', [job!.id, path]);
    writeFileSync(path, adifDocument(1));
    return path;
  };
  const cancelled = await row('cancelled', hostname(), dead);
  const stray = join(spoolDir, `job-${key}-999999.spool`);
  writeFileSync(stray, 'left over');
  const otherDatabase = join(spoolDir, 'job-0123456789ab-999999.spool');
  writeFileSync(otherDatabase, "another database's upload");
  const elsewhere = await row('queued', 'another-host', 1);
  const notOurs = join(spoolDir, 'notes.txt');
  writeFileSync(notOurs, 'an operator file');

  await startTestServer(t, { db, config: { import_jobs: { spool_dir: spoolDir } } });
  t.notOk(existsSync(cancelled), "the spool of a job cancelled before the crash is removed");
  t.notOk(existsSync(stray), 'a spool of no job is removed');
  t.ok(existsSync(elsewhere), 'a spool held by a live process (another host, lease fresh) stays');
  t.ok(existsSync(notOurs), 'files that are no spools are left alone');
  t.ok(existsSync(otherDatabase), "another database's spools are left alone");
  const { rows } = await db.pool.query<{ state: string; spool_bytes: number }>('SELECT state, spool_bytes::int FROM import_jobs ORDER BY id');
  t.same(rows, [{ state: 'cancelled', spool_bytes: 0 }, { state: 'queued', spool_bytes: 100 }]);
});
