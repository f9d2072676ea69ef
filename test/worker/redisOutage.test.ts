import t from 'tap';
import { createBrowserToken } from '../../lib/worker/index.js';
import { startRedisServer, uniquePrefix } from '../helpers/redis.js';
import { callApi, connectClient, memoryLogger, publish, registerTopic, SECRET, startTestWorker, type LogLine } from '../helpers/worker.js';

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const logged = (lines: LogLine[], message: RegExp) => lines.some((line) => message.test(line.message));

t.test('unreachable Redis at start-up: single-instance with a warning', async (t) => {
  const logger = memoryLogger();
  // Port 1 is never a Redis server.
  const worker = await startTestWorker({ redisUrl: 'redis://127.0.0.1:1', logger });
  t.teardown(() => worker.close());
  t.ok(logged(logger.lines, /redis unreachable at start-up; running single-instance/));
  const status = JSON.parse((await callApi(worker.internalPort, 'GET', '/internal/status')).text) as { cluster_nodes: number };
  t.equal(status.cluster_nodes, -1);
});

const server = await startRedisServer();
const NO_SERVER = 'redis-server binary not installed; cannot stage a Redis outage';
if (!server) t.comment(`SKIP: ${NO_SERVER}`);

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
  const status = JSON.parse((await callApi(a.internalPort, 'GET', '/internal/status')).text) as { cluster_nodes: number; connected_sockets: number };
  t.same({ nodes: status.cluster_nodes, sockets: status.connected_sockets }, { nodes: -1, sockets: 1 }, 'status still answers');
  // A browser can still connect to A meanwhile.
  const late = await connectClient(a.wsPort, topic);
  late.auth(token);
  t.same(await late.next(), { type: 'auth_ok' });

  const restarted = await startRedisServer(server.port);
  if (!restarted) throw new Error('could not restart redis-server on the same port');
  current = restarted;
  await until(() => logged(logA.lines, /redis connection restored/) && logged(logB.lines, /redis connection restored/), 'reconnection');
  await until(async () => {
    const s = JSON.parse((await callApi(a.internalPort, 'GET', '/internal/status')).text) as { cluster_nodes: number };
    return s.cluster_nodes === 2;
  }, 'both workers to resubscribe');

  // The restarted Redis is empty: the application re-registers on 404, as it does after any worker restart.
  t.equal((await publish(a.internalPort, topic, 'x')).status, 404);
  await registerTopic(a.internalPort, topic);
  t.equal((await publish(a.internalPort, topic, 'after')).status, 200);
  t.same(await onA.next(), { type: 'push', payload: 'after' });
  t.same(await onB.next(), { type: 'push', payload: 'after' }, 'fan-out across workers is back');
  t.same(await late.next(), { type: 'push', payload: 'after' });
  for (const client of [onA, onB, late]) client.close();
});
