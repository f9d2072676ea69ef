import type { Context } from 'koa';
import { hashSecret } from '../../auth/secrets.js';
import type { Services } from '../../services.js';
import type { RateDecision } from '../../ratelimit/types.js';
import { clientAddress } from '../clientAddress.js';
import { V1Failure } from './call.js';

/**
 * Who a v1 request counts against: the presented key (by its hash, so the rate-limit store
 * never holds a usable key), else the client address.
 */
function identifier(ctx: Context, services: Services, key: unknown): string {
  if (typeof key === 'string' && key !== '') return `api_key_${hashSecret(key)}`;
  return `ip_${clientAddress(ctx, services.config)}`;
}

/**
 * The original's v1 limiter: one bucket per method name (`qso`, `private_lookup`, …) from the
 * same `api_rate_limits` map as v2, whose buckets carry an `api_v2_` prefix and so never collide.
 */
export async function enforceV1RateLimit(ctx: Context, services: Services, bucket: string, key: unknown): Promise<void> {
  const decision = await services.rateLimiter.check(bucket, identifier(ctx, services, key));
  if (!decision.allowed) throw v1RateLimited(services, bucket, decision);
}

/** The v1 429 answer (with `Retry-After`) for a denied `bucket`, counted in the metrics. */
export function v1RateLimited(services: Services, bucket: string, decision: RateDecision): V1Failure {
  services.metrics.rateLimited.inc({ bucket });
  const seconds = decision.retryAfter;
  return new V1Failure(
    { status: 429, body: { status: 'failed', reason: `Rate limit exceeded. Try again in ${seconds} seconds.`, retry_after: seconds } },
    { 'Retry-After': String(seconds) },
  );
}
