/**
 * Redis connections for cluster mode. Commands fail fast while the connection
 * is down (no offline queue, short command timeout) so that a Redis outage
 * degrades the worker to single-instance behaviour instead of stalling it;
 * ioredis keeps reconnecting in the background with a capped back-off, from
 * start-up on.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../log.js';

const CONNECT_TIMEOUT_MS = 2000;
const COMMAND_TIMEOUT_MS = 1000;
const MAX_RECONNECT_DELAY_MS = 5000;

function reconnectDelay(attempt: number): number {
  return Math.min(100 * 2 ** Math.min(attempt, 10), MAX_RECONNECT_DELAY_MS);
}

/**
 * Opens one connection. When Redis does not answer at start-up the connection is returned all
 * the same: ioredis keeps reconnecting, and the worker joins its cluster when Redis answers
 * (meanwhile commands fail fast and the worker reports itself degraded). `role` only labels log
 * lines.
 */
export async function connectRedis(url: string, role: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: reconnectDelay,
  });
  const log = logger.child({ redis: role });
  // Without an 'error' listener ioredis would print every failed reconnect attempt.
  let lastError = '';
  redis.on('error', (err: Error) => {
    lastError = err.message;
  });
  let lost = false;
  try {
    await redis.connect();
  } catch (err) {
    lost = true;
    log.warn('redis unreachable at start-up; serving local sockets only until it answers', { error: lastError || (err as Error).message });
  }
  redis.on('close', () => {
    if (lost || redis.status === 'end') return;
    lost = true;
    log.warn('redis connection lost; serving local sockets only while reconnecting', { error: lastError });
  });
  redis.on('ready', () => {
    if (!lost) return;
    lost = false;
    log.info('redis connection restored');
  });
  return redis;
}
