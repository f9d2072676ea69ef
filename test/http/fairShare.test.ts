import t from 'tap';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { seedLongQsos } from '../helpers/qsoRows.js';
import { v1Key } from '../v1/helpers.js';
import { OwnerShare, OwnerShareBusyError } from '../../lib/db/ownerShare.js';

/** Sends a raw request and reads nothing of the answer (a silent reader). */
async function silentReader(url: URL, head: string, body = ''): Promise<Socket> {
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  socket.write(`${head}\r\nHost: ${url.host}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  socket.pause();
  return socket;
}

t.test('OwnerShare: a bounded share per owner, a bounded queue, other owners never wait', async (t) => {
  const share = new OwnerShare(1, 1);
  const first = await share.acquire(1);
  let second: (() => void) | null = null;
  const waiting = share.acquire(1).then((release) => (second = release));
  await t.rejects(share.acquire(1), OwnerShareBusyError, 'beyond the waiting room: busy');
  const other = await share.acquire(2);
  t.equal(share.held(2), 1, 'another owner is served at once');
  await sleep(10);
  t.equal(second, null, 'the owner waits for its own slot');
  first();
  first();
  await waiting;
  t.equal(share.held(1), 1, 'the slot passed to the waiter; giving back twice counts once');
  second!();
  other();
  t.equal(share.held(1) + share.held(2), 0);
});

t.test("one owner's slow readers leave another user's list, feed and import quick", async (t) => {
  const server = await startTestServer(t, { config: { response_stall_timeout_ms: 20_000, response_min_bytes_per_second: 0, page_read_ahead_bytes: 0 } });
  const db = server.db.pool;
  const alice = await createOperator(db, { callsign: 'DL1ALI' });
  const bob = await createOperator(db, { callsign: 'DL2BOB' });
  await seedLongQsos(db, alice.stationId, 5000);
  const url = new URL(server.url);
  // Each request once before the readers come: plans and caches warm, as on a running server.
  const baseline: string[] = [];
  for (const path of ['/api/v2/qso?per_page=20', '/api/v2/qso/changes']) {
    const started = performance.now();
    await server.request(path, { token: bob.token });
    baseline.push(`${path} ${(performance.now() - started).toFixed(0)} ms`);
  }
  t.comment(`alone: ${baseline.join(', ')}`);
  const readers: Socket[] = [];
  t.teardown(() => readers.forEach((socket) => socket.destroy()));
  const pages = server.services.pageDb;
  const bulk = server.services.bulkDb;
  for (let i = 0; i < 4; i++) {
    readers.push(await silentReader(url, `GET /api/v2/qso?per_page=5000 HTTP/1.1\r\nAuthorization: Bearer ${alice.token}`));
  }
  const key = await v1Key(db, alice.userId, 'r');
  const exportBody = JSON.stringify({ key, station_id: alice.stationId, fetchfromid: 0 });
  for (let i = 0; i < 4; i++) {
    readers.push(await silentReader(url, 'POST /api/get_contacts_adif HTTP/1.1\r\nContent-Type: application/json', exportBody));
  }
  await sleep(1000);
  t.equal(pages.share!.held(alice.userId), pages.share!.perOwner, `Alice holds her share of the page pool (${pages.share!.perOwner} of ${pages.options.max})`);
  t.ok(pages.share!.perOwner < pages.options.max || pages.options.max === 1, 'a share below the whole pool');
  t.equal(bulk.share!.held(alice.userId), bulk.share!.perOwner, `and of the bulk pool (${bulk.share!.perOwner} of ${bulk.options.max}), read-only key included`);

  // The quickest of three: on a loaded machine the first may open a backend (hundreds of ms);
  // without the share each would wait for Alice's readers' stall timeout (20 s).
  const timed = async (label: string, run: () => Promise<{ status: number }>, status: number) => {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const res = await run();
      times.push(performance.now() - started);
      t.equal(res.status, status, label);
    }
    t.ok(Math.min(...times) < 1000, `${label}: ${times.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  };
  await timed("Bob's list", () => server.request('/api/v2/qso?per_page=20', { token: bob.token }), 200);
  await timed("Bob's change-feed poll", () => server.request('/api/v2/qso/changes', { token: bob.token }), 200);
  let round = 0;
  const qsos = () => Array.from({ length: 20 }, (_, i) => ({ call: `K${i}BOB`, band: '20m', mode: 'CW', qso_date: `2024-05-0${1 + round}`, time_on: `10${String(i).padStart(2, '0')}00` }));
  await timed("Bob's 20-QSO import", () => server.request('/api/v2/qso', { method: 'POST', token: bob.token, json: { station_profile_id: bob.stationId, qsos: qsos() } }).finally(() => round++), 201);
});
