import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createPublisher } from '../../lib/live/publisher.js';
import { createBrowserToken } from '../../lib/worker/browserToken.js';
import { browserTokenKey } from '../../lib/worker/workerKeys.js';
import { connectClient, memoryLogger, SECRET, startTestWorker } from '../helpers/worker.js';

// worker.derived_keys (opt-in): the value sent in clear on every internal call must not sign
// browser tokens, and a leaked signing key must not open the internal API. The cost is pairing:
// the original's application and worker use the secret for both, and are refused.

/** The X-Worker-Secret value the application's publisher really sends (caught by a plain HTTP server). */
async function internalHeaderSent(derivedKeys: boolean): Promise<string> {
  let seen!: (header: string) => void;
  const received = new Promise<string>((resolve) => (seen = resolve));
  const server = createServer((req, res) => {
    seen(String(req.headers['x-worker-secret'] ?? ''));
    res.end('');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A generous timeout: the header is what is asserted, not the speed of a loaded machine.
  const publisher = createPublisher({ urls: [`http://127.0.0.1:${(server.address() as AddressInfo).port}`], secret: SECRET, derivedKeys, timeoutMs: 10_000, logger: memoryLogger() });
  publisher.publish('station.1', { n: 1 });
  const header = await received;
  await publisher.close();
  server.close();
  return header;
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

t.test('by default the publisher sends the secret itself, as the original application does', async (t) => {
  t.equal(await internalHeaderSent(false), SECRET);
});

t.test('with derived keys, what authenticates internal calls cannot sign browser tokens, and the other way round', async (t) => {
  const worker = await startTestWorker({ derivedKeys: true });
  t.teardown(() => worker.close());
  const header = await internalHeaderSent(true);
  t.match(header, /^[0-9a-f]{64}$/, 'the publisher sends a derived key');
  t.equal(await internalStatus(worker.internalPort, header), 200, 'the header it sends authenticates internal calls');
  t.equal(await internalStatus(worker.internalPort, SECRET), 403, 'the raw secret (the original application) is refused');

  const topic = 'station.5';
  const register = await fetch(`http://127.0.0.1:${worker.internalPort}/internal/register`, {
    method: 'POST',
    headers: { 'X-Worker-Secret': header, 'Content-Type': 'application/json' },
    body: JSON.stringify({ topic, meta: { require_token: true } }),
  });
  t.equal(register.status, 200);

  for (const [what, token] of [['signed with the internal header', tokenSignedWith(header, topic)], ['signed with the raw secret (the original)', tokenSignedWith(SECRET, topic)]]) {
    const forged = await connectClient(worker.wsPort, topic);
    forged.auth(token!);
    t.match(await forged.next(), { type: 'error', code: 'unauthorized' }, `a token ${what} is refused`);
    forged.close();
  }

  const genuine = await connectClient(worker.wsPort, topic);
  genuine.auth(createBrowserToken(browserTokenKey(SECRET, true), { userId: 1, topic, ttlSeconds: 600 }));
  t.same(await genuine.next(), { type: 'auth_ok' }, "the application's own token is accepted");
  genuine.close();
});
