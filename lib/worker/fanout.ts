/**
 * Fan-out of publishes: to this worker's sockets, and in cluster mode to every
 * other worker through Redis Pub/Sub. A publish is delivered locally first and
 * then relayed in an envelope `{origin_id, topic, payload}`; each worker skips
 * envelopes carrying its own origin id, so every socket in the cluster receives
 * each publish exactly once whichever worker the application called. Closing a topic's sockets
 * (unregister with close_sockets) travels the same way, as `{origin_id, topic, close: true}`.
 * The Redis connections belong to the caller, which closes them.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';

/** Hands a publish to this worker's sockets; `payloadJson` is the payload already serialised. */
export type DeliverLocally = (topic: string, payloadJson: string) => void;
/** Closes this worker's sockets of a topic. */
export type CloseLocally = (topic: string) => void;

export interface Fanout {
  publish(topic: string, payloadJson: string): void;
  /** Closes the topic's sockets on every worker. */
  closeTopic(topic: string): void;
  /** Workers subscribed to the channel, or -1 in single-instance mode (or while Redis is unreachable). */
  clusterNodes(): Promise<number>;
  /** False while a cluster worker is cut off from Redis: its sockets then miss other workers' publishes. */
  connected(): boolean;
}

export function createLocalFanout(deliver: DeliverLocally, closeLocally: CloseLocally): Fanout {
  return {
    publish: deliver,
    closeTopic: closeLocally,
    clusterNodes: async () => -1,
    connected: () => true,
  };
}

type Envelope = { origin_id: string; topic: string } & ({ payload: unknown } | { close: true });

function parseEnvelope(message: string): Envelope | null {
  try {
    const value: unknown = JSON.parse(message);
    if (typeof value !== 'object' || value === null) return null;
    const env = value as Record<string, unknown>;
    if (typeof env.origin_id !== 'string' || typeof env.topic !== 'string') return null;
    if (env.close === true) return { origin_id: env.origin_id, topic: env.topic, close: true };
    return 'payload' in env ? { origin_id: env.origin_id, topic: env.topic, payload: env.payload } : null;
  } catch {
    return null;
  }
}

export async function createRedisFanout({
  publisher,
  subscriber,
  channel,
  deliver,
  closeLocally,
  logger,
}: {
  /** Connection for PUBLISH and PUBSUB; may be shared with the registry. */
  publisher: Redis;
  /** Dedicated connection: a subscribed Redis connection accepts no other commands. */
  subscriber: Redis;
  channel: string;
  deliver: DeliverLocally;
  closeLocally: CloseLocally;
  logger: Logger;
}): Promise<Fanout> {
  const originId = randomBytes(8).toString('hex');
  let warnedAt = 0;

  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel) return;
    const env = parseEnvelope(message);
    if (!env) {
      logger.warn('cluster: malformed envelope ignored');
      return;
    }
    if (env.origin_id === originId) return;
    if ('close' in env) closeLocally(env.topic);
    else deliver(env.topic, JSON.stringify(env.payload));
  });
  // ioredis subscribes again by itself after a reconnection, but only to channels it once
  // subscribed to: a worker that started while Redis was down subscribes when it first answers.
  let subscribed = false;
  const subscribe = async (): Promise<void> => {
    try {
      await subscriber.subscribe(channel);
      subscribed = true;
      logger.info('cluster mode: relaying publishes through redis', { channel, origin_id: originId });
    } catch (err) {
      logger.warn('cluster: subscribing failed; retrying when redis answers again', { error: (err as Error).message });
    }
  };
  subscriber.on('ready', () => {
    if (!subscribed) void subscribe();
  });
  if (subscriber.status === 'ready') await subscribe();

  const relay = (envelope: string): void => {
    publisher.publish(channel, envelope).catch((err: Error) => {
      const now = Date.now();
      if (now - warnedAt < 10_000) return;
      warnedAt = now;
      logger.warn('cluster: relay to other workers failed; delivered locally only', { error: err.message });
    });
  };

  return {
    publish(topic, payloadJson) {
      deliver(topic, payloadJson);
      relay(`{"origin_id":"${originId}","topic":${JSON.stringify(topic)},"payload":${payloadJson}}`);
    },
    closeTopic(topic) {
      closeLocally(topic);
      relay(JSON.stringify({ origin_id: originId, topic, close: true }));
    },
    async clusterNodes() {
      try {
        const reply = (await publisher.pubsub('NUMSUB', channel)) as [string, number];
        return Number(reply[1]);
      } catch {
        return -1;
      }
    },
    connected: () => subscribed && subscriber.status === 'ready' && publisher.status === 'ready',
  };
}
