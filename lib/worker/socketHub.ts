/**
 * The worker's open WebSockets: who is subscribed to what, counts for the
 * status report, push delivery, and the slow-consumer policy.
 *
 * Delivery uses uWS topics (`app.publish`): the push frame is serialised once
 * per publish and uWS writes the same bytes to every subscriber. uWS also
 * enforces the per-socket limit: a frame for a socket whose queue already
 * exceeds `maxBackpressure` is dropped for that socket only. Dropping alone
 * would leave a stuck client subscribed forever, so a sweep closes any socket
 * whose queue has stayed above half the limit for `slowConsumerTimeoutMs`.
 *
 * The same sweep closes the sockets whose browser token has expired (token_expired, 1008): a
 * token grants a topic until its `expires`, not for as long as the socket lasts. Sockets are
 * filed by expiry second (./expiryIndex.ts), so the sweep never walks every socket for that.
 */
import type { TemplatedApp, WebSocket } from 'uWebSockets.js';
import type { Logger } from '../log.js';
import { createExpiryIndex } from './expiryIndex.js';
import type { TopicMeta } from './registry.js';

export interface SocketData {
  topic: string;
  /** Topic registration as looked up at upgrade time. */
  meta: TopicMeta;
  ip: string;
  authenticated: boolean;
  /** 0 for anonymous sockets (topics registered without require_token). */
  userId: number;
  /** The API token its browser token was minted from; 0 when none is named. */
  tokenId: number;
  /** Unix second after which its browser token is expired; 0 for anonymous sockets (never). */
  expires: number;
  closed: boolean;
  authTimer: NodeJS.Timeout | undefined;
  /** When the socket's queue last rose above the slow-consumer threshold; 0 when it is not backed up. */
  backedUpSince: number;
  lastStatusAt: number;
}

export type WorkerSocket = WebSocket<SocketData>;

export interface HubStats {
  activeTopics: number;
  connectedClients: number;
  connectedSockets: number;
}

export interface SocketHub {
  /** Tracks a socket from open, so shutdown can close it even before it authenticates. */
  opened(ws: WorkerSocket): void;
  /** Subscribes an authenticated socket to its topic. */
  subscribe(ws: WorkerSocket): void;
  closed(ws: WorkerSocket): void;
  deliver(topic: string, payloadJson: string): void;
  /** Closes the sockets authenticated with browser tokens minted from this API token; returns how many. */
  closeMintedFrom(tokenId: number): number;
  /** Closes every socket of the topic, authenticated or not (it was unregistered with close_sockets); returns how many. */
  closeTopic(topic: string): number;
  stats(): HubStats;
  activeTopicList(): string[];
  /** Sockets closed by the slow-consumer sweep since start. */
  slowConsumersClosed(): number;
  closeAll(): void;
}

/** Policy violation: the socket's authorisation was withdrawn. */
const CLOSE_POLICY = 1008;
const REVOKED = JSON.stringify({ type: 'error', code: 'token_revoked', message: 'the API token this browser token came from was revoked' });
const UNREGISTERED = JSON.stringify({ type: 'error', code: 'topic_closed', message: 'this topic was closed; it may not come back' });
const EXPIRED = JSON.stringify({ type: 'error', code: 'token_expired', message: 'the browser token expired; connect again with a fresh one' });

function increment<K>(map: Map<K, number>, key: K, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next <= 0) map.delete(key);
  else map.set(key, next);
}

export function createSocketHub(
  app: TemplatedApp,
  { maxBackpressureBytes, slowConsumerTimeoutMs, logger }: { maxBackpressureBytes: number; slowConsumerTimeoutMs: number; logger: Logger },
): SocketHub {
  const sockets = new Set<WorkerSocket>();
  const subscribed = new Set<WorkerSocket>();
  const perTopic = new Map<string, number>();
  const perUser = new Map<number, number>();
  let anonymous = 0;
  let slowClosed = 0;
  const byExpiry = createExpiryIndex<WorkerSocket>();

  function closeExpired(now: number): void {
    const expired = byExpiry.takeExpired(Math.floor(now / 1000));
    for (const ws of expired) {
      ws.send(EXPIRED, false, false);
      ws.end(CLOSE_POLICY, 'token expired');
    }
    if (expired.length > 0) logger.info('ws: closed sockets whose browser token expired', { sockets: expired.length });
  }

  const backedUpThreshold = maxBackpressureBytes / 2;
  const sweep = setInterval(() => {
    const now = Date.now();
    closeExpired(now);
    for (const ws of subscribed) {
      const data = ws.getUserData();
      if (ws.getBufferedAmount() < backedUpThreshold) {
        data.backedUpSince = 0;
      } else if (data.backedUpSince === 0) {
        data.backedUpSince = now;
      } else if (now - data.backedUpSince >= slowConsumerTimeoutMs) {
        slowClosed++;
        logger.warn('ws: closing slow consumer', { topic: data.topic, ip: data.ip, buffered: ws.getBufferedAmount() });
        // Forceful close: a graceful close frame would only queue behind the backlog.
        ws.close();
      }
    }
  }, Math.max(50, Math.min(1000, slowConsumerTimeoutMs / 4)));
  sweep.unref();

  return {
    opened(ws) {
      sockets.add(ws);
    },
    subscribe(ws) {
      const data = ws.getUserData();
      ws.subscribe(data.topic);
      subscribed.add(ws);
      if (data.expires > 0) byExpiry.add(ws, data.expires);
      increment(perTopic, data.topic, 1);
      if (data.userId > 0) increment(perUser, data.userId, 1);
      else anonymous++;
    },
    closed(ws) {
      sockets.delete(ws);
      if (!subscribed.delete(ws)) return;
      const data = ws.getUserData();
      byExpiry.remove(ws, data.expires);
      increment(perTopic, data.topic, -1);
      if (data.userId > 0) increment(perUser, data.userId, -1);
      else anonymous--;
    },
    deliver(topic, payloadJson) {
      if (!perTopic.has(topic)) return;
      app.publish(topic, `{"type":"push","payload":${payloadJson}}`, false, false);
    },
    closeMintedFrom(tokenId) {
      let closed = 0;
      for (const ws of [...subscribed]) {
        if (ws.getUserData().tokenId !== tokenId) continue;
        ws.send(REVOKED, false, false);
        ws.end(CLOSE_POLICY, 'token revoked');
        closed++;
      }
      return closed;
    },
    closeTopic(topic) {
      let closed = 0;
      // Every open socket, not only the subscribed: one still authenticating would otherwise join a closed topic.
      for (const ws of [...sockets]) {
        const data = ws.getUserData();
        if (data.topic !== topic || data.closed) continue;
        ws.send(UNREGISTERED, false, false);
        ws.end(CLOSE_POLICY, 'topic closed');
        closed++;
      }
      return closed;
    },
    stats() {
      return { activeTopics: perTopic.size, connectedClients: perUser.size + anonymous, connectedSockets: subscribed.size };
    },
    activeTopicList() {
      return [...perTopic.keys()];
    },
    slowConsumersClosed() {
      return slowClosed;
    },
    closeAll() {
      clearInterval(sweep);
      for (const ws of [...sockets]) ws.close();
    },
  };
}
