/**
 * Application-side client of the worker's internal API. The worker is
 * optional, so publishing must never fail or slow a request: `publish` only
 * appends to a bounded queue (dropping the oldest entry when full) and returns;
 * one background loop sends in order with a short timeout per request. A 404
 * "topic not registered" (worker restarted, or the registration's TTL lapsed)
 * is answered by registering the topic and retrying once, as the original
 * application does.
 *
 * With several workers (sharing Redis, so any one of them reaches every
 * browser), a worker that cannot be reached or does not answer in time is
 * skipped for `retryAfterMs` and the same request goes to the next one: one
 * worker's death loses no event. A request that timed out may still have been
 * delivered, so a failover can deliver an event twice, never zero times while
 * a worker is up.
 *
 * Revocations (an API token revoked: its browser tokens must stop working) go before publishes
 * and are never dropped (revocationSender.ts). The workers, their failover and the runs they
 * answer from: workerSet.ts.
 */
import type { Logger } from '../log.js';
import { createLogger } from '../log.js';
import { RevocationSender } from './revocationSender.js';
import { WorkerSet, type LiveHealth } from './workerSet.js';

export type { LiveHealth } from './workerSet.js';

export interface PublisherOptions {
  /** Base URLs of the workers' internal ports (e.g. http://127.0.0.1:9001), most preferred first. */
  urls: readonly string[];
  secret: string;
  /** `worker.derived_keys` (lib/worker/workerKeys.ts). Default false: the secret itself, as the original's. */
  derivedKeys?: boolean;
  /** Per-request limit, connection and response included. Default 1000. */
  timeoutMs?: number;
  /** How long a worker that failed is passed over before it is tried again. Default 5000. */
  retryAfterMs?: number;
  /** Publishes waiting to be sent; beyond this the oldest are dropped. Default 1000. */
  maxQueue?: number;
  /** While revocations are in force, how often each worker is asked whether it restarted. Default 2000. */
  instanceCheckMs?: number;
  logger?: Logger;
}

export interface PublisherStats {
  sent: number;
  failed: number;
  dropped: number;
  queued: number;
  /** Revocations in force, kept to tell a worker that restarts. */
  revocations: number;
}

export interface Publisher {
  /** Queues a payload for the topic's browsers. Never throws, never waits. */
  publish(topic: string, payload: unknown): void;
  /**
   * Tells the workers that browser tokens minted from this API token are void, up to `until`
   * (unix seconds; the last second such a token can be valid). Never throws, never waits.
   */
  revoke(tokenId: number, until: number): void;
  /** Registers a topic (default: browsers need a token). Never rejects; failures are logged. */
  register(topic: string, requireToken?: boolean): Promise<void>;
  /** Unregisters a topic and closes its sockets on every worker at once. Never rejects; failures are logged. */
  closeTopic(topic: string): Promise<void>;
  stats(): PublisherStats;
  /** Asks every worker for its status (at most once per HEALTH_CACHE_MS). Never rejects. */
  health(): Promise<LiveHealth>;
  /** Sends what is queued, for at most `timeoutMs`, then drops the rest. */
  close(): Promise<void>;
}

interface Pending {
  topic: string;
  body: string;
}

const LOG_EVERY_MS = 10_000;
/** The status endpoint needs no token: a flood of it must not become a flood of worker calls. */
const HEALTH_CACHE_MS = 2000;
/** Topics registered without token requirement, remembered so a re-registration keeps that choice. */
const MAX_REMEMBERED_PUBLIC_TOPICS = 10_000;

export function createPublisher(options: PublisherOptions): Publisher {
  const { urls, secret, derivedKeys = false, timeoutMs = 1000, retryAfterMs = 5000, maxQueue = 1000, instanceCheckMs = 2000, logger } = options;
  const log = logger ?? createLogger({ component: 'live-publisher' });
  const queue: Pending[] = [];
  const publicTopics = new Set<string>();
  const stats = { sent: 0, failed: 0, dropped: 0 };
  let pumping: Promise<void> | undefined;
  let health: { at: number; answer: Promise<LiveHealth> } | undefined;
  let closed = false;
  let loggedAt = 0;

  /** At most one line per interval, so a dead worker does not flood the log. */
  function complain(message: string, fields: Record<string, unknown>): void {
    const now = Date.now();
    if (now - loggedAt < LOG_EVERY_MS) return;
    loggedAt = now;
    log.warn(message, { ...fields, sent: stats.sent, failed: stats.failed, dropped: stats.dropped });
  }

  // Each needs the other: the workers ask whether revocations are in force, the revocations go to the workers.
  const workers: WorkerSet = new WorkerSet({ urls, secret, derivedKeys, timeoutMs, retryAfterMs, complain, revocationsInForce: (): boolean => revocations.count > 0 });
  const revocations: RevocationSender = new RevocationSender(workers, { retryAfterMs, instanceCheckMs, log, complain, kick });

  async function registerTopic(topic: string, requireToken: boolean): Promise<boolean> {
    try {
      const { status, text } = await workers.post('/internal/register', JSON.stringify({ topic, meta: { require_token: requireToken } }));
      if (status === 200) return true;
      complain('live updates: worker refused registration', { topic, status, response: text });
    } catch (err) {
      complain('live updates: worker unreachable', { topic, error: (err as Error).message });
    }
    return false;
  }

  async function send(item: Pending): Promise<void> {
    try {
      let reply = await workers.post('/internal/publish', item.body);
      if (reply.status === 404 && reply.text === 'topic not registered') {
        if (await registerTopic(item.topic, !publicTopics.has(item.topic))) reply = await workers.post('/internal/publish', item.body);
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
    for (;;) {
      // Checked before every publish: a revocation (or its retry, when the timer fired) goes first.
      if (revocations.due()) await revocations.send();
      const item = queue.shift();
      if (!item) break;
      await send(item);
    }
    pumping = undefined;
  }

  /** Sending starts on a later turn of the event loop, never inside the caller's. */
  function kick(): void {
    pumping ??= new Promise<void>((resolve) => setImmediate(resolve)).then(pump);
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
      kick();
    },

    revoke(tokenId, until) {
      revocations.add(tokenId, until);
    },

    async register(topic, requireToken = true) {
      if (requireToken) publicTopics.delete(topic);
      else {
        if (publicTopics.size >= MAX_REMEMBERED_PUBLIC_TOPICS) publicTopics.clear();
        publicTopics.add(topic);
      }
      await registerTopic(topic, requireToken);
    },

    async closeTopic(topic) {
      // Forgotten first: a publish still queued for it re-registers it token-only, which no anonymous page can join.
      publicTopics.delete(topic);
      try {
        const { status, text } = await workers.post('/internal/unregister', JSON.stringify({ topic, close_sockets: true }));
        if (status !== 200) complain('live updates: worker refused to close a topic', { topic, status, response: text });
      } catch (err) {
        complain('live updates: worker unreachable', { topic, error: (err as Error).message });
      }
    },

    stats() {
      return { ...stats, queued: queue.length, revocations: revocations.count };
    },

    health() {
      const now = Date.now();
      if (health === undefined || now - health.at >= HEALTH_CACHE_MS) health = { at: now, answer: workers.health() };
      return health.answer;
    },

    async close() {
      closed = true;
      revocations.close();
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
