import { createHmac } from 'node:crypto';
import t from 'tap';
import WebSocket from 'ws';
import { SECRET, startTestWorker } from '../helpers/worker.js';

// REFERENCE.md §6 and decision 11, written out here independently of lib/worker: an operator
// keeps the original application (or worker) and pairs it with ours, so the worker must take the
// raw secret in X-Worker-Secret and browser tokens signed with the raw secret.

/** hex(claims JSON bytes) + "." + hex(HMAC-SHA256(key = secret, message = that hex string)). */
function originalToken(userId: number, topic: string): string {
  const hexClaims = Buffer.from(`{"user_id":${userId},"topic":${JSON.stringify(topic)},"expires":${Math.floor(Date.now() / 1000) + 3600}}`, 'utf8').toString('hex');
  return `${hexClaims}.${createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(hexClaims, 'utf8').digest('hex')}`;
}

async function internal(port: number, path: string, body: unknown, secret = SECRET): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'X-Worker-Secret': secret, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/** The frames a socket receives, in order. */
function frames(ws: WebSocket): () => Promise<Record<string, unknown>> {
  const queue: Record<string, unknown>[] = [];
  const waiting: ((frame: Record<string, unknown>) => void)[] = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Record<string, unknown>;
    const waiter = waiting.shift();
    if (waiter) waiter(frame);
    else queue.push(frame);
  });
  return () => {
    const ready = queue.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no frame within 3 s')), 3000);
      waiting.push((frame) => {
        clearTimeout(timer);
        resolve(frame);
      });
    });
  };
}

t.test("the original application's calls and tokens work against our worker", async (t) => {
  const worker = await startTestWorker();
  t.teardown(() => worker.close());
  const topic = 'radios_user.42';
  t.same(await internal(worker.internalPort, '/internal/register', { topic, meta: { require_token: true } }), { status: 200, text: '' });
  t.same(await internal(worker.internalPort, '/internal/register', { topic }, 'not-the-secret'), { status: 403, text: 'forbidden\n' });

  const ws = new WebSocket(`ws://127.0.0.1:${worker.wsPort}/ws?topic=${topic}`);
  t.teardown(() => ws.terminate());
  const next = frames(ws);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ type: 'auth', token: originalToken(42, topic) }));
  t.same(await next(), { type: 'auth_ok' });

  const payload = { type: 'radio_updated', radio_id: 3, radio_status: { frequency: 14074000, mode: 'FT8' } };
  t.same(await internal(worker.internalPort, '/internal/publish', { topic, payload }), { status: 200, text: '' });
  t.same(await next(), { type: 'push', payload });
});

t.test('a token the original signs for another topic is refused', async (t) => {
  const worker = await startTestWorker();
  t.teardown(() => worker.close());
  await internal(worker.internalPort, '/internal/register', { topic: 'radio.1', meta: { require_token: true } });
  const ws = new WebSocket(`ws://127.0.0.1:${worker.wsPort}/ws?topic=radio.1`);
  t.teardown(() => ws.terminate());
  const next = frames(ws);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ type: 'auth', token: originalToken(42, 'radio.2') }));
  t.match(await next(), { type: 'error', code: 'unauthorized' });
});
