import { Redis } from 'ioredis';
import { decide, type RateDecision, type RateLimit, type RateLimitStore } from './types.js';

/** Prune, count and (when under the limit) record in one atomic script on a sorted set. */
const HIT_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
if count < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1] .. ':' .. ARGV[4])
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2])))
end
return {count, oldest or false}
`;

/** Removes one member recorded at exactly the given score. */
const UNHIT_SCRIPT = `
local found = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1], 'LIMIT', 0, 1)
if found[1] then redis.call('ZREM', KEYS[1], found[1]) end
return 0
`;

/** Store shared by every API process that points at one Redis (REDIS_URL). */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;
  private sequence = 0;

  constructor(url: string, private readonly prefix = 'logbook:ratelimit:') {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  }

  async hit(key: string, now: number, limit: RateLimit): Promise<RateDecision> {
    const member = `${process.pid}-${this.sequence++}`;
    const [count, oldest] = (await this.redis.eval(
      HIT_SCRIPT, 1, this.prefix + key, String(now), String(limit.window), String(limit.requests), member,
    )) as [number, string | null];
    return decide(count, oldest === null ? null : Number(oldest), now, limit);
  }

  async unhit(key: string, at: number): Promise<void> {
    await this.redis.eval(UNHIT_SCRIPT, 1, this.prefix + key, String(at));
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
