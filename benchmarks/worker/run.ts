/**
 * Worker load benchmark (loopback only, bounded in size and time, stops by itself).
 *
 * For each scenario: start the worker process(es), register the topics, open
 * the WebSockets from several client processes (topics × sockets per topic),
 * publish at a steady rate through the internal API for a fixed duration, then
 * report connections held, publish→deliver latency (each payload carries its
 * send time), deliveries/s and the worker's memory from /proc/<pid>/status.
 *
 * Scenarios: `uws` (lib/worker alone), `cluster` (two lib/worker processes
 * behind Redis, sockets split across both, all publishes sent to the first),
 * `ws` (the comparison worker on the `ws` package, same protocol).
 *
 *   node --import tsx benchmarks/worker/run.ts [--scenarios uws,cluster,ws] [--topics 1000]
 *     [--sockets-per-topic 10] [--rate 1000] [--duration 20] [--clients 3] [--repeat 1] [--write]
 *
 * `--write` replaces the `## Worker` section of benchmarks/RESULTS.md.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireRedis, deleteKeys, uniquePrefix, type TestRedis } from '../../test/helpers/redis.js';
import type { FromClient, SocketAssignment, ToClient } from './loadClient.js';
import { HERE, cpuSeconds, memory, spawnNode, startWorkerProcess, type WorkerProc } from './processes.js';

const { values: args } = parseArgs({
  options: {
    scenarios: { type: 'string', default: 'uws,cluster,ws' },
    topics: { type: 'string', default: '1000' },
    'sockets-per-topic': { type: 'string', default: '10' },
    rate: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '20' },
    clients: { type: 'string', default: '3' },
    repeat: { type: 'string', default: '1' },
    write: { type: 'boolean', default: false },
  },
});
const TOPICS = Number(args.topics);
const PER_TOPIC = Number(args['sockets-per-topic']);
const RATE = Number(args.rate);
const DURATION_S = Number(args.duration);
const CLIENTS = Number(args.clients);
const REPEAT = Number(args.repeat);
const WARMUP_S = 3;
const SCENARIOS = args.scenarios.split(',') as Scenario[];
const SECRET = 'benchmark-secret-0123456789abcdefghij';
const RESULTS = fileURLToPath(new URL('../RESULTS.md', import.meta.url));

type Scenario = 'uws' | 'cluster' | 'ws';

const children: ChildProcess[] = [];
// Hard stop: whatever happens, the benchmark ends.
const budgetMs = REPEAT * SCENARIOS.length * ((DURATION_S + WARMUP_S) * 1000 + 180_000);
setTimeout(() => {
  console.error(`benchmark exceeded its ${budgetMs / 1000} s budget; stopping`);
  for (const child of children) child.kill('SIGKILL');
  process.exit(1);
}, budgetMs).unref();
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));

/** Microseconds during which some runnable task waited for a CPU (Linux PSI); null where PSI is unavailable. */
function cpuPressureMicros(): number | null {
  try {
    return Number(/^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1]);
  } catch {
    return null;
  }
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

function post(port: number, path: string, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'X-Worker-Secret': SECRET, 'Content-Type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/** Publishes at RATE/s for `seconds`: every tick sends whatever is due by the clock so far. */
async function publishSteadily(port: number, topics: string[], seconds: number): Promise<{ ok: number; failures: number; seconds: number }> {
  let sent = 0;
  let ok = 0;
  let failures = 0;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  const total = RATE * seconds;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE));
    for (; sent < due; sent++) {
      const topic = topics[sent % topics.length]!;
      const body = `{"topic":"${topic}","payload":{"t":${performance.timeOrigin + performance.now()},"s":${sent}}}`;
      const done = post(port, '/internal/publish', body).then((status) => {
        if (status === 200) ok++;
        else failures++;
        inFlight.delete(done);
      });
      inFlight.add(done);
    }
    await sleep(2);
  }
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(inFlight);
  return { ok, failures, seconds: elapsed };
}

function clientMessage<T extends FromClient['type']>(child: ChildProcess, type: T): Promise<Extract<FromClient, { type: T }>> {
  return new Promise((resolve) => {
    const onMessage = (message: FromClient) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      resolve(message as Extract<FromClient, { type: T }>);
    };
    child.on('message', onMessage);
  });
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Result {
  scenario: Scenario;
  run: number;
  connections: number;
  /** Why the sockets that never reached auth_ok failed (empty when all opened). */
  failedToOpen: string[];
  connectSeconds: number;
  publishesPerSecond: number;
  publishFailures: number;
  delivered: number;
  expected: number;
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  unexpectedCloses: number;
  /** Share of the measured period in which some task on the machine waited for a CPU. */
  cpuPressure: number;
  workers: { idleMiB: number; afterConnectMiB: number; cpuPercent: number; rssMiB: number; peakMiB: number }[];
}

async function runScenario(scenario: Scenario, run: number, redis: TestRedis | null): Promise<Result> {
  const prefix = uniquePrefix('bench');
  const workers: WorkerProc[] = [];
  if (scenario === 'cluster') {
    if (!redis) throw new Error('cluster scenario needs Redis');
    workers.push(await startWorkerProcess(children, SECRET, 'uws', { url: redis.url, prefix }), await startWorkerProcess(children, SECRET, 'uws', { url: redis.url, prefix }));
  } else {
    workers.push(await startWorkerProcess(children, SECRET, scenario === 'ws' ? 'ws' : 'uws'));
  }
  const publishPort = workers[0]!.internalPort;
  const topics = Array.from({ length: TOPICS }, (_, i) => `station.${i + 1}`);
  for (const topic of topics) {
    const status = await post(publishPort, '/internal/register', JSON.stringify({ topic, meta: { require_token: true } }));
    if (status !== 200) throw new Error(`register ${topic}: HTTP ${status}`);
  }

  const idle = workers.map((w) => memory(w.child.pid!).rssMiB);
  const plans: SocketAssignment[][] = Array.from({ length: CLIENTS }, () => []);
  topics.forEach((topic, i) => {
    for (let j = 0; j < PER_TOPIC; j++) {
      const k = i * PER_TOPIC + j;
      plans[k % CLIENTS]!.push({ port: workers[k % workers.length]!.wsPort, topic });
    }
  });
  const clients = plans.map(() => spawnNode(children, `${HERE}loadClient.ts`, []));
  const connectStarted = performance.now();
  const ready = await Promise.all(
    clients.map((client, i) => {
      const answer = clientMessage(client, 'ready');
      client.send({ type: 'connect', sockets: plans[i]!, secret: SECRET, concurrency: 50 } satisfies ToClient);
      return answer;
    }),
  );
  const connectSeconds = (performance.now() - connectStarted) / 1000;
  const connections = ready.reduce((sum, r) => sum + r.connected, 0);
  const afterConnect = workers.map((w) => memory(w.child.pid!).rssMiB);
  const failureReasons = ready.flatMap((r) => r.failureReasons);
  if (failureReasons.length > 0) console.error(`${scenario}: ${failureReasons.length} sockets failed to open, first: ${failureReasons.slice(0, 3).join('; ')}`);
  console.error(`${scenario}: ${connections} sockets open in ${connectSeconds.toFixed(1)} s; publishing ${RATE}/s for ${DURATION_S} s`);

  // Warm-up at the same rate (JIT, buffers, connection pool), then clients forget what they measured.
  await publishSteadily(publishPort, topics, WARMUP_S);
  await sleep(500);
  await Promise.all(
    clients.map((client) => {
      const answer = clientMessage(client, 'reset_done');
      client.send({ type: 'reset' } satisfies ToClient);
      return answer;
    }),
  );
  const cpuBefore = workers.map((w) => cpuSeconds(w.child.pid!));
  const pressureBefore = cpuPressureMicros();
  const { ok, failures, seconds: publishSeconds } = await publishSteadily(publishPort, topics, DURATION_S);
  const cpuPercent = workers.map((w, i) => ((cpuSeconds(w.child.pid!) - cpuBefore[i]!) / publishSeconds) * 100);
  const pressureAfter = cpuPressureMicros();
  const cpuPressure = pressureBefore === null || pressureAfter === null ? NaN : (pressureAfter - pressureBefore) / 1e4 / publishSeconds;
  await sleep(1500);

  const results = await Promise.all(
    clients.map((client) => {
      const answer = clientMessage(client, 'result');
      client.send({ type: 'collect' } satisfies ToClient);
      return answer;
    }),
  );
  const latencies = Float64Array.from(results.flatMap((r) => r.latencies)).sort();
  const delivered = results.reduce((sum, r) => sum + r.delivered, 0);
  const workerStats = workers.map((w, i) => ({ idleMiB: idle[i]!, afterConnectMiB: afterConnect[i]!, cpuPercent: cpuPercent[i]!, ...memory(w.child.pid!) }));

  for (const client of clients) client.send({ type: 'exit' } satisfies ToClient);
  await Promise.all(clients.map((client) => once(client, 'exit')));
  for (const w of workers) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => once(w.child, 'exit')));
  if (scenario === 'cluster' && redis) await deleteKeys(redis.url, prefix);

  return {
    scenario,
    run,
    connections,
    failedToOpen: failureReasons,
    connectSeconds,
    publishesPerSecond: ok / publishSeconds,
    publishFailures: failures,
    delivered,
    // Publishes go round-robin over the topics, so each held socket expects ok / TOPICS of them.
    expected: (ok * connections) / TOPICS,
    deliveriesPerSecond: delivered / publishSeconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.length ? latencies[latencies.length - 1]! : NaN,
    unexpectedCloses: results.reduce((sum, r) => sum + r.unexpectedCloses, 0),
    cpuPressure,
    workers: workerStats,
  };
}

const LABEL: Record<Scenario, string> = {
  uws: 'uWS worker, 1 process',
  cluster: 'uWS worker, 2 processes + Redis',
  ws: '`ws` comparison worker, 1 process',
};

const mib = (n: number) => n.toFixed(0);
const ms = (n: number) => n.toFixed(2);

function table(results: Result[]): string {
  const rows = [
    '| scenario | run | connections held | publishes/s | deliveries/s | delivered / expected | p50 ms | p99 ms | max ms | worker CPU % | worker RSS idle MiB | worker RSS after connect MiB | worker RSS end MiB | worker peak RSS MiB | machine CPU pressure % |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    rows.push(
      `| ${LABEL[r.scenario]} | ${r.run} | ${r.connections.toLocaleString('en')} | ${r.publishesPerSecond.toFixed(0)} | ${r.deliveriesPerSecond.toFixed(0)} | ` +
        `${r.delivered.toLocaleString('en')} / ${r.expected.toLocaleString('en')} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ` +
        `${r.workers.map((w) => w.cpuPercent.toFixed(0)).join(' / ')} | ` +
        `${r.workers.map((w) => mib(w.idleMiB)).join(' / ')} | ${r.workers.map((w) => mib(w.afterConnectMiB)).join(' / ')} | ${r.workers.map((w) => mib(w.rssMiB)).join(' / ')} | ${r.workers.map((w) => mib(w.peakMiB)).join(' / ')} | ${r.cpuPressure.toFixed(0)} |`,
    );
  }
  return rows.join('\n');
}

/** One line per target-bearing scenario, over all its runs. */
function verdicts(results: Result[]): string[] {
  return SCENARIOS.filter((scenario) => scenario !== 'ws').flatMap((scenario) => {
    const runs = results.filter((r) => r.scenario === scenario);
    if (runs.length === 0) return [];
    const peaks = runs.map((r) => Math.max(...r.workers.map((w) => w.peakMiB)));
    const rssMet = peaks.filter((peak) => peak < 300).length;
    const p99Met = runs.filter((r) => r.p99 < 50).length;
    const lost = runs.reduce((sum, r) => sum + (r.expected - r.delivered), 0);
    const closes = runs.reduce((sum, r) => sum + r.unexpectedCloses, 0);
    const failedToOpen = runs.flatMap((r) => r.failedToOpen);
    const openNote = failedToOpen.length === 0 ? '' : ` ${failedToOpen.length} of ${(TOPICS * PER_TOPIC * runs.length).toLocaleString('en')} sockets failed to open (${failedToOpen.slice(0, 3).join('; ')}).`;
    return [
      `- ${LABEL[scenario]}: peak RSS ${peaks.map(mib).join(', ')} MiB (target < 300 MB met in ${rssMet} of ${runs.length} runs); ` +
        `p99 ${runs.map((r) => ms(r.p99)).join(', ')} ms (target < 50 ms met in ${p99Met} of ${runs.length} runs); ` +
        `${lost} deliveries missing on held sockets, ${closes} sockets closed unexpectedly.${openNote}`,
    ];
  });
}

/** What uWebSockets.js buys: the single uWS worker against the `ws` worker under the same load, medians over the runs. */
function comparison(results: Result[]): string {
  const median = (values: number[]) => Float64Array.from(values).sort()[Math.floor(values.length / 2)]!;
  const of = (scenario: Scenario) => results.filter((r) => r.scenario === scenario);
  const uws = of('uws');
  const ws = of('ws');
  if (uws.length === 0 || ws.length === 0) return '';
  const figure = (runs: Result[], pick: (r: Result) => number) => median(runs.map(pick));
  const cpu = (r: Result) => r.workers[0]!.cpuPercent;
  const growth = (r: Result) => r.workers[0]!.peakMiB - r.workers[0]!.idleMiB;
  const ratio = (pick: (r: Result) => number) => `${figure(uws, pick).toFixed(1)} vs ${figure(ws, pick).toFixed(1)} (${(figure(uws, pick) / figure(ws, pick)).toFixed(2)}×)`;
  return (
    `- uWS against \`ws\` (medians over the runs): worker CPU % ${ratio(cpu)}, memory for 10k sockets (peak − idle MiB) ${ratio(growth)}, ` +
    `p50 ms ${ratio((r) => r.p50)}, p99 ms ${ratio((r) => r.p99)}. The load generators share the two cores with the worker, so the latency tail follows them as much as the worker.`
  );
}

/** The latency tail is only meaningful on a quiet machine; say so when it was not. */
function contentionNote(results: Result[]): string {
  const pressures = results.map((r) => r.cpuPressure).filter((p) => !Number.isNaN(p));
  const contended = pressures.filter((p) => p > 50).length;
  if (contended === 0) return '';
  return (
    `- ${contended} of ${pressures.length} runs had tasks waiting for a CPU more than half of the time (other jobs on the machine); ` +
    'their p99/max measure that contention as much as the worker. p50, delivery counts, CPU and memory are the robust figures.'
  );
}

function writeSection(results: Result[], command: string): void {
  const section = [
    '## Worker',
    '',
    `Live-update worker (lib/worker) under ${(TOPICS * PER_TOPIC).toLocaleString('en')} WebSockets (${TOPICS.toLocaleString('en')} topics × ${PER_TOPIC}),`,
    `${RATE} publishes/s through the internal API for ${DURATION_S} s, each publish reaching the ${PER_TOPIC} sockets of one topic.`,
    `Latency is publish→deliver: from just before the HTTP publish request to the client parsing the push frame;`,
    `a ${WARMUP_S} s warm-up at the same rate precedes the measured period and is not counted.`,
    `Load from ${CLIENTS} client processes plus the publishing orchestrator, all on loopback on the same machine as the worker(s).`,
    'Memory is VmRSS / VmHWM of the worker process from /proc (idle = topics registered, no sockets yet; the worker',
    'runs under tsx, which accounts for much of the idle figure), CPU its user + system time over the measured period',
    '(100 % = one core); two figures are worker A / worker B. Machine CPU pressure is the share of the measured period',
    'in which some task on the machine was waiting for a CPU (/proc/pressure/cpu): the machine is shared, and the',
    'latency tail follows it.',
    '',
    `- Command: \`${command}\``,
    `- Machine: nproc ${availableParallelism()}, Node ${process.version}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    table(results),
    '',
    ...verdicts(results),
    comparison(results),
    contentionNote(results),
    '',
  ].join('\n');
  const current = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '# Benchmark results\n';
  const start = current.indexOf('\n## Worker\n');
  let next: string;
  if (start < 0) next = `${current.trimEnd()}\n\n${section}`;
  else {
    const end = current.indexOf('\n## ', start + 1);
    next = current.slice(0, start + 1) + section + (end < 0 ? '' : current.slice(end));
  }
  writeFileSync(RESULTS, next);
}

const needsRedis = SCENARIOS.includes('cluster');
const redis = needsRedis ? await acquireRedis() : null;
if (needsRedis && !redis) console.error('cluster scenario skipped: no Redis (set REDIS_URL or install redis-server)');
const results: Result[] = [];
for (const scenario of SCENARIOS) {
  if (scenario === 'cluster' && !redis) continue;
  for (let run = 1; run <= REPEAT; run++) results.push(await runScenario(scenario, run, redis));
}
await redis?.stop();
agent.destroy();

console.log(table(results));
for (const line of [...verdicts(results), comparison(results), contentionNote(results)]) if (line !== '') console.log(line);
if (args.write) writeSection(results, `node --import tsx benchmarks/worker/run.ts ${process.argv.slice(2).join(' ')}`.trim());
process.exit(0);
