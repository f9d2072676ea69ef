import t from 'tap';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { adifDocument } from '../upload/helpers.js';
import { v1Key } from './helpers.js';

/** An `api/qso` body of undeclared length (chunked) whose key is sent, then nothing more until `finish`. */
async function openUpload(url: URL, key: string, stationId: number): Promise<{ socket: Socket; finish(): Promise<string> }> {
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (data: Buffer) => (received += data.toString()));
  const chunk = (text: string) => socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
  socket.write(`POST /api/qso HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`);
  chunk(`{"key":"${key}","station_profile_id":"${stationId}","type":"adif","string":"`);
  return {
    socket,
    async finish() {
      chunk(`${JSON.stringify(adifDocument(3)).slice(1, -1)}"}`);
      socket.write('0\r\n\r\n');
      await once(socket, 'end');
      return received;
    },
  };
}

function chunkedPost(server: { url: string }, body: string): Promise<Response> {
  const stream = new ReadableStream({ start(controller) { controller.enqueue(new TextEncoder().encode(body)); controller.close(); } });
  return fetch(`${server.url}/api/qso`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit);
}

t.test('v1 api/qso takes an upload place: 429 beyond the owner\'s, 503 beyond the process\'s, both with Retry-After', async (t) => {
  const server = await startTestServer(t, { config: { uploads: { max_concurrent: 2, max_concurrent_per_owner: 1 } } });
  const db = server.db.pool;
  const alice = await createOperator(db, { callsign: 'DL1ALI' });
  const bob = await createOperator(db, { callsign: 'DL2BOB' });
  const carol = await createOperator(db, { callsign: 'DL3CAR' });
  const keys = { alice: await v1Key(db, alice.userId), bob: await v1Key(db, bob.userId), carol: await v1Key(db, carol.userId) };
  const url = new URL(server.url);
  const body = (key: string, stationId: number) => JSON.stringify({ key, station_profile_id: String(stationId), type: 'adif', string: adifDocument(2, 50) });

  const held = await openUpload(url, keys.alice, alice.stationId);
  t.teardown(() => held.socket.destroy());
  await sleep(300);
  t.equal(server.services.uploads.inUse, 1, "Alice's open upload holds a place once her key is read");

  const second = await chunkedPost(server, body(keys.alice, alice.stationId));
  t.equal(second.status, 429, 'a second upload of hers: 429');
  t.equal(second.headers.get('retry-after'), '5');
  const answer = await second.json() as { status: string; reason: string; retry_after: number };
  t.equal(answer.status, 'failed', 'in the v1 shape');
  t.equal(answer.retry_after, 5);
  t.match(answer.reason, /uploads of yours/);
  const small = await server.request('/api/qso', { method: 'POST', json: JSON.parse(body(keys.alice, alice.stationId)) });
  t.equal(small.status, 201, 'a small body of declared length needs no place');

  const bobs = await openUpload(url, keys.bob, bob.stationId);
  t.teardown(() => bobs.socket.destroy());
  await sleep(300);
  const full = await chunkedPost(server, body(keys.carol, carol.stationId));
  t.equal(full.status, 503, 'the process full: 503 for a third owner');
  t.equal(full.headers.get('retry-after'), '5');

  t.match(await held.finish(), /^HTTP\/1\.1 201 /, 'the held upload completes');
  t.match(await bobs.finish(), /^HTTP\/1\.1 201 /);
  t.equal(server.services.uploads.inUse, 0, 'places given back');
  const again = await chunkedPost(server, body(keys.carol, carol.stationId));
  t.equal(again.status, 201, 'then a new upload is taken');
});
