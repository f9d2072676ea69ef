import { decide, type RateDecision, type RateLimit, type RateLimitStore } from './types.js';

/** A key's recorded hits; the window is empty (and dropped) from `expiresAt` on. */
interface Window {
  hits: number[];
  expiresAt: number;
}

export interface MemoryStoreBounds {
  /** Keys held at most; beyond, the least recently hit key is forgotten. */
  maxKeys: number;
  /** Clock seconds between sweeps that drop every expired window. */
  sweepSeconds: number;
}

export const DEFAULT_MEMORY_BOUNDS: MemoryStoreBounds = { maxKeys: 100_000, sweepSeconds: 60 };

/**
 * Single-process store: a hit-time log per key. A flood of distinct keys (one per guessed key or
 * forged address) cannot grow it without bound: expired windows are swept once per
 * `sweepSeconds` of clock time, and past `maxKeys` the least recently hit key is dropped (Map
 * order is kept as recency by re-inserting a key on each hit).
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, Window>();
  private nextSweep = Number.NEGATIVE_INFINITY;

  constructor(private readonly bounds: MemoryStoreBounds = DEFAULT_MEMORY_BOUNDS) {}

  /** Keys currently held. */
  get size(): number {
    return this.windows.size;
  }

  async hit(key: string, now: number, limit: RateLimit): Promise<RateDecision> {
    if (now >= this.nextSweep) this.sweep(now);
    const since = now - limit.window;
    const hits = (this.windows.get(key)?.hits ?? []).filter((at) => at > since);
    const decision = decide(hits.length, hits[0] ?? null, now, limit);
    if (decision.allowed) hits.push(now);
    this.windows.delete(key);
    if (hits.length) {
      this.windows.set(key, { hits, expiresAt: hits[hits.length - 1]! + limit.window });
      for (const oldest of this.windows.keys()) {
        if (this.windows.size <= this.bounds.maxKeys) break;
        this.windows.delete(oldest);
      }
    }
    return decision;
  }

  async unhit(key: string, at: number): Promise<void> {
    const window = this.windows.get(key);
    const index = window?.hits.indexOf(at) ?? -1;
    if (index < 0) return;
    window!.hits.splice(index, 1);
    if (!window!.hits.length) this.windows.delete(key);
  }

  private sweep(now: number): void {
    this.nextSweep = now + this.bounds.sweepSeconds;
    for (const [key, window] of this.windows) if (window.expiresAt <= now) this.windows.delete(key);
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}
