/**
 * Cluster-wide topic registry in Redis: key `<prefix>topic:<topic>` holds
 * `{"require_token":bool}` with the topic TTL, so every worker sees every
 * registration. Listing uses SCAN, never KEYS, which would block Redis.
 *
 * Registrations made through this worker, and topics it has recently looked
 * up, are mirrored in a local registry which answers while Redis is
 * unreachable, so local sockets and publishes keep working.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import type { TopicMeta, TopicRegistry } from './registry.js';

const SCAN_BATCH = 1000;

function parseMeta(raw: string): TopicMeta | null {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return null;
    return { require_token: (value as Record<string, unknown>).require_token === true };
  } catch {
    return null;
  }
}

export function createRedisRegistry(
  redis: Redis,
  { prefix, ttlSeconds, mirror, logger }: { prefix: string; ttlSeconds: number; mirror: TopicRegistry; logger: Logger },
): TopicRegistry {
  const keyPrefix = `${prefix}topic:`;
  const ttlMs = Math.max(1, Math.round(ttlSeconds * 1000));
  let warnedAt = 0;

  // One line per outage-ish period, not one per request.
  function degraded(operation: string, err: unknown): void {
    const now = Date.now();
    if (now - warnedAt < 10_000) return;
    warnedAt = now;
    logger.warn('topic registry: redis unavailable, using this worker\'s own registrations', {
      operation,
      error: (err as Error).message,
    });
  }

  async function scanTopics(): Promise<string[]> {
    const topics: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', SCAN_BATCH);
      for (const key of keys) topics.push(key.slice(keyPrefix.length));
      cursor = next;
    } while (cursor !== '0');
    return topics;
  }

  return {
    async register(topic, meta) {
      await mirror.register(topic, meta);
      try {
        await redis.set(keyPrefix + topic, JSON.stringify({ require_token: meta.require_token }), 'PX', ttlMs);
      } catch (err) {
        degraded('register', err);
      }
    },
    async unregister(topic) {
      await mirror.unregister(topic);
      try {
        await redis.del(keyPrefix + topic);
      } catch (err) {
        degraded('unregister', err);
      }
    },
    async lookup(topic) {
      let raw: string | null;
      try {
        raw = await redis.get(keyPrefix + topic);
      } catch (err) {
        degraded('lookup', err);
        return mirror.lookup(topic);
      }
      const meta = raw === null ? null : parseMeta(raw);
      // Keep the mirror current so that an outage does not forget topics other workers registered.
      if (meta) await mirror.register(topic, meta);
      else await mirror.unregister(topic);
      return meta;
    },
    async count() {
      try {
        return (await scanTopics()).length;
      } catch (err) {
        degraded('count', err);
        return mirror.count();
      }
    },
    async list() {
      try {
        return await scanTopics();
      } catch (err) {
        degraded('list', err);
        return mirror.list();
      }
    },
    async close() {
      await mirror.close();
    },
  };
}
