import t from 'tap';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { adifDocument } from '../upload/helpers.js';

/** One record every TRICKLE_MS: each upload arrives as slowly as the attack of issue 47 (2 s a record) would keep it open. */
const TRICKLE_MS = 500;
const RECORDS = 16;

interface Trickle {
  socket: Socket;
  /** Sends the next record, or the end of the body after the last. */
  next(): void;
  answer: Promise<string>;
}

/** An upload whose body goes out one ADIF record at a time: `chunked` (an upload place) or with a small declared Content-Length (none). */
async function trickle(url: URL, path: string, token: string, head: string, pieces: string[], chunked: boolean): Promise<Trickle> {
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (data: Buffer) => (received += data.toString()));
  const answer = once(socket, 'end').then(() => received);
  const length = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${Buffer.byteLength(pieces.join(''))}`;
  socket.write(`POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n${head}\r\n${length}\r\nConnection: close\r\n\r\n`);
  const send = (text: string) => socket.write(chunked ? `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n` : text);
  let at = 0;
  return {
    socket,
    answer,
    next() {
      if (at < pieces.length) send(pieces[at++]!);
      else if (at++ === pieces.length && chunked) socket.write('0\r\n\r\n');
    },
  };
}

/** A document's header and records as separate pieces. */
function records(start: number): string[] {
  const lines = adifDocument(RECORDS, start).split('\n').filter(Boolean);
  return lines.map((line) => `${line}\n`);
}

t.test("a trickling synchronous upload holds no connection and no lock: the others' work stays quick", async (t) => {
  const server = await startTestServer(t, { config: { response_min_bytes_per_second: 0 } });
  const db = server.db.pool;
  const alice = await createOperator(db, { callsign: 'DL1ALI' });
  const bob = await createOperator(db, { callsign: 'DL2BOB' });
  const url = new URL(server.url);
  const bulk = server.services.bulkDb;
  for (const path of ['/api/v2/qso?per_page=20', '/api/v2/qso/changes']) await server.request(path, { token: bob.token });

  const uploads: Trickle[] = [];
  t.teardown(() => uploads.forEach((upload) => upload.socket.destroy()));
  // Two bodies sent as documents (chunked: each takes an upload place), two JSON `adif` bodies
  // of a small declared length (no place), the import settings before the document.
  for (let i = 0; i < 2; i++) {
    uploads.push(await trickle(url, `/api/v2/qso?station_profile_id=${alice.stationId}`, alice.token, 'Content-Type: text/plain', records(i * 100), true));
  }
  for (let i = 2; i < 4; i++) {
    const text = records(i * 100).map((piece) => JSON.stringify(piece).slice(1, -1));
    const pieces = [`{"station_profile_id":${alice.stationId},"import_type":"adif","dryrun":false,"adif":"`, ...text, '"}'];
    uploads.push(await trickle(url, '/api/v2/qso', alice.token, 'Content-Type: application/json', pieces, false));
  }
  const timer = setInterval(() => uploads.forEach((upload) => upload.next()), TRICKLE_MS);
  t.teardown(() => clearInterval(timer));
  uploads.forEach((upload) => upload.next());
  await sleep(3 * TRICKLE_MS);

  t.equal(bulk.share!.held(alice.userId), 0, "Alice's trickling uploads hold none of the bulk pool");
  t.equal(bulk.share!.waiting(alice.userId), 0, 'and none waits for it');
  const { rows: locks } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND classid = x'510a'::integer::oid AND objid::bigint = $1 AND objsubid = 2 AND granted", [alice.stationId]);
  t.equal(locks[0]!.n, 0, "and no lock of her location's imports");

  // Each well under the 3 s margin (1 s on an idle machine). On the code that fed the import
  // while the body arrived, Alice's own import (timed once: later tries would find the uploads
  // ended) waited behind her uploads' location lock until they ended.
  // The quickest of `tries`: on a loaded machine one request may open a backend (hundreds of ms).
  const timed = async (label: string, run: () => Promise<{ status: number }>, status: number, tries = 3) => {
    const times: number[] = [];
    for (let i = 0; i < tries; i++) {
      const started = performance.now();
      const res = await run();
      times.push(performance.now() - started);
      t.equal(res.status, status, label);
    }
    t.ok(Math.min(...times) < 3000, `${label}: ${times.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  };
  let round = 0;
  const qsos = () => Array.from({ length: 20 }, (_, i) => ({ call: `K${i}BOB`, band: '20m', mode: 'CW', qso_date: `2024-05-0${1 + round}`, time_on: `10${String(i).padStart(2, '0')}00` }));
  await timed("Bob's list", () => server.request('/api/v2/qso?per_page=20', { token: bob.token }), 200);
  await timed("Bob's change-feed poll", () => server.request('/api/v2/qso/changes', { token: bob.token }), 200);
  await timed("Bob's 20-QSO import", () => server.request('/api/v2/qso', { method: 'POST', token: bob.token, json: { station_profile_id: bob.stationId, qsos: qsos() } }).finally(() => round++), 201);
  await timed("Alice's own 20-QSO import into the same location", () => server.request('/api/v2/qso', { method: 'POST', token: alice.token, json: { station_profile_id: alice.stationId, qsos: qsos() } }).finally(() => round++), 201, 1);

  const answers = await Promise.all(uploads.map((upload) => upload.answer));
  for (const answer of answers) t.match(answer, /^HTTP\/1\.1 201 /, 'each trickled upload is imported once complete');
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [alice.stationId]);
  t.equal(rows[0]!.n, 20 + 4 * RECORDS, 'every record of the four uploads, and her own import');
});

t.test("one club member's trickling upload leaves another member's import into the club's location quick", async (t) => {
  const server = await startTestServer(t, { config: { response_min_bytes_per_second: 0 } });
  const club = await createClub(server.db.pool);
  const slow = await club.memberToken(9);
  const other = await club.memberToken(9);
  const upload = await trickle(new URL(server.url), `/api/v2/qso?station_profile_id=${club.clubStationId}`, slow.token, 'Content-Type: text/plain', records(0), true);
  t.teardown(() => upload.socket.destroy());
  const timer = setInterval(() => upload.next(), TRICKLE_MS);
  t.teardown(() => clearInterval(timer));
  upload.next();
  await sleep(3 * TRICKLE_MS);
  // On the code that fed the import while the body arrived, this waited for the location's lock
  // until the trickling upload ended.
  const qsos = Array.from({ length: 20 }, (_, i) => ({ call: `K${i}CLB`, band: '40m', mode: 'CW', qso_date: '2024-06-01', time_on: `12${String(i).padStart(2, '0')}00` }));
  const started = performance.now();
  const res = await server.request('/api/v2/qso', { method: 'POST', token: other.token, json: { station_profile_id: club.clubStationId, qsos } });
  const ms = performance.now() - started;
  t.equal(res.status, 201, res.status === 201 ? 'stored' : res.text);
  t.ok(ms < 3000, `the other member's 20-QSO import: ${ms.toFixed(0)} ms`);
  t.match(await upload.answer, /^HTTP\/1\.1 201 /, 'the trickled upload is imported once complete');
});
