import t from 'tap';
import { createBrowserToken } from '../../lib/worker/index.js';
import { acquireRedis, NO_REDIS_REASON } from '../helpers/redis.js';
import { callApi, connectClient, publish, registerTopic, SECRET, spawnWorkerPair, type Frame, type TestClient } from '../helpers/worker.js';

const redis = await acquireRedis();
if (!redis) t.comment(`SKIP: ${NO_REDIS_REASON}`);

t.test('two worker processes behind Redis deliver every publish exactly once', { skip: redis ? false : NO_REDIS_REASON }, async (t) => {
  if (!redis) return;
  const [a, b] = await spawnWorkerPair(t, redis, 'cluster');

  const topic = 'station.77';
  // Registered through A only: the registry is shared, so B accepts browsers for it.
  await registerTopic(a.internalPort, topic);
  const token = createBrowserToken(SECRET, { userId: 3, topic, ttlSeconds: 60 });
  const clients: TestClient[] = [];
  for (const port of [a.wsPort, a.wsPort, b.wsPort, b.wsPort, b.wsPort]) {
    const client = await connectClient(port, topic);
    client.auth(token);
    t.same(await client.next(), { type: 'auth_ok' });
    clients.push(client);
  }

  const status = JSON.parse((await callApi(a.internalPort, 'GET', '/internal/status?topics=1')).text) as Record<string, unknown>;
  t.equal(status.cluster_nodes, 2, 'both workers subscribe to the channel');
  t.same((status.topic_list as string[]).sort(), [topic, 'worker.status'], 'registry listed from Redis');
  t.equal(status.connected_sockets, 2, 'sockets are counted per worker');

  const count = 60;
  for (let n = 0; n < count; n++) {
    const reply = await publish(n % 2 === 0 ? a.internalPort : b.internalPort, topic, { n });
    if (reply.status !== 200) t.fail(`publish ${n}: ${reply.status} ${reply.text}`);
  }
  for (const [i, client] of clients.entries()) {
    const seen: number[] = [];
    for (let k = 0; k < count; k++) {
      const frame = await client.next(3000);
      seen.push(((frame as { payload: Frame }).payload as { n: number }).n);
    }
    t.ok(await client.silentFor(i === 0 ? 300 : 0), `client ${i}: no duplicates`);
    const viaA = seen.filter((n) => n % 2 === 0);
    const viaB = seen.filter((n) => n % 2 === 1);
    t.same(viaA, [...viaA].sort((x, y) => x - y), `client ${i}: publishes through A keep their order`);
    t.same(viaB, [...viaB].sort((x, y) => x - y), `client ${i}: publishes through B keep their order`);
    t.same(
      seen.sort((x, y) => x - y),
      Array.from({ length: count }, (_, n) => n),
      `client ${i} received every publish once`,
    );
    client.close();
  }
});
