/**
 * Assembles the worker: registry (memory, or Redis with a local mirror),
 * fan-out (local, or relayed through Redis), the socket hub, and the two uWS
 * apps, each listening on its own port.
 */
import { randomBytes } from 'node:crypto';
import uWS from 'uWebSockets.js';
import type { Redis } from 'ioredis';
import { createLocalFanout, createRedisFanout, type Fanout } from './fanout.js';
import { mountInternalApi } from './internalApi.js';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type WorkerOptions } from './options.js';
import { connectRedis } from './redisConnection.js';
import { createRedisRegistry } from './redisRegistry.js';
import { createMemoryRegistry, type TopicRegistry } from './registry.js';
import { createSocketHub, type SocketData, type SocketHub } from './socketHub.js';
import { createStatusReporter, STATUS_TOPIC } from './status.js';
import { createRevocationList, type RevocationList } from './revocations.js';
import { applyRevocation, createLocalRevocationRelay, createRedisRevocationRelay, type RevocationRelay } from './revocationRelay.js';
import { createWsBehavior } from './wsHandler.js';
import { browserTokenKey, internalCallKey } from './workerKeys.js';

export interface RunningWorker {
  /** Actual ports (useful when 0 was asked for). */
  wsPort: number;
  internalPort: number;
  /** Sockets closed for staying backed up; exposed for monitoring and tests. */
  slowConsumersClosed(): number;
  close(): Promise<void>;
}

/** `close()` exists on uWS apps at run time but is missing from the bundled type declarations. */
type ClosableApp = uWS.TemplatedApp & { close(): void };

function listen(app: uWS.TemplatedApp, host: string | undefined, port: number, label: string): Promise<uWS.us_listen_socket> {
  return new Promise((resolve, reject) => {
    const done = (socket: uWS.us_listen_socket | false) => {
      if (socket) resolve(socket);
      else reject(new Error(`worker: cannot listen on ${host ?? '*'}:${port} (${label} port in use or not permitted)`));
    };
    if (host) app.listen(host, port, done);
    else app.listen(port, done);
  });
}

interface Cluster {
  registry: TopicRegistry;
  fanout: Fanout;
  relay: RevocationRelay;
  connections: Redis[];
}

async function joinCluster(options: ResolvedWorkerOptions, hub: SocketHub, revocations: RevocationList): Promise<Cluster> {
  const local = createMemoryRegistry(options.topicTtlSeconds);
  const deliver = hub.deliver;
  const { redisUrl, logger, redisPrefix } = options;
  const closeLocally = (topic: string): void => {
    const sockets = hub.closeTopic(topic);
    if (sockets > 0) logger.info('ws: closed the sockets of a closed topic', { topic, sockets });
  };
  const apply = applyRevocation(revocations, hub.closeMintedFrom, logger);
  if (!redisUrl) return { registry: local, fanout: createLocalFanout(deliver, closeLocally), relay: createLocalRevocationRelay(apply), connections: [] };

  const command = await connectRedis(redisUrl, 'command', logger);
  const subscriber = await connectRedis(redisUrl, 'subscriber', logger);
  const registry = createRedisRegistry(command, { prefix: redisPrefix, ttlSeconds: options.topicTtlSeconds, mirror: local, logger });
  const fanout = await createRedisFanout({ publisher: command, subscriber, channel: `${redisPrefix}events`, deliver, closeLocally, logger });
  const relay = await createRedisRevocationRelay({ command, subscriber, prefix: redisPrefix, apply, logger });
  return { registry, fanout, relay, connections: [command, subscriber] };
}

export async function startWorker(workerOptions: WorkerOptions): Promise<RunningWorker> {
  const options = resolveWorkerOptions(workerOptions);
  const { logger } = options;

  const wsApp = uWS.App() as ClosableApp;
  const internalApp = uWS.App() as ClosableApp;
  const hub = createSocketHub(wsApp, options);
  const revocations = createRevocationList();
  const { registry, fanout, relay, connections } = await joinCluster(options, hub, revocations);
  const status = createStatusReporter({ registry, hub, fanout });

  // The status topic is renewed well within its TTL so it never lapses.
  await registry.register(STATUS_TOPIC, { require_token: true });
  const renewEveryMs = Math.min(60 * 60 * 1000, (options.topicTtlSeconds * 1000) / 2);
  const renewStatusTopic = setInterval(() => {
    registry.register(STATUS_TOPIC, { require_token: true }).catch(() => {});
  }, renewEveryMs);
  renewStatusTopic.unref();

  const tokenKey = browserTokenKey(options.secret, options.derivedKeys);
  wsApp.ws<SocketData>('/ws', createWsBehavior({ ...options, tokenKey, registry, revocations, hub, status }));
  wsApp.any('/*', (res) => {
    res.writeStatus('404 Not Found').end('404 page not found\n');
  });
  const instanceId = randomBytes(8).toString('hex');
  mountInternalApi(internalApp, { internalKey: internalCallKey(options.secret, options.derivedKeys), instanceId, registry, fanout, revocations: relay, status, logger });

  async function shutdown(): Promise<void> {
    clearInterval(renewStatusTopic);
    hub.closeAll();
    wsApp.close();
    internalApp.close();
    for (const connection of connections) connection.disconnect();
    await registry.close();
  }

  let wsSocket: uWS.us_listen_socket;
  let internalSocket: uWS.us_listen_socket;
  try {
    wsSocket = await listen(wsApp, options.wsBind, options.wsPort, 'WebSocket');
    internalSocket = await listen(internalApp, options.internalBind, options.internalPort, 'internal');
  } catch (err) {
    await shutdown();
    throw err;
  }
  const ports = { wsPort: uWS.us_socket_local_port(wsSocket), internalPort: uWS.us_socket_local_port(internalSocket) };
  logger.info('worker listening', { ws_port: ports.wsPort, internal_port: ports.internalPort, cluster: connections.length > 0 });

  let closing: Promise<void> | undefined;
  return {
    ...ports,
    slowConsumersClosed: hub.slowConsumersClosed,
    close() {
      closing ??= shutdown().then(() => logger.info('worker stopped'));
      return closing;
    },
  };
}
