import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createPublisher } from '../../lib/live/publisher.js';
import { createBrowserToken } from '../../lib/worker/browserToken.js';
import { connectClient, memoryLogger, SECRET, startTestWorker } from '../helpers/worker.js';

// Issue 19 item 10: one secret signed browser tokens and, sent as X-Worker-Secret in clear on
// every internal call, authenticated those calls, so whoever saw one internal request could mint
// a browser token for any topic, and a leaked signing key opened the internal API.

/** The X-Worker-Secret value the application's publisher really sends (caught by a plain HTTP server). */
async function internalHeaderSent(): Promise<string> {
  let seen = '';
  const server = createServer((req, res) => {
    seen = String(req.headers['x-worker-secret'] ?? '');
    res.end('');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const publisher = createPublisher({ urls: [`http://127.0.0.1:${(server.address() as AddressInfo).port}`], secret: SECRET, logger: memoryLogger() });
  publisher.publish('station.1', { n: 1 });
  await publisher.close();
  server.close();
  return seen;
}

/** A browser token in the wire format, signed with `key`. */
function tokenSignedWith(key: string, topic: string): string {
  const claims = Buffer.from(JSON.stringify({ user_id: 1, topic, expires: Math.floor(Date.now() / 1000) + 600 })).toString('hex');
  return `${claims}.${createHmac('sha256', key).update(claims).digest('hex')}`;
}

async function internalStatus(port: number, header: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/internal/status`, { headers: { 'X-Worker-Secret': header } });
  await res.text();
  return res.status;
}

t.test('what authenticates internal calls cannot sign browser tokens, and the other way round', async (t) => {
  const worker = await startTestWorker();
  t.teardown(() => worker.close());
  const header = await internalHeaderSent();
  t.ok(header.length > 0, 'the publisher sends a secret header');
  t.equal(await internalStatus(worker.internalPort, header), 200, 'the header it sends authenticates internal calls');

  const topic = 'station.5';
  const register = await fetch(`http://127.0.0.1:${worker.internalPort}/internal/register`, {
    method: 'POST',
    headers: { 'X-Worker-Secret': header, 'Content-Type': 'application/json' },
    body: JSON.stringify({ topic, meta: { require_token: true } }),
  });
  t.equal(register.status, 200);

  const forged = await connectClient(worker.wsPort, topic);
  forged.auth(tokenSignedWith(header, topic));
  t.match(await forged.next(), { type: 'error', code: 'unauthorized' }, 'a token signed with the internal header is refused');
  forged.close();

  const genuine = await connectClient(worker.wsPort, topic);
  genuine.auth(createBrowserToken(SECRET, { userId: 1, topic, ttlSeconds: 600 }));
  t.same(await genuine.next(), { type: 'auth_ok' }, "the application's own token is accepted");
  genuine.close();

  t.not(header, SECRET, 'the configured secret itself does not travel on the internal network');
  t.equal(await internalStatus(worker.internalPort, SECRET), 403, 'nor does it authenticate internal calls on its own');
});
