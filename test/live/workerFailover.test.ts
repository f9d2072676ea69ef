import t from 'tap';
import { testDatabase } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { spawnApiProcess, type ApiProcess } from '../helpers/apiProcess.js';
import { acquireRedis, deleteKeys, freePort, NO_REDIS_REASON, startRedisServer, uniquePrefix, type OwnedRedisServer } from '../helpers/redis.js';
import { callApi, connectClient, SECRET, spawnWorkerProcess, until, type Frame, type TestClient, type WorkerProcess } from '../helpers/worker.js';

/**
 * Live updates across processes as deployed: two `logbook serve` processes, two worker
 * processes sharing Redis, browsers on both workers. Each API process prefers its own worker
 * (worker.urls) and fails over to the other.
 */

async function liveUpdates(api: ApiProcess): Promise<string> {
  const answer = await fetch(`${api.url}/api/v2/status`, { signal: AbortSignal.timeout(10_000) });
  return ((await answer.json()) as { data: { live_updates: string } }).data.live_updates;
}

const redis = await acquireRedis();
if (!redis) t.comment(`SKIP: ${NO_REDIS_REASON}`);

t.test('killing one worker loses no event for the browsers on the other', { skip: redis ? false : NO_REDIS_REASON }, async (t) => {
  if (!redis) return;
  const db = await testDatabase(t);
  const op = await createOperator(db.pool, { callsign: 'DL1FOV' });
  const prefix = uniquePrefix('failover');
  const [a, b] = await Promise.all([
    spawnWorkerProcess({ redisUrl: redis.url, redisPrefix: prefix }),
    spawnWorkerProcess({ redisUrl: redis.url, redisPrefix: prefix }),
  ]);
  const config = (own: WorkerProcess, other: WorkerProcess) => ({
    worker: {
      urls: [`http://127.0.0.1:${own.internalPort}`, `http://127.0.0.1:${other.internalPort}`],
      secret: SECRET,
      public_url: `ws://127.0.0.1:${own.wsPort}`,
    },
  });
  const [apiA, apiB] = await Promise.all([spawnApiProcess(db.url, config(a, b)), spawnApiProcess(db.url, config(b, a))]);
  t.teardown(async () => {
    await Promise.all([apiA.stop(), apiB.stop(), a.stop(), b.stop()]);
    await deleteKeys(redis.url, prefix);
    await redis.stop();
  });

  const topic = `station.${op.stationId}`;
  const tokenAnswer = await fetch(`${apiA.url}/live/token?topic=${topic}`, { headers: { authorization: `Bearer ${op.token}` }, signal: AbortSignal.timeout(10_000) });
  t.equal(tokenAnswer.status, 200);
  const { token } = ((await tokenAnswer.json()) as { data: { token: string } }).data;
  const browsers: TestClient[] = [];
  for (const port of [a.wsPort, b.wsPort, b.wsPort]) {
    const browser = await connectClient(port, topic);
    browser.auth(token);
    t.same(await browser.next(), { type: 'auth_ok' });
    browsers.push(browser);
  }
  const [onA, ...onB] = browsers as [TestClient, TestClient, TestClient];
  t.teardown(() => browsers.forEach((browser) => browser.close()));

  let calls = 0;
  async function createQso(api: ApiProcess): Promise<number> {
    calls++;
    const answer = await fetch(`${api.url}/api/v2/qso`, {
      method: 'POST',
      headers: { authorization: `Bearer ${op.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ station_profile_id: op.stationId, call: `DL${calls}FO`, band: '20m', mode: 'SSB', qso_date: '2024-03-01', time_on: '1200' }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await answer.json()) as { data: { id: number } };
    if (answer.status !== 201) throw new Error(`create answered ${answer.status}: ${JSON.stringify(body)}`);
    return body.data.id;
  }
  const createdIds = async (browser: TestClient, count: number): Promise<number[]> => {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const frame = await browser.next(5000);
      const payload = frame.payload as Frame;
      t.equal(payload.type, 'qso_created');
      ids.push(payload.qso_id as number);
    }
    return ids;
  };

  t.equal(await liveUpdates(apiA), 'ok');
  const first = await createQso(apiA);
  for (const browser of browsers) t.same(await createdIds(browser, 1), [first], 'both workers serve the event (through Redis)');

  await a.kill();
  const lost = await Promise.race([onA.closed, new Promise((resolve) => setTimeout(resolve, 10_000, 'still open'))]);
  t.same(lost, { code: 1006 }, 'the killed worker\'s browsers lose their connection abnormally');
  await until(async () => (await liveUpdates(apiB)) === 'degraded', 'the API to report the lost worker');

  const sent: number[] = [];
  for (let n = 0; n < 10; n++) sent.push(await createQso(n % 2 === 0 ? apiA : apiB), await createQso(n % 2 === 0 ? apiB : apiA));
  for (const [i, browser] of onB.entries()) {
    const seen = await createdIds(browser, sent.length);
    t.same([...seen].sort((x, y) => x - y), [...sent].sort((x, y) => x - y), `browser ${i} on the healthy worker got every event`);
    t.ok(await browser.silentFor(i === 0 ? 300 : 0), `browser ${i}: no event twice`);
  }
  t.ok(apiA.logLines().some((line) => line.msg === 'live updates: worker unreachable, trying the next'), 'the failover is logged');
});

t.test('a worker started while its Redis is unreachable says degraded, and so does the API, until Redis answers', async (t) => {
  const db = await testDatabase(t);
  const port = await freePort();
  const worker = await spawnWorkerProcess({ redisUrl: `redis://127.0.0.1:${port}`, redisPrefix: uniquePrefix('late') });
  const api = await spawnApiProcess(db.url, { worker: { urls: [`http://127.0.0.1:${worker.internalPort}`], secret: SECRET, public_url: `ws://127.0.0.1:${worker.wsPort}` } });
  let server: OwnedRedisServer | null = null;
  t.teardown(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await server?.kill();
  });
  const status = async () => ((await callApi(worker.internalPort, 'GET', '/internal/status')).text);
  t.match(JSON.parse(await status()), { status: 'degraded', cluster_nodes: -1 });
  t.equal(await liveUpdates(api), 'degraded');

  server = await startRedisServer(port);
  if (!server) {
    t.comment('SKIP the recovery: redis-server binary not installed');
    return;
  }
  await until(async () => JSON.parse(await status()).status === 'ok', 'the worker to join Redis');
  await until(async () => (await liveUpdates(api)) === 'ok', 'the API to see it');
});
