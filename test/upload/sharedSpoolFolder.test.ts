import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { adifDocument } from './helpers.js';

/** The first key of the per-location import lock (lib/import/staging.ts). */
const IMPORT_LOCK_CLASS = 0x51_0a;

async function settle(server: TestServer, token: string, location: string): Promise<string> {
  let state = '';
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline && !['done', 'failed', 'cancelled'].includes(state)) {
    state = (await server.request(location, { token })).body.data.state as string;
    await sleep(50);
  }
  return state;
}

// Two instances with databases of their own and one spool folder (one LOGBOOK_HOME): job ids
// restart in each database, so on the code before both wrote job-1.spool, and the second's
// start-up removed the first's queued upload as an orphan of no job it knew.
t.test('instances of different databases share a spool folder without touching each other\'s uploads', async (t) => {
  const spoolDir = mkdtempSync(join(tmpdir(), 'logbook-shared-jobs-'));
  const config = { import_jobs: { spool_dir: spoolDir } };
  const first = await startTestServer(t, { config });
  const alice = await createOperator(first.db.pool, { callsign: 'DL1SHA' });
  // Alice's location is busy, so her job waits with its upload spooled.
  const holder = await first.db.pool.connect();
  t.teardown(() => holder.release());
  await holder.query('BEGIN');
  await holder.query('SELECT pg_advisory_xact_lock($1, $2)', [IMPORT_LOCK_CLASS, alice.stationId]);
  const upload = (server: TestServer, who: typeof alice, count: number) => server.request(`/api/v2/qso?station_profile_id=${who.stationId}`, {
    method: 'POST', token: who.token, body: adifDocument(count), headers: { 'content-type': 'text/plain', prefer: 'respond-async' },
  });
  const waiting = await upload(first, alice, 12);
  t.equal(waiting.status, 202, waiting.status === 202 ? 'accepted' : waiting.text);
  await sleep(300);
  t.equal(readdirSync(spoolDir).length, 1, "Alice's upload waits in the folder");

  const second = await startTestServer(t, { config });
  const bob = await createOperator(second.db.pool, { callsign: 'DL2SHA' });
  t.equal(readdirSync(spoolDir).length, 1, "the second instance's start-up leaves the first's upload alone");
  const bobs = await upload(second, bob, 7);
  t.equal(bobs.status, 202, bobs.status === 202 ? 'accepted' : bobs.text);
  t.equal(await settle(second, bob.token, bobs.headers.get('location')!), 'done', "Bob's job (the same id in his database) is done");

  await holder.query('COMMIT');
  t.equal(await settle(first, alice.token, waiting.headers.get('location')!), 'done', "Alice's job is done once her location is free");
  const stored = async (server: TestServer, stationId: number) =>
    (await server.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [stationId])).rows[0]!.n;
  t.equal(await stored(first, alice.stationId), 12, 'her twelve QSOs, from her own upload');
  t.equal(await stored(second, bob.stationId), 7, 'his seven');
  t.same(readdirSync(spoolDir), [], 'and both spools are gone');
});
