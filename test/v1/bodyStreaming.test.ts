import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t, { type Test } from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { post, v1Key } from './helpers.js';

/** A POST whose body the test writes piece by piece; `answer` settles when the response has arrived. */
function openPost(t: Test, server: TestServer, path: string, declaredLength: number): { req: ClientRequest; answer: Promise<{ status: number; text: string }> } {
  const req = request(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(declaredLength) } });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
  });
  answer.catch(() => undefined);
  t.teardown(() => void req.destroy());
  return { req, answer };
}

function write(req: ClientRequest, text: string): Promise<void> {
  return new Promise((resolve, reject) => req.write(text, (error) => (error ? reject(error) : resolve())));
}

// A full garbage collection on demand, so that memory samples count what is still held, not
// the uploaded pieces the client and server are done with but V8 has not collected yet (client
// and server share this process; under a busy suite that garbage alone reached 34 MiB).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * Heap and Buffer memory still held after a full collection. Twice: V8 frees the backing stores
 * of the Buffers a collection found dead in the background, and under a busy machine
 * `arrayBuffers` still counted 7-32 MiB of them after one (uploaded pieces, gone once the next
 * collection had finished the sweep).
 */
function heldMemory(): number {
  collectGarbage();
  collectGarbage();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms))]);
}

t.test('a refused body key is answered before the rest of the body is sent', async (t) => {
  const server = await startTestServer(t);
  const op = await createOperator(server.db.pool);
  const head = `{"key":"wl0123456789abc","station_profile_id":${op.stationId},"type":"adif","string":"`;
  // Declares 64 MiB but sends 64 KiB: a server that reads whole bodies never answers.
  const { req, answer } = openPost(t, server, '/api/qso', 64 * 1024 * 1024);
  await write(req, head + '<comment:3>abc'.repeat(4096));
  const response = await within(answer, 15000, 'answer before the body ended');
  t.equal(response.status, 401);
  t.same(JSON.parse(response.text), { status: 'failed', reason: 'missing or wrong api key' });
});

t.test('an ADIF string before a refused key is spooled, not held in memory', async (t) => {
  const server = await startTestServer(t);
  const op = await createOperator(server.db.pool);
  const megabyte = '<comment:8>abcdefgh'.repeat(52429).slice(0, 1024 * 1024);
  const pieces = 64;
  const head = `{"station_profile_id":${op.stationId},"type":"adif","string":"`;
  const tail = '","key":"wl0123456789abc"}';
  const { req, answer } = openPost(t, server, '/api/qso', head.length + pieces * megabyte.length + tail.length);
  const before = heldMemory();
  await write(req, head);
  for (let i = 0; i < pieces; i++) await write(req, megabyte);
  // Sampled while the server still waits for the end: a whole-body reader holds all 64 MiB now.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const during = heldMemory();
  req.end(tail);
  const response = await within(answer, 20000, 'answer');
  t.equal(response.status, 401);
  const grown = during - before;
  t.ok(grown < 16 * 1024 * 1024, `memory grew by ${Math.round(grown / 1048576)} MiB while 64 MiB were uploaded`);
});

t.test('members before a key may take only a small budget', async (t) => {
  const server = await startTestServer(t);
  const op = await createOperator(server.db.pool);
  const key = await v1Key(server.db.pool, op.userId, 'rw');
  const padding = 'x'.repeat(100 * 1024);
  const early = await post(server, '/api/version', { padding, key });
  t.equal(early.status, 413);
  t.match(early.body, { status: 'failed', reason: /limit of 65536 bytes/ });
  // Once the key is accepted the ordinary limit (max_json_body_bytes) applies.
  const late = await post(server, '/api/version', { key, padding });
  t.equal(late.status, 200);
});

t.test('line breaks after <eor> are removed across chunk boundaries', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL5QSO' });
  const key = await v1Key(db, op.userId, 'rw');
  const record = (call: string) => `<call:${call.length}>${call}<band:3>20m<mode:2>CW<qso_date:8>20240301<time_on:4>1200`;
  const pieces = [
    `{"key":"${key}","station_profile_id":${op.stationId},"type":"adif","string":"${record('G4AAA')}<e`,
    `or>\r`,
    `\n${record('G4AAB')}<eor>`,
    `\n"}`,
  ];
  const { req, answer } = openPost(t, server, '/api/qso', Buffer.byteLength(pieces.join('')));
  for (const piece of pieces) {
    await write(req, piece);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  req.end();
  const response = await within(answer, 10000, 'answer');
  t.equal(response.status, 201, response.text);
  t.match(JSON.parse(response.text), { status: 'created', adif_count: 2, adif_errors: 0 });
});

t.test('a body that is only whitespace is empty; JSON null and bad UTF-8 are wrong JSON', async (t) => {
  const server = await startTestServer(t);
  for (const body of [' \n ', 'null', '{"key":"\u00ff', '[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]']) {
    const response = await post(server, '/api/qso', body);
    t.same([response.status, response.body], [200, { status: 'failed', reason: 'wrong JSON' }], JSON.stringify(body));
  }
  const invalidUtf8 = await server.request('/api/qso', { method: 'POST', body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) });
  t.same(invalidUtf8.body, { status: 'failed', reason: 'wrong JSON' });
});
