/**
 * The public live log's pushes (docs/public-log.md, "Live pushes") end to end, at a small scale:
 * SOCKETS anonymous sockets on one logbook's public topic of one worker (in this process), QSOs
 * logged through v1 `api/qso` of `logbook serve --workers 1` at RATE a second. Reports the time
 * from each request's answer (its commit is before it) to the push's arrival on every socket,
 * p50 / p99, and how many pushes were lost. Issue 49's 100k-socket figure needs several workers
 * and load processes; this one shows the pipeline's own latency.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/public-push.ts \
 *     [--sockets 2000] [--seconds 20] [--rate 2]
 */
import WebSocket from 'ws';
import { numberOption, percentile, scratchDatabase } from './lib/scratch.js';
import { startServe } from './lib/serveProcess.js';
import { createUser } from '../lib/accounts/users.js';
import { createStation } from '../lib/accounts/stations.js';
import { createLogbook } from '../lib/accounts/logbooks.js';
import { createKey } from '../lib/auth/keys.js';
import { startWorker } from '../lib/worker/index.js';
import { createLogger } from '../lib/log.js';

const SOCKETS = numberOption('sockets', 2000);
const SECONDS = numberOption('seconds', 20);
const RATE = numberOption('rate', 2);
const SECRET = 'benchmark-secret-0123456789-abcdefghij';

const database = await scratchDatabase('public_push');
const db = database.pool;
const userId = await createUser(db, { username: `push-${Date.now()}`, callsign: 'EA8PSH' });
const stationId = await createStation(db, { userId, name: 'Island', callsign: 'EA8PSH', gridsquare: 'IL18' });
const { key } = await createKey(db, userId, 'rw');
const { slug } = await createLogbook(db, { userId, name: 'Live', stationIds: [stationId], publication: { public: true } });

const worker = await startWorker({ wsPort: 0, internalPort: 0, wsBind: '127.0.0.1', secret: SECRET, logger: createLogger({}, true) });
const server = await startServe(database.url, {
  config: {
    worker: { url: `http://127.0.0.1:${worker.internalPort}`, secret: SECRET, public_url: `ws://127.0.0.1:${worker.wsPort}` },
    api_rate_limits: { public: { requests: 100_000_000, window: 60 } },
  },
});
const grant = await (await fetch(`${server.url}/api/public/${slug}/live`)).json() as { data: { ws_url: string; topic: string } };

/** When each logged call's request was answered, and when each socket saw it. */
const answered = new Map<string, number>();
const latencies: number[] = [];
let received = 0;
const sockets: WebSocket[] = [];
for (let i = 0; i < SOCKETS; i += 200) {
  await Promise.all(Array.from({ length: Math.min(200, SOCKETS - i) }, () => new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(grant.data.ws_url);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'auth', token: 'public' })));
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as { type: string; payload?: { log: { recent: Array<{ call: string }> } } };
      if (frame.type === 'auth_ok') resolve();
      if (frame.type !== 'push') return;
      const sent = answered.get(frame.payload!.log.recent[0]!.call);
      received++;
      if (sent !== undefined) latencies.push(performance.now() - sent);
    });
    ws.on('error', reject);
    sockets.push(ws);
  })));
}

const calls: string[] = [];
const end = Date.now() + SECONDS * 1000;
let n = 0;
while (Date.now() < end) {
  const call = `PA${n++}X`;
  const now = new Date().toISOString();
  const adif = `<call:${call.length}>${call}<band:3>20m<mode:3>FT8<qso_date:8>${now.slice(0, 10).replace(/-/g, '')}<time_on:6>${now.slice(11, 19).replace(/:/g, '')}<eor>`;
  const started = performance.now();
  const res = await fetch(`${server.url}/api/qso`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key, station_profile_id: String(stationId), type: 'adif', string: adif }) });
  await res.arrayBuffer();
  if (res.status !== 201) throw new Error(`api/qso: HTTP ${res.status}`);
  answered.set(call, performance.now());
  calls.push(call);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 / RATE - (performance.now() - started))));
}
await new Promise((resolve) => setTimeout(resolve, 3000));
const pushed = [...latencies].sort((a, b) => a - b);
const expected = calls.length * SOCKETS;
const pushedReceived = received;

// The ceiling, in the same sitting: the same payload published straight to the worker, timed from the call.
const last = await (await fetch(`${server.url}/api/public/${slug}`)).json() as { data: { recent: Array<{ call: string }> } };
latencies.length = 0;
for (let i = 0; i < calls.length; i++) {
  const call = `CEIL${i}`;
  last.data.recent[0]!.call = call;
  const started = performance.now();
  answered.set(call, started);
  const res = await fetch(`http://127.0.0.1:${worker.internalPort}/internal/publish`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-worker-secret': SECRET },
    body: JSON.stringify({ topic: grant.data.topic, payload: { type: 'public_log', log: last.data } }),
  });
  await res.arrayBuffer();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 / RATE - (performance.now() - started))));
}
await new Promise((resolve) => setTimeout(resolve, 3000));
const ceiling = [...latencies].sort((a, b) => a - b);

const row = (label: string, sorted: number[], got: number) =>
  `| ${label} | ${expected} | ${got} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} | ${sorted.at(-1)?.toFixed(1)} |`;
console.log(`\npublic log pushes: ${SOCKETS} sockets, ${calls.length} QSOs through v1 api/qso at ${RATE}/s`);
console.log('| path | pushes expected | received | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|---|');
console.log(row('v1 api/qso → page rebuilt → worker → sockets', pushed, pushedReceived));
console.log(row('ceiling: the same payload published to the worker', ceiling, received - pushedReceived));
for (const ws of sockets) ws.terminate();
await server.stop();
await worker.close();
await database.dispose();
