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
 * Revocations (an API token revoked: its browser tokens must stop working) are never dropped:
 * they go before publishes, and one that no worker took is tried again every `retryAfterMs`
 * until it lapses, so a worker that was down hears of it when it is back.
 *
 * A worker without Redis keeps revocations in memory only, so one that restarts forgets them.
 * Every worker names its run in a reply header (INSTANCE_HEADER, random per start); when the run
 * a worker answers with is not the one that was told every revocation still in force, it is told
 * them all again before anything else is sent. While revocations are in force, each worker is
 * also asked which run it is every `instanceCheckMs`, so a restart is noticed when nothing is
 * published. A revocation is kept only until its `until` (the browser-token lifetime).
 */
import type { Logger } from '../log.js';
import { createLogger } from '../log.js';
import { INSTANCE_HEADER } from '../worker/internalApi.js';
import { internalCallKey } from '../worker/workerKeys.js';

export interface PublisherOptions {
  /** Base URLs of the workers' internal ports (e.g. http://127.0.0.1:9001), most preferred first. */
  urls: readonly string[];
  secret: string;
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

/**
 * What the workers say about themselves: `ok` when every one answers `ok`, `down` when none
 * answers, else `degraded` (one is gone, or has lost its Redis cluster).
 */
export type LiveHealth = 'ok' | 'degraded' | 'down';

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

interface Worker {
  base: string;
  /** Date.now() before which this worker is passed over, after it failed. */
  downUntil: number;
  /** The run (INSTANCE_HEADER) the worker last answered from; undefined until it names one. */
  instance: string | undefined;
  /** The run that was told every revocation in force: a worker answering from another one is told again. */
  informed: string | undefined;
}

const LOG_EVERY_MS = 10_000;
/** The status endpoint needs no token: a flood of it must not become a flood of worker calls. */
const HEALTH_CACHE_MS = 2000;
/** Topics registered without token requirement, remembered so a re-registration keeps that choice. */
const MAX_REMEMBERED_PUBLIC_TOPICS = 10_000;

function revocationBody(tokenId: number, until: number): string {
  return JSON.stringify({ token_id: tokenId, until });
}

/** Drops the revocations whose `until` has passed: no browser token they concern is valid any more. */
function forgetLapsed(revocations: Map<number, number>): void {
  const now = Date.now() / 1000;
  for (const [tokenId, until] of revocations) if (until < now) revocations.delete(tokenId);
}

export function createPublisher(options: PublisherOptions): Publisher {
  const { urls, secret, timeoutMs = 1000, retryAfterMs = 5000, maxQueue = 1000, instanceCheckMs = 2000, logger } = options;
  if (urls.length === 0) throw new Error('live updates: no worker url');
  const log = logger ?? createLogger({ component: 'live-publisher' });
  const workers: Worker[] = urls.map((url) => ({ base: url.replace(/\/+$/, ''), downUntil: 0, instance: undefined, informed: undefined }));
  // The internal-call key, never the secret: what travels on the internal network cannot sign browser tokens.
  const headers = { 'Content-Type': 'application/json', 'X-Worker-Secret': internalCallKey(secret) };
  const queue: Pending[] = [];
  /** Token id → until, for revocations no worker has taken yet. */
  const revocations = new Map<number, number>();
  /** Token id → until, for every revocation in force: what a worker that restarted is told again. */
  const recent = new Map<number, number>();
  let checkingInstances = false;
  let retryTimer: NodeJS.Timeout | undefined;
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

  /** The workers to try, in order: those not passed over, or every one when all are. */
  function candidates(): Worker[] {
    const now = Date.now();
    const up = workers.filter((worker) => worker.downUntil <= now);
    return up.length > 0 ? up : workers;
  }

  /** Notes which run of the worker answered (a worker that names none, like the original, is never told again). */
  function observe(worker: Worker, res: Response): void {
    const instance = res.headers.get(INSTANCE_HEADER);
    if (instance === null) return;
    worker.downUntil = 0;
    worker.instance = instance;
    if (recent.size === 0) worker.informed = instance;
  }

  /** A worker that answers from a run that was not told every revocation in force (it restarted). */
  function uninformed(worker: Worker): boolean {
    return worker.instance !== worker.informed && worker.downUntil <= Date.now();
  }

  /** One request to one worker; a worker that fails is passed over for `retryAfterMs`. */
  async function postTo(worker: Worker, path: string, body: string): Promise<{ status: number; text: string }> {
    try {
      const res = await fetch(worker.base + path, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
      const text = (await res.text()).trim();
      worker.downUntil = 0;
      observe(worker, res);
      return { status: res.status, text };
    } catch (err) {
      worker.downUntil = Date.now() + retryAfterMs;
      throw err;
    }
  }

  /** Sends to the first worker that answers; throws the last failure when none does. */
  async function post(path: string, body: string): Promise<{ status: number; text: string }> {
    let failure: unknown;
    for (const worker of candidates()) {
      try {
        return await postTo(worker, path, body);
      } catch (err) {
        failure = err;
        if (workers.length > 1) complain('live updates: worker unreachable, trying the next', { worker: worker.base, error: (err as Error).message });
      }
    }
    throw failure;
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

  async function workerStatus(worker: Worker): Promise<string | null> {
    try {
      const res = await fetch(`${worker.base}/internal/status`, { headers, signal: AbortSignal.timeout(timeoutMs) });
      observe(worker, res);
      if (res.status !== 200) return null;
      const body = (await res.json()) as { status?: unknown };
      return typeof body.status === 'string' ? body.status : null;
    } catch {
      return null;
    }
  }

  async function askWorkers(): Promise<LiveHealth> {
    const answers = await Promise.all(workers.map(workerStatus));
    if (answers.every((answer) => answer === 'ok')) return 'ok';
    return answers.every((answer) => answer === null) ? 'down' : 'degraded';
  }

  /** Asks each worker which run it is; a restart found is handled by the pump. */
  async function checkInstances(): Promise<void> {
    if (checkingInstances) return;
    checkingInstances = true;
    forgetLapsed(recent);
    await Promise.all(workers.map(async (worker) => {
      try {
        const res = await fetch(`${worker.base}/internal/instance`, { headers, signal: AbortSignal.timeout(timeoutMs) });
        await res.arrayBuffer();
        observe(worker, res);
      } catch {
        // Down: the next check, or the next request, finds out when it is back.
      }
    }));
    checkingInstances = false;
    if (workers.some(uninformed)) kick();
  }

  const instanceCheck = setInterval(() => {
    if (recent.size > 0) void checkInstances();
  }, instanceCheckMs);
  instanceCheck.unref();

  /** Tells a worker that (re)started every revocation in force; false when it did not take them all. */
  async function inform(worker: Worker): Promise<boolean> {
    const run = worker.instance;
    forgetLapsed(recent);
    for (const [tokenId, until] of [...recent]) {
      try {
        const { status, text } = await postTo(worker, '/internal/revoke', revocationBody(tokenId, until));
        if (status !== 200) {
          complain('live updates: restarted worker refused a revocation', { worker: worker.base, token_id: tokenId, status, response: text });
          return false;
        }
      } catch (err) {
        complain('live updates: restarted worker unreachable, revocations kept for a retry', { worker: worker.base, error: (err as Error).message });
        return false;
      }
      // Restarted again meanwhile: the new run needs them all.
      if (worker.instance !== run) return false;
    }
    worker.informed = run;
    log.info('live updates: a worker (re)started; revocations in force sent again', { worker: worker.base, revocations: recent.size });
    return true;
  }

  async function sendRevocations(): Promise<void> {
    let behind = false;
    for (const worker of workers) if (uninformed(worker) && !(await inform(worker))) behind = true;
    for (const [tokenId, until] of [...revocations]) {
      if (until < Date.now() / 1000) {
        revocations.delete(tokenId);
        continue;
      }
      try {
        const { status, text } = await post('/internal/revoke', revocationBody(tokenId, until));
        if (status === 200) {
          revocations.delete(tokenId);
          continue;
        }
        complain('live updates: worker refused revocation', { token_id: tokenId, status, response: text });
      } catch (err) {
        complain('live updates: worker unreachable, revocation kept for a retry', { token_id: tokenId, error: (err as Error).message });
      }
    }
    if ((behind || revocations.size > 0) && !closed && retryTimer === undefined) {
      retryTimer = setTimeout(() => {
        retryTimer = undefined;
        kick();
      }, retryAfterMs);
      retryTimer.unref();
    }
  }

  async function pump(): Promise<void> {
    for (;;) {
      // Checked before every publish: a revocation (or its retry, when the timer fired) goes first.
      if ((revocations.size > 0 || workers.some(uninformed)) && retryTimer === undefined) await sendRevocations();
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
      if (closed) return;
      revocations.set(tokenId, Math.max(until, revocations.get(tokenId) ?? 0));
      recent.set(tokenId, Math.max(until, recent.get(tokenId) ?? 0));
      kick();
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
      return { ...stats, queued: queue.length, revocations: recent.size };
    },

    health() {
      const now = Date.now();
      if (health === undefined || now - health.at >= HEALTH_CACHE_MS) health = { at: now, answer: askWorkers() };
      return health.answer;
    },

    async close() {
      closed = true;
      clearTimeout(retryTimer);
      clearInterval(instanceCheck);
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
