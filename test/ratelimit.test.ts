import t, { type Test } from 'tap';
import { RateLimiter } from '../lib/ratelimit/limiter.js';
import { MemoryRateLimitStore } from '../lib/ratelimit/memoryStore.js';
import { PostgresRateLimitStore } from '../lib/ratelimit/postgresStore.js';
import { RedisRateLimitStore } from '../lib/ratelimit/redisStore.js';
import { limitFor, type RateLimitStore } from '../lib/ratelimit/types.js';
import { testDatabase } from './helpers/db.js';
import { startTestServer } from './helpers/server.js';
import { createOperator } from './helpers/fixtures.js';
import { acquireRedis, NO_REDIS_REASON, uniquePrefix } from './helpers/redis.js';
import type { ResourceDefinition } from '../lib/http/v2/resource.js';

const tokenProbe: ResourceDefinition[] = [
  { name: 'token', description: 'probe', scoped: false, list: { summary: 'me', handler: async () => ({ data: {} }) } },
];

t.test('bucket lookup: exact name, then default, else unlimited; null disables', async (t) => {
  const limits = { api_v2_qso: { requests: 1, window: 1 }, default: { requests: 2, window: 2 } };
  t.same(limitFor(limits, 'api_v2_qso'), { requests: 1, window: 1 });
  t.same(limitFor(limits, 'api_v2_auth'), { requests: 2, window: 2 });
  t.equal(limitFor({ private_lookup: { requests: 1, window: 1 } }, 'api_v2_auth'), null);
  t.equal(limitFor(null, 'api_v2_auth'), null);
});

/** The same sliding-window contract for every store, driven by a clock the test controls. */
async function slidingWindowContract(t: Test, store: RateLimitStore): Promise<void> {
  let now = 1_000_000;
  const limiter = new RateLimiter({ b: { requests: 3, window: 10 } }, store, () => now);
  const key = `k${Math.random()}`;
  for (let i = 0; i < 3; i++) {
    t.equal((await limiter.check('b', key)).allowed, true, `hit ${i + 1} allowed`);
    now += 1; // hits at 0, 1, 2
  }
  const denied = await limiter.check('b', key); // at 3
  t.equal(denied.allowed, false);
  t.equal(denied.retryAfter, 7, 'oldest hit (t=0) leaves the window at t=10');
  now += 6.5; // t=9.5: still three hits inside (0,1,2)
  t.equal((await limiter.check('b', key)).allowed, false, 'denied requests are not recorded');
  now += 1; // t=10.5: hit at 0 has left
  t.equal((await limiter.check('b', key)).allowed, true, 'sliding, not fixed window');
  t.equal((await limiter.check('b', key)).allowed, false);
  t.equal((await limiter.check('other', key)).allowed, true, 'unconfigured bucket is unlimited');
  t.equal((await limiter.check('b', key + 'x')).allowed, true, 'identifiers are independent');
}

t.test('memory store', async (t) => {
  const store = new MemoryRateLimitStore();
  await slidingWindowContract(t, store);
  await store.close();
});

t.test('postgres store (shared by API processes)', async (t) => {
  const db = await testDatabase(t);
  await slidingWindowContract(t, new PostgresRateLimitStore(db.pool));
});

const redis = await acquireRedis();
t.test('redis store (shared by API processes)', { skip: redis ? false : NO_REDIS_REASON }, async (t) => {
  const store = new RedisRateLimitStore(redis!.url, uniquePrefix('ratelimit'));
  t.teardown(async () => {
    await store.close();
    await redis!.stop();
  });
  await slidingWindowContract(t, store);
});

t.test('HTTP: api_v2_auth per address before auth, api_v2_<resource> per token after', async (t) => {
  let now = 5_000;
  const server = await startTestServer(t, {
    clock: () => now,
    resources: tokenProbe,
    config: { api_rate_limits: { api_v2_auth: { requests: 3, window: 60 }, api_v2_token: { requests: 1, window: 30 } } },
  });
  const op = await createOperator(server.db.pool);
  const first = await server.request('/api/v2/token', { token: op.token });
  t.not(first.status, 429);
  const second = await server.request('/api/v2/token', { token: op.token });
  t.equal(second.status, 429, 'resource bucket: one per 30 s per token');
  t.equal(second.body.error.code, 'rate_limited');
  t.equal(second.body.error.details.retry_after, 30);
  t.equal(second.headers.get('retry-after'), '30');
  const bad = await server.request('/api/v2/token', { token: 'wl2_nope' });
  t.equal(bad.status, 401, 'third request from this address still passes the auth bucket');
  const blocked = await server.request('/api/v2/token', { token: 'wl2_nope' });
  t.equal(blocked.status, 429, 'fourth request: auth bucket exhausted, before any token check');
  t.equal(blocked.headers.get('retry-after'), '60');
  t.equal((await server.request('/api/v2/status')).status, 200, 'status is not rate limited');
  now += 61;
  t.equal((await server.request('/api/v2/token', { token: op.token })).status, 200, 'both windows have slid past');
  const metrics = await server.request('/metrics');
  t.match(metrics.text, /logbook_rate_limited_total\{bucket="api_v2_token"\} 1/);
  t.match(metrics.text, /logbook_rate_limited_total\{bucket="api_v2_auth"\} 1/);
});

t.test('a map naming only v1 buckets leaves v2 unthrottled; null disables', async (t) => {
  for (const limits of [{ private_lookup: { requests: 1, window: 60 } }, null]) {
    const server = await startTestServer(t, { resources: tokenProbe, config: { api_rate_limits: limits } });
    for (let i = 0; i < 5; i++) t.equal((await server.request('/api/v2/token', { token: 'wl2_x' })).status, 401);
  }
});
