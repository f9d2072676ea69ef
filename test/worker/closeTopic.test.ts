import t from 'tap';
import { acquireRedis, NO_REDIS_REASON } from '../helpers/redis.js';
import { callApi, connectClient, publish, registerTopic, spawnWorkerPair, startTestWorker, upgradeStatus, type TestClient } from '../helpers/worker.js';

/** An anonymous socket on a topic registered without token requirement, authenticated. */
async function anonymous(wsPort: number, topic: string): Promise<TestClient> {
  const client = await connectClient(wsPort, topic);
  client.auth('public');
  t.same(await client.next(), { type: 'auth_ok' });
  return client;
}

t.test('unregister with close_sockets closes the topic\'s sockets; without it they stay (the original\'s behaviour)', async (t) => {
  const worker = await startTestWorker();
  t.teardown(() => worker.close());
  const topic = 'public_log.41';
  await registerTopic(worker.internalPort, topic, false);
  const watching = await anonymous(worker.wsPort, topic);
  const authenticating = await connectClient(worker.wsPort, topic);
  await registerTopic(worker.internalPort, 'public_log.42', false);
  const other = await anonymous(worker.wsPort, 'public_log.42');

  t.equal((await callApi(worker.internalPort, 'POST', '/internal/unregister', { topic, close_sockets: 'yes' })).status, 400, 'close_sockets must be a boolean');

  const plain = await callApi(worker.internalPort, 'POST', '/internal/unregister', { topic });
  t.equal(plain.status, 200);
  t.ok(await watching.silentFor(200), 'a plain unregister leaves the sockets open');
  await registerTopic(worker.internalPort, topic, false);

  t.equal((await callApi(worker.internalPort, 'POST', '/internal/unregister', { topic, close_sockets: true })).status, 200);
  t.match(await watching.next(), { type: 'error', code: 'topic_closed' });
  t.equal((await watching.closed).code, 1008);
  t.equal((await authenticating.closed).code, 1008, 'a socket not yet authenticated is closed too');
  t.equal(await upgradeStatus(`ws://127.0.0.1:${worker.wsPort}/ws?topic=${topic}`), 404, 'the topic is gone');
  t.ok(await other.silentFor(100), 'another topic\'s socket stays open');
  t.equal((await publish(worker.internalPort, 'public_log.42', { n: 1 })).status, 200);
  t.match(await other.next(), { type: 'push', payload: { n: 1 } });
  other.close();
});

const redis = await acquireRedis();
t.test('closing a topic through one worker closes its sockets on every worker behind Redis', { skip: redis ? false : NO_REDIS_REASON }, async (t) => {
  if (!redis) return;
  const [a, b] = await spawnWorkerPair(t, redis, 'close-topic');
  const topic = 'public_log.7';
  await registerTopic(a.internalPort, topic, false);
  const onA = await anonymous(a.wsPort, topic);
  const onB = await anonymous(b.wsPort, topic);
  t.equal((await callApi(a.internalPort, 'POST', '/internal/unregister', { topic, close_sockets: true })).status, 200);
  t.equal((await onA.closed).code, 1008, 'closed on the worker called');
  t.equal((await onB.closed).code, 1008, 'closed on the other worker');
  t.equal(await upgradeStatus(`ws://127.0.0.1:${b.wsPort}/ws?topic=${topic}`), 404);
});
