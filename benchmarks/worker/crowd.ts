/**
 * A public log's crowd (issue 49): SOCKETS anonymous WebSockets on one public topic
 * `public_log.{logbookId}` (registered with require_token false), spread over WORKERS worker
 * processes behind Redis fan-out (a process here holds at most 20,000 descriptors) and opened
 * by CLIENTS load processes, each from its own loopback address (127.0.0.2, …). Publishes go
 * through the application's publisher (lib/live/publisher.ts) to the workers' internal API,
 * RATE a second for DURATION seconds, each carrying its publish time: reports how many sockets
 * received each (none lost?), latency p50 / p99 / max over every arrival and per publish (its
 * last socket), and each worker's RSS and CPU.
 *
 * `--storm`: then SIGKILLs the first worker and starts it again on its port; its sockets
 * reconnect within a second (crowdClient.ts) and each fetches the page's JSON from a
 * `logbook serve --workers 1` (scratch database, a published logbook) to catch up, while this
 * process asks that API for a search every 20 ms: its latency before and during the storm.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx benchmarks/worker/crowd.ts \
 *     [--sockets 100000] [--workers 6] [--clients 6] [--rate 2] [--duration 60] [--storm]
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireRedis, deleteKeys, uniquePrefix } from '../../test/helpers/redis.js';
import { createPublisher } from '../../lib/live/publisher.js';
import { createLogbook } from '../../lib/accounts/logbooks.js';
import { scratchDatabase } from '../lib/scratch.js';
import { generateLogs } from '../lib/generatedLog.js';
import { startServe } from '../lib/serveProcess.js';
import { closeConnections, sendDiscarding } from '../lib/httpClient.js';
import { HERE, cpuSeconds, memory, spawnNode, startWorkerProcess, type WorkerProc } from './processes.js';
import type { CrowdCounts, CrowdPlan, FromCrowdClient, ToCrowdClient } from './crowdClient.js';

const { values: args } = parseArgs({
  options: {
    sockets: { type: 'string', default: '100000' },
    workers: { type: 'string', default: '6' },
    clients: { type: 'string', default: '6' },
    rate: { type: 'string', default: '2' },
    duration: { type: 'string', default: '60' },
    storm: { type: 'boolean', default: false },
  },
});
const SOCKETS = Number(args.sockets);
const WORKERS = Number(args.workers);
const CLIENTS = Number(args.clients);
const RATE = Number(args.rate);
const DURATION_S = Number(args.duration);
const PUBLISHES = Math.round(RATE * DURATION_S);
const SECRET = 'benchmark-secret-0123456789abcdefghij';
/** Below the 20,000 descriptors a process may hold: the rest is node's own, and the HTTP agent's. */
const MAX_PER_PROCESS = 19_000;
if (SOCKETS / WORKERS > MAX_PER_PROCESS || SOCKETS / CLIENTS > MAX_PER_PROCESS) throw new Error(`at most ${MAX_PER_PROCESS} sockets a process: raise --workers or --clients`);

const children: ChildProcess[] = [];
setTimeout(() => {
  console.error('crowd benchmark exceeded its budget; stopping');
  for (const child of children) child.kill('SIGKILL');
  process.exit(1);
}, (DURATION_S + 1800) * 1000).unref();
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));

function ask<T extends FromCrowdClient['type']>(client: ChildProcess, message: ToCrowdClient, type: T): Promise<Extract<FromCrowdClient, { type: T }>> {
  return new Promise((resolve) => {
    const onMessage = (answer: FromCrowdClient) => {
      if (answer.type !== type) return;
      client.off('message', onMessage);
      resolve(answer as Extract<FromCrowdClient, { type: T }>);
    };
    client.on('message', onMessage);
    client.send(message);
  });
}

const askAll = <T extends FromCrowdClient['type']>(clients: ChildProcess[], message: ToCrowdClient, type: T) => Promise.all(clients.map((c) => ask(c, message, type)));
const rank = (sorted: ArrayLike<number>, p: number): number => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
const sortedOf = (values: number[]): Float64Array => Float64Array.from(values).sort();
const fixed = (n: number | undefined, digits = 1): string => (n === undefined || Number.isNaN(n) ? 'n/a' : n.toFixed(digits));

/** The p-th percentile of a histogram of whole milliseconds. */
function histogramRank(histogram: number[], p: number): number {
  const total = histogram.reduce((a, b) => a + b, 0);
  let seen = 0;
  for (let ms = 0; ms < histogram.length; ms++) {
    seen += histogram[ms]!;
    if (seen >= Math.ceil((p / 100) * total)) return ms;
  }
  return NaN;
}

const loadAverage = async () => (await import('node:os')).loadavg().map((n) => n.toFixed(1)).join(' ');

const redis = await acquireRedis();
if (!redis) throw new Error('the crowd benchmark needs Redis (REDIS_URL or 127.0.0.1:6379)');
const prefix = uniquePrefix('crowd');
const database = await scratchDatabase('crowd');
const { ownerId, home } = await generateLogs(database.pool, 10_000);
const logbook = await createLogbook(database.pool, { userId: ownerId, name: 'Crowd', stationIds: [home], publication: { public: true } });
const api = await startServe(database.url, { workers: 1, config: { api_rate_limits: { public: { requests: 100_000_000, window: 60 } } } });
process.on('exit', () => {
  try {
    process.kill(api.pid, 'SIGKILL');
  } catch {
    // already stopped
  }
});
const topic = `public_log.${logbook.id}`;

const workers: WorkerProc[] = [];
// Below the ephemeral range (32768–60999), as an operator's fixed port is: a port taken from it
// can be handed to some outgoing connection while its worker restarts, and the restart fails.
const wsPortBase = 21_000 + (process.pid % 1000) * 10;
for (let i = 0; i < WORKERS; i++) workers.push(await startWorkerProcess(children, SECRET, 'uws', { url: redis.url, prefix }, wsPortBase + i));
const publisher = createPublisher({ urls: workers.map((w) => `http://127.0.0.1:${w.internalPort}`), secret: SECRET });
await publisher.register(topic, false);
const idleMiB = workers.map((w) => memory(w.child.pid!).rssMiB);

const clients = Array.from({ length: CLIENTS }, () => spawnNode(children, `${HERE}crowdClient.ts`, []));
const connectStarted = performance.now();
const progress = setInterval(() => console.log(`connecting… ${((performance.now() - connectStarted) / 1000).toFixed(0)} s`), 60_000);
const ready = await Promise.all(clients.map((client, i) => {
  const plan: CrowdPlan = {
    ports: workers.map((w) => w.wsPort),
    sockets: Math.floor(SOCKETS / CLIENTS) + (i < SOCKETS % CLIENTS ? 1 : 0),
    topic,
    localAddress: `127.0.0.${2 + i}`,
    concurrency: 50,
    catchUpUrl: `${api.url}/api/public/${logbook.slug}`,
  };
  return ask(client, { type: 'connect', plan }, 'ready');
}));
clearInterval(progress);
const connected = ready.reduce((sum, r) => sum + r.connected, 0);
const connectSeconds = (performance.now() - connectStarted) / 1000;
const failures = ready.flatMap((r) => r.failureReasons);
console.log(`${connected} of ${SOCKETS} sockets open in ${connectSeconds.toFixed(1)} s over ${WORKERS} workers, ${CLIENTS} clients${failures.length ? `; failures: ${failures.join('; ')}` : ''}`);
const connectedMiB = workers.map((w) => memory(w.child.pid!).rssMiB);

const publish = (s: number) => publisher.publish(topic, { t: performance.timeOrigin + performance.now(), s, call: 'K1ABC', band: '20m', mode: 'CW' });
for (let i = 0; i < 3; i++) {
  publish(-1);
  await sleep(500);
}
await askAll(clients, { type: 'reset', publishes: PUBLISHES }, 'reset_done');
const loadBefore = await loadAverage();
const cpuBefore = workers.map((w) => cpuSeconds(w.child.pid!));
const started = performance.now();
for (let s = 0; s < PUBLISHES; s++) {
  await sleep(Math.max(0, started + (s * 1000) / RATE - performance.now()));
  publish(s);
}
const publishSeconds = (performance.now() - started) / 1000;
await sleep(3000);
const cpuPercent = workers.map((w, i) => ((cpuSeconds(w.child.pid!) - cpuBefore[i]!) / (publishSeconds + 3)) * 100);
const counts = await askAll(clients, { type: 'collect' }, 'counts');
const loadAfter = await loadAverage();

const sum = (pick: (c: CrowdCounts) => number[]) => counts.reduce<number[]>((acc, c) => pick(c).map((v, i) => (acc[i] ?? 0) + v), []);
const received = sum((c) => c.received);
const histogram = sum((c) => c.histogram);
const slowest = Array.from({ length: PUBLISHES }, (_, s) => Math.max(...counts.map((c) => c.slowest[s]!)));
const lost = received.reduce((acc, n) => acc + (connected - n), 0);
const perPublish = sortedOf(slowest);
console.log(`\ncrowd: ${connected} sockets, ${WORKERS} workers, ${PUBLISHES} publishes in ${publishSeconds.toFixed(1)} s (load ${loadBefore} → ${loadAfter})`);
console.log('| arrivals | lost | every arrival p50 / p99 / max ms | a publish\'s last socket p50 / p99 / max ms | worker RSS MiB idle → connected → end | worker CPU % |');
console.log('|---|---|---|---|---|---|');
console.log(`| ${received.reduce((a, b) => a + b, 0)} of ${connected * PUBLISHES} | ${lost} | ${histogramRank(histogram, 50)} / ${histogramRank(histogram, 99)} / ${fixed(perPublish[perPublish.length - 1], 0)} `
  + `| ${fixed(rank(perPublish, 50), 0)} / ${fixed(rank(perPublish, 99), 0)} / ${fixed(perPublish[perPublish.length - 1], 0)} `
  + `| ${workers.map((w, i) => `${fixed(idleMiB[i]!, 0)}→${fixed(connectedMiB[i]!, 0)}→${fixed(memory(w.child.pid!).rssMiB, 0)}`).join(', ')} | ${cpuPercent.map((c) => fixed(c, 0)).join(', ')} |`);
const perSocketKiB = workers.map((_, i) => ((connectedMiB[i]! - idleMiB[i]!) * 1024) / (connected / WORKERS));
console.log(`per socket ≈ ${perSocketKiB.map((k) => fixed(k, 1)).join(', ')} KiB of worker RSS`);

/** API search latencies (ms) asked every 20 ms while `until` has not resolved. */
async function probeApi(until: Promise<unknown>): Promise<Float64Array> {
  let done = false;
  void until.then(() => { done = true; });
  const times: number[] = [];
  while (!done) {
    const begin = performance.now();
    const status = await sendDiscarding(`${api.url}/api/public/${logbook.slug}/search?call=K1ABC`);
    if (status !== 200) throw new Error(`API probe: HTTP ${status}`);
    times.push(performance.now() - begin);
    await sleep(20);
  }
  return sortedOf(times);
}

if (args.storm) {
  await askAll(clients, { type: 'reset', publishes: 0 }, 'reset_done');
  const quiet = await probeApi(sleep(3000));
  const held = workers[0]!;
  const stormLoad = await loadAverage();
  const back = (async () => {
    held.child.kill('SIGKILL');
    await once(held.child, 'exit');
    const killedAt = performance.now();
    workers[0] = await startWorkerProcess(children, SECRET, 'uws', { url: redis.url, prefix }, held.wsPort);
    const restartMs = performance.now() - killedAt;
    const listening = performance.timeOrigin + performance.now();
    const deadline = performance.now() + 60_000;
    for (;;) {
      await sleep(250);
      const state = await askAll(clients, { type: 'collect' }, 'counts');
      const closes = state.reduce((a, c) => a + c.closes, 0);
      const reconnected = state.reduce((a, c) => a + c.reconnected, 0);
      const caughtUp = state.reduce((a, c) => a + c.catchUpMs.length + c.catchUpFailures, 0);
      if ((closes > 0 && reconnected >= closes && caughtUp >= reconnected) || performance.now() > deadline) return { restartMs, listening, state };
    }
  })();
  const during = await probeApi(back);
  const { restartMs, listening, state } = await back;
  const reconnectMs = sortedOf(state.flatMap((c) => c.reconnectedAt.map((at) => at - listening)));
  const catchUp = sortedOf(state.flatMap((c) => c.catchUpMs));
  const closes = state.reduce((a, c) => a + c.closes, 0);
  console.log(`\nreconnect storm: a worker holding ${closes} sockets killed and restarted on its port in ${fixed(restartMs, 0)} ms (load ${stormLoad}); they retry every 250–500 ms meanwhile`);
  console.log('| sockets closed | reconnected | auth_ok again, ms after the worker listened: p50 / p99 / max | catch-up GETs 200 / failed, p50 / p99 ms | API search p50 / p99 / max ms before | during |');
  console.log('|---|---|---|---|---|---|');
  console.log(`| ${closes} | ${state.reduce((a, c) => a + c.reconnected, 0)} | ${fixed(rank(reconnectMs, 50), 0)} / ${fixed(rank(reconnectMs, 99), 0)} / ${fixed(reconnectMs[reconnectMs.length - 1], 0)} `
    + `| ${catchUp.length} / ${state.reduce((a, c) => a + c.catchUpFailures, 0)}, ${fixed(rank(catchUp, 50))} / ${fixed(rank(catchUp, 99))} `
    + `| ${fixed(rank(quiet, 50))} / ${fixed(rank(quiet, 99))} / ${fixed(quiet[quiet.length - 1])} | ${fixed(rank(during, 50))} / ${fixed(rank(during, 99))} / ${fixed(during[during.length - 1])} |`);
}

for (const client of clients) client.send({ type: 'exit' } satisfies ToCrowdClient);
await Promise.all(clients.map((client) => (client.exitCode === null ? once(client, 'exit') : undefined)));
await publisher.close();
for (const w of workers) w.child.kill('SIGTERM');
closeConnections();
await api.stop();
await deleteKeys(redis.url, prefix);
await redis.stop();
await database.dispose();
process.exit(0);
