import { decide, type RateDecision, type RateLimit, type RateLimitStore } from './types.js';

/** Single-process store: a hit-time log per key, pruned on each hit. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly logs = new Map<string, number[]>();

  async hit(key: string, now: number, limit: RateLimit): Promise<RateDecision> {
    const since = now - limit.window;
    const log = (this.logs.get(key) ?? []).filter((at) => at > since);
    const decision = decide(log.length, log[0] ?? null, now, limit);
    if (decision.allowed) log.push(now);
    if (log.length) this.logs.set(key, log);
    else this.logs.delete(key);
    return decision;
  }

  async unhit(key: string, at: number): Promise<void> {
    const log = this.logs.get(key);
    const index = log?.indexOf(at) ?? -1;
    if (index < 0) return;
    log!.splice(index, 1);
    if (!log!.length) this.logs.delete(key);
  }

  async close(): Promise<void> {
    this.logs.clear();
  }
}
