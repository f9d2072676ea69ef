import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createGzip, gzipSync } from 'node:zlib';
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOperator, type Operator } from '../helpers/fixtures.js';
import { adifDocument, formBody } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** `piece` repeated `times`, gzip-compressed without holding the whole plain text. */
async function gzipOf(piece: Buffer, times: number): Promise<Buffer> {
  const gzip = createGzip();
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  for (let i = 0; i < times; i++) if (!gzip.write(piece)) await once(gzip, 'drain');
  gzip.end();
  await once(gzip, 'end');
  return Buffer.concat(out);
}

/** Runs `work` while sampling this process's Buffer memory: the growth at its peak over the start, and the CPU time it took. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; peakBytes: number; cpuMs: number }> {
  gc();
  const base = process.memoryUsage().arrayBuffers;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 2);
  const cpu = process.cpuUsage();
  try {
    const value = await work();
    const used = process.cpuUsage(cpu);
    return { value, peakBytes: Math.max(peak, process.memoryUsage().arrayBuffers) - base, cpuMs: (used.user + used.system) / 1000 };
  } finally {
    clearInterval(sampler);
  }
}

const MiB = 1024 * 1024;

t.test('uploads: every parser state bounded, sniffing bounded, fields bounded', async (t) => {
  const server = await startTestServer(t);
  const op = await createOperator(server.db.pool, { callsign: 'DL1BND' });
  const post = (body: Buffer, headers: Record<string, string>) =>
    server.request(`/api/v2/qso?station_profile_id=${op.stationId}`, { method: 'POST', token: op.token, body, headers });
  const stored = async () => (await server.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [op.stationId])).rows[0]!.n;

  t.test('a gzip form of 32 MiB of "A" after its first delimiter: 400 at once, nothing held', async (t) => {
    const body = gzipSync(Buffer.concat([Buffer.from('--XyZbOuNdArY'), Buffer.alloc(32 * MiB, 'A')]));
    t.ok(body.length < 64 * 1024, `${body.length} bytes compressed`);
    const { value: res, peakBytes, cpuMs } = await measured(() => post(body, {
      'content-type': 'multipart/form-data; boundary=XyZbOuNdArY', 'content-encoding': 'gzip',
    }));
    t.equal(res.status, 400, res.text);
    t.match(res.body.error.message, /delimiter is not followed by a line break/);
    t.ok(cpuMs < 2000, `${cpuMs.toFixed(0)} ms of CPU`);
    t.ok(peakBytes < 8 * MiB, `buffers grew by ${(peakBytes / MiB).toFixed(1)} MiB at most`);
  });

  t.test('padding, preamble and headers beyond their bounds: 400', async (t) => {
    const padded = await post(Buffer.from(`--B\r\n`.replace('\r\n', ' '.repeat(300) + '\r\n')), { 'content-type': 'multipart/form-data; boundary=B' });
    t.equal(padded.status, 400);
    const noBoundary = await post(Buffer.alloc(128 * 1024, 'x'), { 'content-type': 'multipart/form-data; boundary=B' });
    t.equal(noBoundary.status, 400);
    t.match(noBoundary.body.error.message, /outside its parts: is "B" its boundary/);
    const headers = await post(Buffer.from(`--B\r\nX-Long: ${'h'.repeat(20 * 1024)}`), { 'content-type': 'multipart/form-data; boundary=B' });
    t.equal(headers.status, 400);
    t.match(headers.body.error.message, /headers longer than/);
  });

  t.test('a gzip body of 64 MiB of blanks with no Content-Type: refused after a bounded prefix', async (t) => {
    const body = await gzipOf(Buffer.alloc(MiB, ' '), 64);
    const { value: res, peakBytes } = await measured(() => post(body, { 'content-encoding': 'gzip' }));
    t.equal(res.status, 400, res.text);
    t.match(res.body.error.message, /first 65536 bytes are blank/);
    t.ok(peakBytes < 8 * MiB, `buffers grew by ${(peakBytes / MiB).toFixed(1)} MiB at most`);
  });

  t.test('a form of thousands of text fields, or of large ones: 413, nothing imported', async (t) => {
    const before = await stored();
    const file = { filename: 'log.adi', content: adifDocument(2) };
    const many = formBody(Array.from({ length: 4000 }, (_, i): [string, string] => [`f${i}`, 'x']), file);
    const res = await post(many.body, { 'content-type': many.contentType });
    t.equal(res.status, 413, res.text);
    t.match(res.body.error, { code: 'payload_too_large', message: /more than 100 text fields/ });
    const large = formBody(Array.from({ length: 8 }, (_, i): [string, string] => [`f${i}`, 'y'.repeat(60 * 1024)]), file);
    const big = await post(large.body, { 'content-type': large.contentType });
    t.equal(big.status, 413, big.text);
    t.match(big.body.error.message, /text fields hold more than 262144 bytes/);
    t.equal(await stored(), before);
  });
});

/** An upload whose body is sent in part and held open until `finish` (chunked: its length is unknown). */
function heldUpload(server: TestServer, op: Operator) {
  const req = httpRequest(`${server.url}/api/v2/qso?station_profile_id=${op.stationId}`, {
    method: 'POST', headers: { authorization: `Bearer ${op.token}`, 'content-type': 'text/plain', 'transfer-encoding': 'chunked' },
  });
  const document = adifDocument(3, op.userId * 10);
  const half = document.indexOf('<EOR>') + 5;
  req.write(document.slice(0, half));
  const answer = once(req, 'response').then(async ([res]) => {
    let text = '';
    for await (const chunk of res) text += chunk;
    return { status: res.statusCode as number, text };
  });
  return { answer, finish: () => req.end(document.slice(half)) };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 500) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

t.test('uploads at once: per owner 429, per process 503, both with Retry-After; places come back', async (t) => {
  const server = await startTestServer(t, { config: { uploads: { max_concurrent: 2, max_concurrent_per_owner: 1 } } });
  const slots = server.services.uploads;
  const [alice, bob, carol] = await Promise.all(['DL1ALI', 'DL1BOB', 'DL1CAR'].map((callsign) => createOperator(server.db.pool, { callsign })));
  const small = (op: Operator) => server.request(`/api/v2/qso?station_profile_id=${op.stationId}`, {
    method: 'POST', token: op.token, body: gzipSync(adifDocument(1, 900 + op.userId)), headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
  });

  const first = heldUpload(server, alice);
  await until(() => slots.inUse === 1, "alice's upload takes its place");
  const [again, bobs] = await Promise.all([small(alice), Promise.resolve(heldUpload(server, bob))]);
  t.equal(again.status, 429, again.text);
  t.equal(again.headers.get('retry-after'), '5');
  t.match(again.body.error, { code: 'rate_limited', details: { retry_after: 5, active: 1, max: 1 } });
  await until(() => slots.inUse === 2, "bob's upload takes the second place");
  const [full, fullToo] = await Promise.all([small(carol), small(carol)]);
  for (const res of [full, fullToo]) {
    t.equal(res.status, 503, res.text);
    t.equal(res.headers.get('retry-after'), '5');
    t.match(res.body.error, { code: 'server_busy', details: { retry_after: 5 } });
  }
  const smallJson = await server.request('/api/v2/qso', { method: 'POST', token: carol.token, json: { station_profile_id: carol.stationId, call: 'K1ABC', qso_date: '2024-01-01', time_on: '1200', band: '20m', mode: 'SSB' } });
  t.equal(smallJson.status, 201, 'a small plain body takes no place');

  first.finish();
  bobs.finish();
  t.equal((await first.answer).status, 201);
  t.equal((await bobs.answer).status, 201);
  await until(() => slots.inUse === 0, 'the places are given back');
  t.equal((await small(carol)).status, 201);
  t.equal((await small(alice)).status, 201);
});
