/**
 * Topic registry: which topics browsers may connect to, and whether they need a
 * token. Registrations expire after a TTL so that topics of vanished objects do
 * not accumulate; the application re-registers on demand (404 → register → retry).
 */

export interface TopicMeta {
  require_token: boolean;
}

export interface TopicRegistry {
  /** Adds the topic or renews its TTL. */
  register(topic: string, meta: TopicMeta): Promise<void>;
  unregister(topic: string): Promise<void>;
  lookup(topic: string): Promise<TopicMeta | null>;
  count(): Promise<number>;
  list(): Promise<string[]>;
  close(): Promise<void>;
}

const JANITOR_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Single-instance registry. Expiry is checked lazily on every read; an hourly
 * janitor removes topics nobody reads any more so memory stays bounded.
 */
export function createMemoryRegistry(ttlSeconds: number, now: () => number = Date.now): TopicRegistry {
  const topics = new Map<string, { meta: TopicMeta; expiresAt: number }>();
  const ttlMs = ttlSeconds * 1000;

  function purgeExpired(): void {
    const t = now();
    for (const [topic, entry] of topics) if (entry.expiresAt <= t) topics.delete(topic);
  }

  const janitor = setInterval(purgeExpired, JANITOR_INTERVAL_MS);
  janitor.unref();

  return {
    async register(topic, meta) {
      // Delete first so Map order stays "oldest registration first".
      topics.delete(topic);
      topics.set(topic, { meta: { require_token: meta.require_token }, expiresAt: now() + ttlMs });
    },
    async unregister(topic) {
      topics.delete(topic);
    },
    async lookup(topic) {
      const entry = topics.get(topic);
      if (!entry) return null;
      if (entry.expiresAt <= now()) {
        topics.delete(topic);
        return null;
      }
      return entry.meta;
    },
    async count() {
      purgeExpired();
      return topics.size;
    },
    async list() {
      purgeExpired();
      return [...topics.keys()];
    },
    async close() {
      clearInterval(janitor);
      topics.clear();
    },
  };
}
