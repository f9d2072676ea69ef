/**
 * Application-side client of the worker's internal API. The worker is
 * optional, so publishing must never fail or slow a request: `publish` only
 * appends to a bounded queue (dropping the oldest entry when full) and returns;
 * one background loop sends in order with a short timeout per request. A 404
 * "topic not registered" (worker restarted, or the registration's TTL lapsed)
 * is answered by registering the topic and retrying once, as the original
 * application does.
 */
import type { Logger } from '../log.js';
import { createLogger } from '../log.js';

export interface PublisherOptions {
  /** Base URL of the worker's internal port, e.g. http://127.0.0.1:9001. */
  url: string;
  secret: string;
  /** Per-request limit, connection and response included. Default 1000. */
  timeoutMs?: number;
  /** Publishes waiting to be sent; beyond this the oldest are dropped. Default 1000. */
  maxQueue?: number;
  logger?: Logger;
}

export interface PublisherStats {
  sent: number;
  failed: number;
  dropped: number;
  queued: number;
}

export interface Publisher {
  /** Queues a payload for the topic's browsers. Never throws, never waits. */
  publish(topic: string, payload: unknown): void;
  /** Registers a topic (default: browsers need a token). Never rejects; failures are logged. */
  register(topic: string, requireToken?: boolean): Promise<void>;
  stats(): PublisherStats;
  /** Sends what is queued, for at most `timeoutMs`, then drops the rest. */
  close(): Promise<void>;
}

interface Pending {
  topic: string;
  body: string;
}

const LOG_EVERY_MS = 10_000;
/** Topics registered without token requirement, remembered so a re-registration keeps that choice. */
const MAX_REMEMBERED_PUBLIC_TOPICS = 10_000;

export function createPublisher({ url, secret, timeoutMs = 1000, maxQueue = 1000, logger }: PublisherOptions): Publisher {
  const log = logger ?? createLogger({ component: 'live-publisher' });
  const base = url.replace(/\/+$/, '');
  const headers = { 'Content-Type': 'application/json', 'X-Worker-Secret': secret };
  const queue: Pending[] = [];
  const publicTopics = new Set<string>();
  const stats = { sent: 0, failed: 0, dropped: 0 };
  let pumping: Promise<void> | undefined;
  let closed = false;
  let loggedAt = 0;

  /** At most one line per interval, so a dead worker does not flood the log. */
  function complain(message: string, fields: Record<string, unknown>): void {
    const now = Date.now();
    if (now - loggedAt < LOG_EVERY_MS) return;
    loggedAt = now;
    log.warn(message, { ...fields, sent: stats.sent, failed: stats.failed, dropped: stats.dropped });
  }

  async function post(path: string, body: string): Promise<{ status: number; text: string }> {
    const res = await fetch(base + path, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, text: (await res.text()).trim() };
  }

  async function registerTopic(topic: string, requireToken: boolean): Promise<boolean> {
    try {
      const { status, text } = await post('/internal/register', JSON.stringify({ topic, meta: { require_token: requireToken } }));
      if (status === 200) return true;
      complain('live updates: worker refused registration', { topic, status, response: text });
    } catch (err) {
      complain('live updates: worker unreachable', { topic, error: (err as Error).message });
    }
    return false;
  }

  async function send(item: Pending): Promise<void> {
    try {
      let reply = await post('/internal/publish', item.body);
      if (reply.status === 404 && reply.text === 'topic not registered') {
        if (await registerTopic(item.topic, !publicTopics.has(item.topic))) reply = await post('/internal/publish', item.body);
      }
      if (reply.status === 200) {
        stats.sent++;
        return;
      }
      stats.failed++;
      complain('live updates: worker refused publish', { topic: item.topic, status: reply.status, response: reply.text });
    } catch (err) {
      stats.failed++;
      complain('live updates: worker unreachable', { topic: item.topic, error: (err as Error).message });
    }
  }

  async function pump(): Promise<void> {
    for (let item = queue.shift(); item; item = queue.shift()) await send(item);
    pumping = undefined;
  }

  return {
    publish(topic, payload) {
      if (closed) return;
      let body: string;
      try {
        body = JSON.stringify({ topic, payload: payload ?? null });
      } catch (err) {
        stats.failed++;
        log.warn('live updates: payload is not serialisable', { topic, error: (err as Error).message });
        return;
      }
      queue.push({ topic, body });
      if (queue.length > maxQueue) {
        queue.shift();
        stats.dropped++;
        complain('live updates: queue full, oldest publish dropped', { max_queue: maxQueue });
      }
      // Sending starts on a later turn of the event loop, never inside the caller's.
      pumping ??= new Promise<void>((resolve) => setImmediate(resolve)).then(pump);
    },

    async register(topic, requireToken = true) {
      if (requireToken) publicTopics.delete(topic);
      else {
        if (publicTopics.size >= MAX_REMEMBERED_PUBLIC_TOPICS) publicTopics.clear();
        publicTopics.add(topic);
      }
      await registerTopic(topic, requireToken);
    },

    stats() {
      return { ...stats, queued: queue.length };
    },

    async close() {
      closed = true;
      if (!pumping) return;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([pumping, deadline]);
      clearTimeout(timer);
      stats.dropped += queue.length;
      queue.length = 0;
    },
  };
}
