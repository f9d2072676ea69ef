import { limitFor, type RateDecision, type RateLimitMap, type RateLimitStore } from './types.js';

export type Clock = () => number;
export const systemClock: Clock = () => Date.now() / 1000;

/** Applies the configured `api_rate_limits` map to named buckets, per identifier. */
export class RateLimiter {
  constructor(
    private readonly limits: RateLimitMap,
    private readonly store: RateLimitStore,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Unlimited buckets are allowed without touching the store. */
  async check(bucket: string, identifier: string): Promise<RateDecision> {
    const limit = limitFor(this.limits, bucket);
    if (!limit) return { allowed: true, retryAfter: 0 };
    return this.store.hit(`${bucket}:${identifier}`, this.clock(), limit);
  }

  /**
   * Like `check`, and returns `refund`, which takes the hit back: for buckets that count only
   * failures, recorded before the outcome is known so that concurrent attempts cannot all slip
   * under the limit.
   */
  async attempt(bucket: string, identifier: string): Promise<{ decision: RateDecision; refund(): Promise<void> }> {
    const limit = limitFor(this.limits, bucket);
    if (!limit) return { decision: { allowed: true, retryAfter: 0 }, refund: async () => undefined };
    const key = `${bucket}:${identifier}`;
    const now = this.clock();
    const decision = await this.store.hit(key, now, limit);
    return { decision, refund: () => (decision.allowed ? this.store.unhit(key, now) : Promise.resolve()) };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
