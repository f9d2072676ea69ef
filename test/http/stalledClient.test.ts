import t from 'tap';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { seedLongQsos } from '../helpers/qsoRows.js';

/** Sends a GET and reads only the head of the answer, then stops reading; resolves once the head is in. */
async function requestAndStopReading(url: URL, path: string, token: string): Promise<{ socket: Socket; head: string; closed: Promise<number> }> {
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  const closed = once(socket, 'close').then(() => Date.now());
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  const [first] = (await once(socket, 'data')) as [Buffer];
  socket.pause();
  return { socket, head: first.toString('latin1').split('\r\n')[0]!, closed };
}

t.test('a client that stops reading a list page is dropped and its connection freed', async (t) => {
  // No read-ahead: these pages would otherwise fit in it and give their connection back at once
  // (test/http/readAhead.test.ts); a page larger than the read-ahead holds its connection like these.
  const server = await startTestServer(t, { config: { response_stall_timeout_ms: 1000, page_read_ahead_bytes: 0 } });
  const admin = server.db.pool;
  const op = await createOperator(admin);
  await seedLongQsos(admin, op.stationId, 5000);
  const pages = server.services.pageDb;
  for (const path of ['/api/v2/qso?per_page=5000', '/api/v2/qso?format=adif&per_page=5000']) {
    const stopped = Date.now();
    const { socket, head, closed } = await requestAndStopReading(new URL(server.url), path, op.token);
    t.equal(head, 'HTTP/1.1 200 OK', `${path}: the page starts`);
    await sleep(300);
    t.equal(pages.totalCount - pages.idleCount, 1, `${path}: the page holds its connection while its client reads nothing`);
    let held = 1;
    for (let i = 0; i < 500 && held > 0; i++) {
      await sleep(20);
      held = pages.totalCount - pages.idleCount;
    }
    t.equal(held, 0, `${path}: the page's connection is freed`);
    const freedAfter = Date.now() - stopped;
    t.ok(freedAfter >= 1000, `${path}: not before the stall timeout (${freedAfter} ms)`);
    // The kernel's buffers take the first MBs while the page is produced (progress, not a stall).
    t.ok(freedAfter < 3500, `${path}: and near it, not a timeout later (${freedAfter} ms)`);
    // What the client finds once it reads again: what was sent before the server gave up, then the end.
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.resume();
    const closedAt = await Promise.race([closed, sleep(10_000).then(() => null)]);
    t.not(closedAt, null, `${path}: the server closed the connection`);
    t.notOk(Buffer.concat(received).toString('latin1').endsWith('0\r\n\r\n'), `${path}: the answer is cut short, not complete`);
    socket.destroy();
  }
  const { rows } = await admin.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'");
  t.equal(rows[0]!.n, 0, 'no snapshot left open');
  t.equal((await server.request('/api/v2/qso?per_page=1', { token: op.token })).status, 200, 'the pool serves the next list');
});

t.test('a client that reads slowly, but reads, gets the whole page', async (t) => {
  const server = await startTestServer(t, { config: { response_stall_timeout_ms: 1000 } });
  const op = await createOperator(server.db.pool);
  await seedLongQsos(server.db.pool, op.stationId, 5000);
  const { socket, head, closed } = await requestAndStopReading(new URL(server.url), '/api/v2/qso?format=adif&per_page=5000', op.token);
  t.equal(head, 'HTTP/1.1 200 OK');
  let bytes = 0;
  socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
  let done = false;
  void closed.then(() => (done = true));
  // Reads in short bursts with pauses well within the stall timeout (a loaded machine's timers run
  // late), until the chunked body ends.
  const ended = new Promise<void>((resolve) => socket.on('data', (chunk: Buffer) => chunk.toString('latin1').endsWith('0\r\n\r\n') && resolve()));
  let finished = false;
  for (let i = 0; i < 200 && !done && !finished; i++) {
    socket.resume();
    finished = await Promise.race([ended.then(() => true), sleep(20).then(() => false)]);
    socket.pause();
    if (!finished) await sleep(400);
  }
  t.equal(done, false, 'the server kept the connection');
  t.ok(finished, `the answer arrived to its end (${bytes} bytes)`);
  t.ok(bytes > 4_000_000, 'a page of several MB, read over several pauses');
  socket.destroy();
});

/** Sends a GET, then reads `bytes` every `everyMs` (a trickle); returns the socket. */
async function trickle(url: URL, path: string, token: string, bytes: number, everyMs: number): Promise<Socket> {
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  const timer = setInterval(() => socket.read(bytes), everyMs);
  socket.once('close', () => clearInterval(timer));
  return socket;
}

t.test('a client reading slower than the minimum rate is dropped after the window, its connection freed', async (t) => {
  const server = await startTestServer(t, {
    config: { response_stall_timeout_ms: 10_000, response_min_bytes_per_second: 256 * 1024, response_min_rate_window_ms: 1000, page_read_ahead_bytes: 0 },
  });
  const op = await createOperator(server.db.pool);
  await seedLongQsos(server.db.pool, op.stationId, 5000);
  const pages = server.services.pageDb;
  const started = Date.now();
  const socket = await trickle(new URL(server.url), '/api/v2/qso?per_page=5000', op.token, 4096, 100);
  t.teardown(() => socket.destroy());
  await sleep(300);
  t.equal(pages.totalCount - pages.idleCount, 1, 'the page holds its connection while the client trickles');
  let held = 1;
  while (held > 0 && Date.now() - started < 8000) {
    await sleep(20);
    held = pages.totalCount - pages.idleCount;
  }
  const freedAfter = Date.now() - started;
  t.equal(held, 0, `the trickling reader (about 40 KB/s) is cut off (${freedAfter} ms)`);
  t.ok(freedAfter >= 1000 && freedAfter < 3500, `after the 1 s window, well before the 10 s stall timeout (${freedAfter} ms)`);
});
