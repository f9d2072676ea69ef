import t, { type Test } from 'tap';
import pg from 'pg';
import { Redis } from 'ioredis';
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
import { endPool } from '../lib/db/poolEnd.js';

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

  // The window's edge, hit exactly: a hit at t leaves the window at t + window, not later.
  const edge = new RateLimiter({ e: { requests: 1, window: 10 } }, store, () => now);
  now = 2_000_000;
  t.equal((await edge.check('e', key)).allowed, true);
  now = 2_000_009.75;
  t.same(await edge.check('e', key), { allowed: false, retryAfter: 1 }, 'a quarter second before the edge');
  now = 2_000_010;
  t.equal((await edge.check('e', key)).allowed, true, 'at the edge exactly the old hit has left');
}

t.test('memory store', async (t) => {
  const store = new MemoryRateLimitStore();
  await slidingWindowContract(t, store);
  await store.close();
});

t.test('memory store: a flood of distinct keys is bounded and expired windows are dropped', async (t) => {
  let now = 1_000;
  const store = new MemoryRateLimitStore({ maxKeys: 1_000, sweepSeconds: 60 });
  const limiter = new RateLimiter({ b: { requests: 2, window: 30 } }, store, () => now);
  await limiter.check('b', 'steady');
  for (let i = 0; i < 5_000; i++) {
    await limiter.check('b', `flood-${i}`);
    if (i % 100 === 0) await limiter.check('b', 'steady');
  }
  t.equal(store.size, 1_000, 'held keys stop at the cap');
  t.same(await limiter.check('b', 'steady'), { allowed: false, retryAfter: 30 }, 'a key in use is not the one forgotten');
  now += 91; // past every window and the next sweep
  await limiter.check('b', 'after');
  t.equal(store.size, 1, 'every expired window was swept');
});

t.test('postgres store (shared by API processes)', async (t) => {
  const db = await testDatabase(t);
  await slidingWindowContract(t, new PostgresRateLimitStore(db.pool));
});

t.test('postgres store: rows of keys never hit again are pruned', async (t) => {
  const db = await testDatabase(t);
  let now = 1_000;
  const limiter = new RateLimiter({ b: { requests: 2, window: 30 } }, new PostgresRateLimitStore(db.pool), () => now);
  await Promise.all(Array.from({ length: 500 }, (_, i) => limiter.check('b', `flood-${i}`)));
  const rows = async () => Number((await db.pool.query('SELECT count(*) FROM rate_limit_hits')).rows[0].count);
  t.equal(await rows(), 500);
  now += 45; // windows expired, but the next prune is due only 60 s after the first
  await limiter.check('b', 'x');
  t.equal(await rows(), 501);
  now += 16;
  await limiter.check('b', 'y');
  t.equal(await rows(), 2, 'one DELETE dropped every expired row, whatever its key');
});

t.test('postgres store: 40 concurrent hits with a limit of 3 let exactly 3 through', async (t) => {
  const db = await testDatabase(t);
  // A pool as wide as the burst, so that the 40 hits really run at once.
  const pool = new pg.Pool({ connectionString: db.url, max: 40 });
  await Promise.all(Array.from({ length: 40 }, () => pool.query('SELECT 1')));
  const limiter = new RateLimiter({ b: { requests: 3, window: 60 } }, new PostgresRateLimitStore(pool), () => 1_000);
  for (let round = 0; round < 20; round++) {
    const decisions = await Promise.all(Array.from({ length: 40 }, () => limiter.check('b', `burst-${round}`)));
    t.equal(decisions.filter((d) => d.allowed).length, 3, `round ${round}`);
  }
  // Its connections closed before the test database is dropped (endPool waits for them).
  await endPool(pool);
});

const redis = await acquireRedis();
t.test('redis store (shared by API processes)', { skip: redis ? false : NO_REDIS_REASON }, async (t) => {
  const store = new RedisRateLimitStore(redis!.url, uniquePrefix('ratelimit'));
  t.teardown(async () => {
    await store.close();
    await redis!.stop();
  });
  await slidingWindowContract(t, store);

  // Every key expires with its window, so a flood of distinct keys leaves nothing behind.
  const prefix = uniquePrefix('ratelimit-flood');
  const flood = new RedisRateLimitStore(redis!.url, prefix);
  const client = new Redis(redis!.url);
  t.teardown(async () => {
    await flood.close();
    await client.quit();
  });
  for (let i = 0; i < 50; i++) await flood.hit(`k${i}`, 1_000, { requests: 2, window: 30 });
  const keys = await client.keys(`${prefix}*`);
  t.equal(keys.length, 50);
  const ttls = await Promise.all(keys.map((key) => client.ttl(key)));
  t.ok(ttls.every((ttl) => ttl > 0 && ttl <= 30), 'each key expires within its window');
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
  const other = await createOperator(server.db.pool);
  t.equal((await server.request('/api/v2/token', { token: other.token })).status, 200, 'another token has a bucket of its own');
  t.equal((await server.request('/api/v2/token', { token: op.token })).status, 429, 'and the first token is still limited');
});

t.test('a map naming only v1 buckets leaves v2 unthrottled; null disables', async (t) => {
  for (const limits of [{ private_lookup: { requests: 1, window: 60 } }, null]) {
    const server = await startTestServer(t, { resources: tokenProbe, config: { api_rate_limits: limits } });
    for (let i = 0; i < 5; i++) t.equal((await server.request('/api/v2/token', { token: 'wl2_x' })).status, 401);
  }
});
