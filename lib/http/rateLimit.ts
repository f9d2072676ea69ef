import { ApiError } from './errors.js';
import type { Services } from '../services.js';

/** Charges `bucket` of `limiter` for `identifier`; 429 `rate_limited` (with `Retry-After`) when it is full. */
export async function enforceRateLimit(services: Services, bucket: string, identifier: string, limiter = services.rateLimiter): Promise<void> {
  const decision = await limiter.check(bucket, identifier);
  if (decision.allowed) return;
  services.metrics.rateLimited.inc({ bucket });
  throw new ApiError(429, 'rate_limited', `Rate limit exceeded; try again in ${decision.retryAfter} seconds`, {
    retry_after: decision.retryAfter,
  }, { 'Retry-After': String(decision.retryAfter) });
}
