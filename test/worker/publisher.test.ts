import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { createPublisher } from '../../lib/live/publisher.js';
import { createBrowserToken } from '../../lib/worker/index.js';
import { freePort } from '../helpers/redis.js';
import { callApi, connectClient, memoryLogger, registerTopic, SECRET, startTestWorker, until, type TestClient } from '../helpers/worker.js';

/** An HTTP server that accepts requests and never answers them. */
async function blackHole(t: Test): Promise<string> {
  const server: Server = createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('a worker that never answers does not block the caller', async (t) => {
  const url = await blackHole(t);
  const logger = memoryLogger();
  const publisher = createPublisher({ urls: [url], secret: SECRET, timeoutMs: 200, logger });
  const started = performance.now();
  publisher.publish('station.1', { n: 1 });
  t.ok(performance.now() - started < 150, 'publish returns at once (before the 200 ms timeout could end a wait)');
  await new Promise((resolve) => setTimeout(resolve, 400));
  t.match(publisher.stats(), { sent: 0, failed: 1, queued: 0 }, 'the request timed out');
  t.ok(logger.lines.some((line) => line.level === 'warn' && /unreachable/.test(line.message)));

  publisher.publish('station.1', { n: 2 });
  const closing = performance.now();
  await publisher.close();
  t.ok(performance.now() - closing < 1000, 'close is bounded by the request timeout');
});

t.test('the queue is bounded: the oldest publishes are dropped and counted', async (t) => {
  const url = await blackHole(t);
  const logger = memoryLogger();
  const publisher = createPublisher({ urls: [url], secret: SECRET, timeoutMs: 300, maxQueue: 10, logger });
  for (let n = 0; n < 50; n++) publisher.publish('station.1', { n });
  t.match(publisher.stats(), { queued: 10, dropped: 40, sent: 0 }, 'the newest ten wait, the rest were dropped');
  t.ok(logger.lines.some((line) => /queue full/.test(line.message)), 'drops are logged');
  await publisher.close();
});

t.test('an unreachable worker is counted, never thrown', async (t) => {
  const publisher = createPublisher({ urls: [`http://127.0.0.1:${await freePort()}`], secret: SECRET, logger: memoryLogger() });
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  t.doesNotThrow(() => publisher.publish('station.1', circular));
  t.doesNotThrow(() => publisher.publish('station.1', 1));
  await t.resolves(publisher.register('station.1'));
  await publisher.close();
  t.match(publisher.stats(), { sent: 0, failed: 2 });
});

t.test('against a real worker', async (t) => {
  const worker = await startTestWorker();
  t.teardown(() => worker.close());
  const url = `http://127.0.0.1:${worker.internalPort}`;
  const topic = 'qsos_user.5';
  await registerTopic(worker.internalPort, topic);
  const client = await connectClient(worker.wsPort, topic);
  client.auth(createBrowserToken(SECRET, { userId: 5, topic, ttlSeconds: 60 }));
  t.same(await client.next(), { type: 'auth_ok' });

  t.test('publishes arrive in order', async (t) => {
    const publisher = createPublisher({ urls: [url], secret: SECRET, logger: memoryLogger() });
    for (let n = 0; n < 100; n++) publisher.publish(topic, { n });
    for (let n = 0; n < 100; n++) t.same(await client.next(), { type: 'push', payload: { n } });
    await publisher.close();
    t.match(publisher.stats(), { sent: 100, failed: 0, dropped: 0 });
  });

  t.test('404 topic not registered → register → retry once', async (t) => {
    // As after a worker restart or an expired registration; the socket itself is still subscribed.
    await callApi(worker.internalPort, 'POST', '/internal/unregister', { topic });
    const publisher = createPublisher({ urls: [url], secret: SECRET, logger: memoryLogger() });
    publisher.publish(topic, 'again');
    t.same(await client.next(), { type: 'push', payload: 'again' });
    await publisher.close();
    t.match(publisher.stats(), { sent: 1, failed: 0 });
  });

  t.test('a re-registration keeps a public topic public', async (t) => {
    const publisher = createPublisher({ urls: [url], secret: SECRET, logger: memoryLogger() });
    await publisher.register('public.9', false);
    await callApi(worker.internalPort, 'POST', '/internal/unregister', { topic: 'public.9' });
    publisher.publish('public.9', 'x');
    await publisher.close();
    const anonymous = await connectClient(worker.wsPort, 'public.9');
    anonymous.auth('no token needed');
    t.same(await anonymous.next(), { type: 'auth_ok' });
    anonymous.close();
  });

  t.test('a wrong secret is a logged failure', async (t) => {
    const logger = memoryLogger();
    const publisher = createPublisher({ urls: [url], secret: 'wrong-secret-wrong-secret-wrong-secret', logger });
    publisher.publish(topic, 1);
    await publisher.close();
    t.match(publisher.stats(), { sent: 0, failed: 1 });
    t.ok(logger.lines.some((line) => line.fields.status === 403));
  });

  t.teardown(() => client.close());
});

t.test('a revocation is kept for a worker that restarts only until it lapses', async (t) => {
  const worker = await startTestWorker();
  t.teardown(() => worker.close());
  const publisher = createPublisher({ urls: [`http://127.0.0.1:${worker.internalPort}`], secret: SECRET, instanceCheckMs: 100, logger: memoryLogger() });
  t.teardown(() => publisher.close());
  publisher.revoke(41, Math.floor(Date.now() / 1000) + 1);
  publisher.revoke(42, Math.floor(Date.now() / 1000) + 3600);
  t.equal(publisher.stats().revocations, 2, 'both kept');
  await until(() => publisher.stats().revocations === 1, 'the lapsed revocation to be forgotten', 4000);
  t.pass('the lapsed one is forgotten, the other kept');
});

t.test('several workers: one that is down or hangs is passed over, no publish is lost', async (t) => {
  const worker = await startTestWorker();
  t.teardown(() => worker.close());
  const live = `http://127.0.0.1:${worker.internalPort}`;
  const topic = 'station.8';
  await registerTopic(worker.internalPort, topic);
  const client = await connectClient(worker.wsPort, topic);
  t.teardown(() => client.close());
  client.auth(createBrowserToken(SECRET, { userId: 8, topic, ttlSeconds: 60 }));
  t.same(await client.next(), { type: 'auth_ok' });

  for (const [label, down] of [['refuses connections', `http://127.0.0.1:${await freePort()}`], ['never answers', await blackHole(t)]] as const) {
    const logger = memoryLogger();
    const publisher = createPublisher({ urls: [down, live], secret: SECRET, timeoutMs: 200, logger });
    const started = performance.now();
    for (let n = 0; n < 20; n++) publisher.publish(topic, { label, n });
    for (let n = 0; n < 20; n++) t.same(await client.next(), { type: 'push', payload: { label, n } }, `${label}: publish ${n} arrives`);
    t.ok(performance.now() - started < 1500, `${label}: the dead worker costs one timeout at most, not one per publish`);
    await publisher.close();
    t.match(publisher.stats(), { sent: 20, failed: 0, dropped: 0 });
    t.ok(logger.lines.some((line) => /trying the next/.test(line.message) && line.fields.worker === down), `${label}: the failover is logged`);
  }
});

t.test('several workers: each publish goes to the first that answers, the next one once it is gone', async (t) => {
  const [first, second] = await Promise.all([startTestWorker(), startTestWorker()]);
  t.teardown(() => Promise.all([first.close(), second.close()]));
  const topic = 'station.9';
  const token = createBrowserToken(SECRET, { userId: 9, topic, ttlSeconds: 60 });
  const clients = [];
  for (const worker of [first, second]) {
    await registerTopic(worker.internalPort, topic);
    const client = await connectClient(worker.wsPort, topic);
    client.auth(token);
    t.same(await client.next(), { type: 'auth_ok' });
    clients.push(client);
  }
  const [onFirst, onSecond] = clients as [TestClient, TestClient];
  const publisher = createPublisher({ urls: [`http://127.0.0.1:${first.internalPort}`, `http://127.0.0.1:${second.internalPort}`], secret: SECRET, retryAfterMs: 300, logger: memoryLogger() });
  publisher.publish(topic, 'preferred');
  t.same(await onFirst.next(), { type: 'push', payload: 'preferred' });
  t.ok(await onSecond.silentFor(100), 'each publish goes to one worker only');
  await first.close();
  publisher.publish(topic, 'failed over');
  t.same(await onSecond.next(), { type: 'push', payload: 'failed over' });
  await publisher.close();
  for (const client of clients) client.close();
});
