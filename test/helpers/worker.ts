/**
 * Helpers for worker tests: workers on free loopback ports (in this process or
 * as child processes), internal API calls, and a WebSocket client that queues
 * frames so tests can await them in order.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import type { Test } from 'tap';
import type { LogFields, Logger } from '../../lib/log.js';
import { deleteKeys, uniquePrefix, type TestRedis } from './redis.js';
import { startWorker, type RunningWorker, type WorkerOptions } from '../../lib/worker/index.js';

export const SECRET = 'test-secret-0123456789-abcdefghijklmnop';

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: LogFields;
}

/** A logger that keeps lines in memory, so tests stay quiet and can assert on what was logged. */
export function memoryLogger(lines: LogLine[] = []): Logger & { lines: LogLine[] } {
  const make = (base: LogFields): Logger & { lines: LogLine[] } => {
    const emit = (level: LogLine['level']) => (message: string, fields?: LogFields) => {
      lines.push({ level, message, fields: { ...base, ...fields } });
    };
    return { lines, info: emit('info'), warn: emit('warn'), error: emit('error'), child: (fields) => make({ ...base, ...fields }) };
  };
  return make({});
}

export function startTestWorker(overrides: Partial<WorkerOptions> = {}): Promise<RunningWorker> {
  return startWorker({
    wsPort: 0,
    internalPort: 0,
    wsBind: '127.0.0.1',
    secret: SECRET,
    logger: memoryLogger(),
    ...overrides,
  });
}

/** Polls `condition` every 50 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface ApiReply {
  status: number;
  text: string;
}

/** What the application sends as X-Worker-Secret by default: the secret itself, as the original's (REFERENCE §6). */
export const INTERNAL_KEY = SECRET;

/** Calls the internal API with the internal-call key, or `secret` as the header's value; `secret: null` sends no header. */
export async function callApi(
  internalPort: number,
  method: string,
  path: string,
  body?: unknown,
  { secret = INTERNAL_KEY as string | null, raw }: { secret?: string | null; raw?: string } = {},
): Promise<ApiReply> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (secret !== null) headers['X-Worker-Secret'] = secret;
  const res = await fetch(`http://127.0.0.1:${internalPort}${path}`, {
    method,
    headers,
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  return { status: res.status, text: await res.text() };
}

export async function registerTopic(internalPort: number, topic: string, requireToken = true): Promise<void> {
  const reply = await callApi(internalPort, 'POST', '/internal/register', { topic, meta: { require_token: requireToken } });
  if (reply.status !== 200) throw new Error(`register ${topic}: ${reply.status} ${reply.text}`);
}

export async function publish(internalPort: number, topic: string, payload: unknown): Promise<ApiReply> {
  return callApi(internalPort, 'POST', '/internal/publish', { topic, payload });
}

export type Frame = Record<string, unknown>;

export interface TestClient {
  ws: WebSocket;
  /** Next frame, or rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<Frame>;
  /** Resolves true if no frame arrives within `ms`. */
  silentFor(ms: number): Promise<boolean>;
  /** Frames received but not yet taken by `next`. */
  pending(): Frame[];
  closed: Promise<{ code: number }>;
  auth(token: string): void;
  close(): void;
}

/** Opens `/ws?topic=…` and resolves once the socket is open (rejects on an HTTP refusal). */
export async function connectClient(wsPort: number, topic: string): Promise<TestClient> {
  const ws = new WebSocket(`ws://127.0.0.1:${wsPort}/ws?topic=${encodeURIComponent(topic)}`);
  const frames: Frame[] = [];
  let waiter: ((frame: Frame) => void) | undefined;
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as Frame;
    if (waiter) {
      const w = waiter;
      waiter = undefined;
      w(frame);
    } else frames.push(frame);
  });
  const closed = new Promise<{ code: number }>((resolve) => ws.on('close', (code) => resolve({ code })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
  return {
    ws,
    closed,
    next(timeoutMs = 2000) {
      const ready = frames.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          reject(new Error(`no frame within ${timeoutMs} ms`));
        }, timeoutMs);
        waiter = (frame) => {
          clearTimeout(timer);
          resolve(frame);
        };
      });
    },
    async silentFor(ms) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return frames.length === 0;
    },
    pending: () => frames,
    auth(token) {
      ws.send(JSON.stringify({ type: 'auth', token }));
    },
    close() {
      ws.close();
    },
  };
}

/** HTTP status of a refused WebSocket upgrade, or 101 if it was accepted. */
export function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => {
      ws.terminate();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('error', (err) => {
      if (!err.message.startsWith('Unexpected server response')) reject(err);
    });
  });
}

export interface WorkerProcess {
  pid: number;
  wsPort: number;
  internalPort: number;
  stop(): Promise<void>;
  /** SIGKILL, as in a crash: no socket is closed cleanly, nothing is flushed. */
  kill(): Promise<void>;
}

// `.js`: compiled beside this module in dist/ (npm test), or found as the .ts source by tsx.
const WORKER_MODULE = fileURLToPath(new URL('../../lib/worker/index.js', import.meta.url));
// This process's own Node flags (a loader such as tsx, source maps), without tap's hooks.
const nodeFlags = process.execArgv.filter((flag) => !flag.includes('@tapjs'));

/**
 * A worker in its own Node process (as in production); it prints its ports as one JSON line.
 * Ports default to free ones; a restart passes the ports of the worker it replaces.
 */
export async function spawnWorkerProcess(options: { redisUrl?: string; redisPrefix?: string; wsPort?: number; internalPort?: number }): Promise<WorkerProcess> {
  const script = `
    import { startWorker } from ${JSON.stringify(WORKER_MODULE)};
    const w = await startWorker({ wsPort: Number(process.env.TEST_WS_PORT), internalPort: Number(process.env.TEST_INTERNAL_PORT),
      wsBind: '127.0.0.1', secret: process.env.WORKER_SECRET,
      redisUrl: process.env.REDIS_URL, redisPrefix: process.env.TEST_REDIS_PREFIX || undefined });
    process.stdout.write(JSON.stringify({ wsPort: w.wsPort, internalPort: w.internalPort }) + '\\n');
    process.once('SIGTERM', () => w.close().then(() => process.exit(0)));
  `;
  const child = spawn(process.execPath, [...nodeFlags, '--input-type=module', '-e', script], {
    env: {
      ...process.env,
      WORKER_SECRET: SECRET,
      REDIS_URL: options.redisUrl ?? '',
      TEST_REDIS_PREFIX: options.redisPrefix ?? '',
      TEST_WS_PORT: String(options.wsPort ?? 0),
      TEST_INTERNAL_PORT: String(options.internalPort ?? 0),
      LOGBOOK_QUIET: '1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  const ports = await new Promise<{ wsPort: number; internalPort: number }>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      const newline = output.indexOf('\n');
      if (newline >= 0) resolve(JSON.parse(output.slice(0, newline)) as { wsPort: number; internalPort: number });
    });
    child.once('exit', (code) => reject(new Error(`worker process exited early (${code})`)));
  });
  return {
    pid: child.pid ?? 0,
    ...ports,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}

/** Two worker processes sharing `redis` under a prefix of their own; stopped, their keys deleted and `redis` stopped at the test's end. */
export async function spawnWorkerPair(t: Test, redis: TestRedis, label: string): Promise<[WorkerProcess, WorkerProcess]> {
  const prefix = uniquePrefix(label);
  const pair = await Promise.all([
    spawnWorkerProcess({ redisUrl: redis.url, redisPrefix: prefix }),
    spawnWorkerProcess({ redisUrl: redis.url, redisPrefix: prefix }),
  ]);
  t.teardown(async () => {
    await Promise.all(pair.map((worker) => worker.stop()));
    await deleteKeys(redis.url, prefix);
    await redis.stop();
  });
  return pair;
}
