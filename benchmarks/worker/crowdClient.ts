/**
 * Load-generator process of the crowd benchmark (crowd.ts): opens its share of anonymous sockets
 * on one public topic from its own loopback source address, and counts per publish how many of
 * them received it and how late. A socket its worker closed reconnects after a random delay
 * within RECONNECT_SPREAD_MS, as the public page does, then fetches the page's JSON to catch up.
 * Driven by the orchestrator over IPC; exits when told to or when the orchestrator goes away.
 */
import { Agent, get } from 'node:http';
import WebSocket from 'ws';

export interface CrowdPlan {
  /** Worker WebSocket ports, the sockets spread evenly over them. */
  ports: number[];
  sockets: number;
  topic: string;
  /** Source address of every socket of this process (127.0.0.2, …): one address has ~28,000 ports. */
  localAddress: string;
  concurrency: number;
  /** GET after a reconnect (the page catching up), or null. */
  catchUpUrl: string | null;
}

export type ToCrowdClient =
  | { type: 'connect'; plan: CrowdPlan }
  | { type: 'reset'; publishes: number }
  | { type: 'collect' }
  | { type: 'exit' };

export interface CrowdCounts {
  /** Per measured publish (by its sequence number): sockets that received it, and the latest arrival, ms after the publish. */
  received: number[];
  slowest: number[];
  /** Arrivals per whole millisecond of latency (the last bucket: that or more). */
  histogram: number[];
  open: number;
  closes: number;
  reconnected: number;
  /** When each reconnected socket had its auth_ok again (epoch ms). */
  reconnectedAt: number[];
  /** ms of each catch-up GET, and how many did not answer 200. */
  catchUpMs: number[];
  catchUpFailures: number;
}

export type FromCrowdClient = { type: 'ready'; connected: number; failureReasons: string[] } | { type: 'reset_done' } | ({ type: 'counts' } & CrowdCounts);

const RECONNECT_SPREAD_MS = 1000;
const HISTOGRAM_MS = 10_000;
const now = () => performance.timeOrigin + performance.now();
const send = (message: FromCrowdClient) => process.send?.(message);

let plan: CrowdPlan;
let stopping = false;
let received = new Uint32Array(0);
let slowest = new Float64Array(0);
const histogram = new Uint32Array(HISTOGRAM_MS + 1);
const openSockets = new Set<WebSocket>();
const reconnectedAt: number[] = [];
const catchUpMs: number[] = [];
let catchUpFailures = 0;
let closes = 0;
let reconnected = 0;
let agent: Agent;

function deliver(data: Buffer): void {
  const { payload } = JSON.parse(data.toString()) as { payload: { t: number; s: number } };
  if (payload.s < 0 || payload.s >= received.length) return;
  const late = now() - payload.t;
  received[payload.s]!++;
  if (late > slowest[payload.s]!) slowest[payload.s] = late;
  histogram[Math.min(HISTOGRAM_MS, Math.floor(late))]!++;
}

function catchUp(): void {
  if (!plan.catchUpUrl) return;
  const started = performance.now();
  get(plan.catchUpUrl, { agent }, (res) => {
    res.resume();
    res.on('end', () => {
      if (res.statusCode === 200) catchUpMs.push(performance.now() - started);
      else catchUpFailures++;
    });
  }).on('error', () => catchUpFailures++);
}

/** Opens one socket until it is authenticated; resolves true, or why it failed. */
function open(port: number, reconnecting: boolean): Promise<true | string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?topic=${plan.topic}`, { perMessageDeflate: false, localAddress: plan.localAddress });
    let authenticated = false;
    ws.on('open', () => ws.send('{"type":"auth","token":"public"}'));
    ws.on('message', (data: Buffer) => {
      if (authenticated) return deliver(data);
      authenticated = data.toString() === '{"type":"auth_ok"}';
      if (authenticated) {
        openSockets.add(ws);
        if (reconnecting) {
          reconnected++;
          reconnectedAt.push(now());
          catchUp();
        }
      }
      resolve(authenticated || `first frame ${data.toString()}`);
    });
    ws.on('error', (error) => resolve(`error ${error.message}`));
    ws.on('close', () => {
      openSockets.delete(ws);
      if (!authenticated) return resolve('closed before auth_ok');
      if (stopping) return;
      closes++;
      setTimeout(() => void reconnect(port), Math.random() * RECONNECT_SPREAD_MS);
    });
  });
}

/** A page retries until its worker is back. */
async function reconnect(port: number): Promise<void> {
  while (!stopping && (await open(port, true)) !== true) await new Promise((resolve) => setTimeout(resolve, 250 + Math.random() * 250));
}

async function connectAll(): Promise<void> {
  agent = new Agent({ keepAlive: true, maxSockets: 20 });
  let next = 0;
  let connected = 0;
  const failureReasons: string[] = [];
  async function lane(): Promise<void> {
    while (next < plan.sockets) {
      const port = plan.ports[next++ % plan.ports.length]!;
      const outcome = await open(port, false);
      if (outcome === true) connected++;
      else failureReasons.push(outcome);
    }
  }
  await Promise.all(Array.from({ length: plan.concurrency }, lane));
  send({ type: 'ready', connected, failureReasons: failureReasons.slice(0, 5) });
}

process.on('message', (message: ToCrowdClient) => {
  if (message.type === 'connect') {
    plan = message.plan;
    void connectAll();
  } else if (message.type === 'reset') {
    received = new Uint32Array(message.publishes);
    slowest = new Float64Array(message.publishes);
    histogram.fill(0);
    reconnectedAt.length = 0;
    catchUpMs.length = 0;
    catchUpFailures = 0;
    closes = 0;
    reconnected = 0;
    send({ type: 'reset_done' });
  } else if (message.type === 'collect') {
    send({
      type: 'counts', received: [...received], slowest: [...slowest], histogram: [...histogram], open: openSockets.size,
      closes, reconnected, reconnectedAt, catchUpMs, catchUpFailures,
    });
  } else {
    stopping = true;
    for (const ws of openSockets) ws.terminate();
    process.exit(0);
  }
});
process.once('disconnect', () => process.exit(0));
