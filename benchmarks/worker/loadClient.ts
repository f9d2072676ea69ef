/**
 * Load-generator client process: opens its share of the benchmark's
 * WebSockets, authenticates them, and records publish→deliver latency from the
 * timestamp each payload carries. Driven by the orchestrator over IPC; exits
 * when told to or when the orchestrator goes away.
 */
import WebSocket from 'ws';
import { createBrowserToken } from '../../lib/worker/browserToken.js';

export interface SocketAssignment {
  port: number;
  topic: string;
}

export type ToClient =
  | { type: 'connect'; sockets: SocketAssignment[]; secret: string; concurrency: number }
  | { type: 'reset' }
  | { type: 'collect' }
  | { type: 'exit' };

export type FromClient =
  | { type: 'ready'; connected: number; failureReasons: string[] }
  | { type: 'reset_done' }
  | { type: 'result'; latencies: number[]; delivered: number; unexpectedCloses: number; open: number };

const now = () => performance.timeOrigin + performance.now();
const send = (message: FromClient) => process.send?.(message);

const sockets: WebSocket[] = [];
const latencies: number[] = [];
let delivered = 0;
let unexpectedCloses = 0;
let stopping = false;

/** Opens and authenticates one socket; resolves `true`, or the reason it failed (so a missing socket is explained). */
function open({ port, topic }: SocketAssignment, secret: string): Promise<true | string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?topic=${topic}`, { perMessageDeflate: false });
    let authenticated = false;
    ws.on('open', () => ws.send(JSON.stringify({ type: 'auth', token: createBrowserToken(secret, { userId: 1, topic, ttlSeconds: 3600 }) })));
    ws.on('message', (data: Buffer) => {
      if (!authenticated) {
        authenticated = data.toString() === '{"type":"auth_ok"}';
        if (authenticated) sockets.push(ws);
        return resolve(authenticated || `first frame ${data.toString()}`);
      }
      const frame = JSON.parse(data.toString()) as { payload: { t: number } };
      latencies.push(Math.round((now() - frame.payload.t) * 100) / 100);
      delivered++;
    });
    ws.on('error', (error) => resolve(`error ${error.message}`));
    ws.on('close', (code) => {
      if (!authenticated) resolve(`closed ${code} before auth_ok`);
      else if (!stopping) unexpectedCloses++;
    });
  });
}

async function connectAll(assignments: SocketAssignment[], secret: string, concurrency: number): Promise<void> {
  let next = 0;
  let connected = 0;
  const failureReasons: string[] = [];
  async function lane(): Promise<void> {
    while (next < assignments.length) {
      const assignment = assignments[next++]!;
      const outcome = await open(assignment, secret);
      if (outcome === true) connected++;
      else failureReasons.push(`${assignment.topic}: ${outcome}`);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane));
  send({ type: 'ready', connected, failureReasons });
}

process.on('message', (message: ToClient) => {
  if (message.type === 'connect') void connectAll(message.sockets, message.secret, message.concurrency);
  else if (message.type === 'reset') {
    latencies.length = 0;
    delivered = 0;
    send({ type: 'reset_done' });
  } else if (message.type === 'collect') {
    const openCount = sockets.filter((ws) => ws.readyState === WebSocket.OPEN).length;
    send({ type: 'result', latencies, delivered, unexpectedCloses, open: openCount });
  } else {
    stopping = true;
    for (const ws of sockets) ws.terminate();
    process.exit(0);
  }
});
process.once('disconnect', () => process.exit(0));
