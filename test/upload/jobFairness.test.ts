import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { adifDocument } from './helpers.js';

/** The first key of the per-location import lock (lib/import/staging.ts). */
const IMPORT_LOCK_CLASS = 0x51_0a;

async function jobState(server: TestServer, token: string, location: string): Promise<string> {
  return (await server.request(location, { token })).body.data.state as string;
}

t.test("a job waiting for its owner's location keeps no other owner's job queued", async (t) => {
  const spoolDir = mkdtempSync(join(tmpdir(), 'logbook-jobs-'));
  const server = await startTestServer(t, { config: { import_jobs: { spool_dir: spoolDir, concurrency: 1 } } });
  const db = server.db.pool;
  const alice = await createOperator(db, { callsign: 'DL1ALI' });
  const bob = await createOperator(db, { callsign: 'DL2BOB' });
  const upload = async (who: typeof alice, start: number) => {
    const res = await server.request(`/api/v2/qso?station_profile_id=${who.stationId}`, {
      method: 'POST', token: who.token, body: adifDocument(10, start), headers: { 'content-type': 'text/plain', prefer: 'respond-async' },
    });
    t.equal(res.status, 202, res.status === 202 ? 'accepted' : res.text);
    return res.headers.get('location')!;
  };

  // Another import of Alice's holds her location (as a long synchronous import would).
  const holder = await db.connect();
  t.teardown(() => holder.release());
  await holder.query('BEGIN');
  await holder.query('SELECT pg_advisory_xact_lock($1, $2)', [IMPORT_LOCK_CLASS, alice.stationId]);

  const alices = [await upload(alice, 0), await upload(alice, 100)];
  await sleep(300);
  const bobs = await upload(bob, 200);
  const started = performance.now();
  let state = '';
  while (performance.now() - started < 5000 && (state = await jobState(server, bob.token, bobs)) !== 'done') await sleep(50);
  const waited = performance.now() - started;
  t.equal(state, 'done', `Bob's job ran while Alice's waited for her location (${waited.toFixed(0)} ms)`);
  t.ok(waited < 3000, 'well within the margin (on the code before, it stayed queued until her lock went)');
  t.equal(await jobState(server, alice.token, alices[0]!), 'running', "Alice's first job waits, counted as running");
  t.equal(await jobState(server, alice.token, alices[1]!), 'queued', 'her second waits behind it: her share is taken');

  await holder.query('COMMIT');
  for (const location of alices) {
    const deadline = performance.now() + 10_000;
    while (performance.now() < deadline && (state = await jobState(server, alice.token, location)) !== 'done') await sleep(50);
    t.equal(state, 'done', 'once the location is free, her jobs run');
  }
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [alice.stationId]);
  t.equal(rows[0]!.n, 20, 'each of her records once');
});

t.test('a waiting job is cancelled without ever running', async (t) => {
  const spoolDir = mkdtempSync(join(tmpdir(), 'logbook-jobs-'));
  const server = await startTestServer(t, { config: { import_jobs: { spool_dir: spoolDir, concurrency: 1 } } });
  const db = server.db.pool;
  const alice = await createOperator(db, { callsign: 'DL3ALI' });
  const holder = await db.connect();
  t.teardown(() => holder.release());
  await holder.query('BEGIN');
  await holder.query('SELECT pg_advisory_xact_lock($1, $2)', [IMPORT_LOCK_CLASS, alice.stationId]);
  const res = await server.request(`/api/v2/qso?station_profile_id=${alice.stationId}`, {
    method: 'POST', token: alice.token, body: adifDocument(5), headers: { 'content-type': 'text/plain', prefer: 'respond-async' },
  });
  const location = res.headers.get('location')!;
  await sleep(700);
  t.equal((await server.request(location, { method: 'DELETE', token: alice.token })).status, 202);
  let state = '';
  const deadline = performance.now() + 5000;
  while (performance.now() < deadline && (state = await jobState(server, alice.token, location)) === 'running') await sleep(50);
  t.equal(state, 'cancelled', 'cancelled while it waited');
  await holder.query('ROLLBACK');
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [alice.stationId]);
  t.equal(rows[0]!.n, 0);
});
