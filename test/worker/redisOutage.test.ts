import t from 'tap';
import { createBrowserToken } from '../../lib/worker/index.js';
import { freePort, startRedisServer, uniquePrefix } from '../helpers/redis.js';
import { callApi, connectClient, memoryLogger, publish, registerTopic, SECRET, startTestWorker, until, type LogLine } from '../helpers/worker.js';

const logged = (lines: LogLine[], message: RegExp) => lines.some((line) => message.test(line.message));

interface Status {
  status: string;
  cluster_nodes: number;
  connected_sockets: number;
}

async function statusOf(internalPort: number): Promise<Status> {
  return JSON.parse((await callApi(internalPort, 'GET', '/internal/status')).text) as Status;
}

const server = await startRedisServer();
const NO_SERVER = 'redis-server binary not installed; cannot stage a Redis outage';
if (!server) t.comment(`SKIP: ${NO_SERVER}`);

t.test('unreachable Redis at start-up: degraded, then the worker joins its cluster when Redis answers', { skip: server ? false : NO_SERVER }, async (t) => {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const prefix = uniquePrefix('late');
  const logger = memoryLogger();
  const a = await startTestWorker({ redisUrl: url, redisPrefix: prefix, logger });
  t.teardown(() => a.close());
  t.ok(logged(logger.lines, /redis unreachable at start-up; serving local sockets only until it answers/));
  t.match(await statusOf(a.internalPort), { status: 'degraded', cluster_nodes: -1 }, 'a worker without its cluster does not say ok');

  const redis = await startRedisServer(port);
  if (!redis) throw new Error('could not start redis-server');
  const b = await startTestWorker({ redisUrl: url, redisPrefix: prefix });
  t.teardown(async () => {
    await b.close();
    await redis.kill();
  });
  await until(async () => {
    const status = await statusOf(a.internalPort);
    return status.status === 'ok' && status.cluster_nodes === 2;
  }, 'the late worker to join');
  t.ok(logged(logger.lines, /redis connection restored/));

  const topic = 'radio.6';
  await registerTopic(b.internalPort, topic);
  const onA = await connectClient(a.wsPort, topic);
  onA.auth(createBrowserToken(SECRET, { userId: 9, topic, ttlSeconds: 60 }));
  t.same(await onA.next(), { type: 'auth_ok' });
  t.equal((await publish(b.internalPort, topic, 'through b')).status, 200);
  t.same(await onA.next(), { type: 'push', payload: 'through b' }, 'publishes through the other worker reach its browsers');
  onA.close();
});

t.test('losing Redis while running: local sockets keep working, cluster mode resumes after reconnect', { skip: server ? false : NO_SERVER }, async (t) => {
  if (!server) return;
  let current = server;
  const prefix = uniquePrefix('outage');
  const logA = memoryLogger();
  const logB = memoryLogger();
  const a = await startTestWorker({ redisUrl: server.url, redisPrefix: prefix, logger: logA });
  const b = await startTestWorker({ redisUrl: server.url, redisPrefix: prefix, logger: logB });
  t.teardown(async () => {
    await Promise.all([a.close(), b.close()]);
    await current.kill();
  });

  const topic = 'radio.5';
  const token = createBrowserToken(SECRET, { userId: 9, topic, ttlSeconds: 60 });
  await registerTopic(a.internalPort, topic);
  const onA = await connectClient(a.wsPort, topic);
  const onB = await connectClient(b.wsPort, topic);
  for (const client of [onA, onB]) {
    client.auth(token);
    t.same(await client.next(), { type: 'auth_ok' });
  }
  await publish(a.internalPort, topic, 'before');
  t.same(await onA.next(), { type: 'push', payload: 'before' });
  t.same(await onB.next(), { type: 'push', payload: 'before' });

  await server.kill();
  await until(() => logged(logA.lines, /redis connection lost/) && logged(logB.lines, /redis connection lost/), 'loss to be logged');

  // Both workers still know the topic (A registered it, B looked it up) and serve their own sockets.
  t.equal((await publish(a.internalPort, topic, 'during-a')).status, 200);
  t.same(await onA.next(), { type: 'push', payload: 'during-a' });
  t.equal((await publish(b.internalPort, topic, 'during-b')).status, 200);
  t.same(await onB.next(), { type: 'push', payload: 'during-b' });
  const status = await statusOf(a.internalPort);
  t.same({ status: status.status, nodes: status.cluster_nodes, sockets: status.connected_sockets }, { status: 'degraded', nodes: -1, sockets: 1 }, 'status still answers, degraded');
  // A browser can still connect to A meanwhile.
  const late = await connectClient(a.wsPort, topic);
  late.auth(token);
  t.same(await late.next(), { type: 'auth_ok' });

  const restarted = await startRedisServer(server.port);
  if (!restarted) throw new Error('could not restart redis-server on the same port');
  current = restarted;
  await until(() => logged(logA.lines, /redis connection restored/) && logged(logB.lines, /redis connection restored/), 'reconnection');
  await until(async () => (await statusOf(a.internalPort)).cluster_nodes === 2, 'both workers to resubscribe');
  t.equal((await statusOf(b.internalPort)).status, 'ok', 'no longer degraded');

  // The restarted Redis is empty: the application re-registers on 404, as it does after any worker restart.
  t.equal((await publish(a.internalPort, topic, 'x')).status, 404);
  await registerTopic(a.internalPort, topic);
  t.equal((await publish(a.internalPort, topic, 'after')).status, 200);
  t.same(await onA.next(), { type: 'push', payload: 'after' });
  t.same(await onB.next(), { type: 'push', payload: 'after' }, 'fan-out across workers is back');
  t.same(await late.next(), { type: 'push', payload: 'after' });
  for (const client of [onA, onB, late]) client.close();
});
