/**
 * Status snapshots, in the shapes of the original worker: the internal
 * `GET /internal/status` body and the `worker.status` WebSocket payload.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../paths.js';
import type { Fanout } from './fanout.js';
import type { TopicRegistry } from './registry.js';
import type { SocketHub } from './socketHub.js';

/** The reserved topic whose sockets may ask for live stats; the worker registers it itself. */
export const STATUS_TOPIC = 'worker.status';

export const WORKER_VERSION: string = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** Whole seconds in Go's time.Duration notation ("0s", "59s", "2m30s", "1h0m5s"), as the original reports uptime. */
export function goDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = s % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** `degraded`: a cluster worker cut off from Redis (see Fanout.connected). */
export type WorkerHealth = 'ok' | 'degraded';

export interface InternalStatus {
  status: WorkerHealth;
  version: string;
  uptime: string;
  registered_topics: number;
  active_topics: number;
  connected_clients: number;
  connected_sockets: number;
  topic_list?: string[];
  active_topic_list?: string[];
  cluster_nodes: number;
}

export interface SocketStatus {
  status: WorkerHealth;
  version: string;
  uptime: string;
  uptime_seconds: number;
  registered_topics: number;
  active_topics: number;
  connected_clients: number;
  connected_sockets: number;
  cluster_nodes: number;
}

export interface StatusReporter {
  internal(withTopicLists: boolean): Promise<InternalStatus>;
  socket(): Promise<SocketStatus>;
}

export function createStatusReporter({
  registry,
  hub,
  fanout,
  startedAt = Date.now(),
}: {
  registry: TopicRegistry;
  hub: SocketHub;
  fanout: Fanout;
  startedAt?: number;
}): StatusReporter {
  const uptimeSeconds = () => Math.round((Date.now() - startedAt) / 1000);
  const health = (): WorkerHealth => (fanout.connected() ? 'ok' : 'degraded');

  return {
    async internal(withTopicLists) {
      const [topics, clusterNodes] = await Promise.all([
        withTopicLists ? registry.list() : registry.count(),
        fanout.clusterNodes(),
      ]);
      const stats = hub.stats();
      const status: InternalStatus = {
        status: health(),
        version: WORKER_VERSION,
        uptime: goDuration(uptimeSeconds()),
        registered_topics: typeof topics === 'number' ? topics : topics.length,
        active_topics: stats.activeTopics,
        connected_clients: stats.connectedClients,
        connected_sockets: stats.connectedSockets,
        cluster_nodes: clusterNodes,
      };
      if (typeof topics !== 'number') {
        status.topic_list = topics;
        status.active_topic_list = hub.activeTopicList();
      }
      return status;
    },
    async socket() {
      const [registered, clusterNodes] = await Promise.all([registry.count(), fanout.clusterNodes()]);
      const stats = hub.stats();
      const seconds = uptimeSeconds();
      return {
        status: health(),
        version: WORKER_VERSION,
        uptime: goDuration(seconds),
        uptime_seconds: seconds,
        registered_topics: registered,
        active_topics: stats.activeTopics,
        connected_clients: stats.connectedClients,
        connected_sockets: stats.connectedSockets,
        cluster_nodes: clusterNodes,
      };
    },
  };
}
