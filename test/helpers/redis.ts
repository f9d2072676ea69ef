/**
 * Redis for tests, real and never mocked: REDIS_URL if set, else a server on
 * 127.0.0.1:6379 if it answers PING, else a throw-away `redis-server` if the
 * binary is installed, else null (the test then skips with NO_REDIS_REASON).
 * Tests sharing a server keep apart through their own key/channel prefix.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

export const NO_REDIS_REASON =
  'no Redis available: set REDIS_URL, run redis-server on 127.0.0.1:6379, or install the redis-server binary';

export interface TestRedis {
  url: string;
  /** Stops the server if this helper started it; a shared server is left running. */
  stop(): Promise<void>;
}

export interface OwnedRedisServer {
  url: string;
  port: number;
  /** SIGKILL, as in a crash; resolves once the process is gone. */
  kill(): Promise<void>;
}

/** A prefix unique to one test, for keys and Pub/Sub channels (channels ignore the DB number). */
export function uniquePrefix(label: string): string {
  return `test:${label}:${randomBytes(4).toString('hex')}:`;
}

function ping(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('data', (data) => finish(data.toString().startsWith('+PONG')));
    socket.connect(port, host, () => socket.write('PING\r\n'));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a private redis-server (on `port`, or a free one); null if the binary is missing. */
export async function startRedisServer(port?: number): Promise<OwnedRedisServer | null> {
  const listenPort = port ?? (await freePort());
  let child: ChildProcess;
  try {
    child = spawn('redis-server', ['--port', String(listenPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
  } catch {
    return null;
  }
  let exited = false;
  const gone = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
    child.once('error', () => {
      exited = true;
      resolve();
    });
  });
  for (let i = 0; i < 100 && !exited; i++) {
    if (await ping('127.0.0.1', listenPort)) {
      return {
        url: `redis://127.0.0.1:${listenPort}`,
        port: listenPort,
        async kill() {
          if (!exited) child.kill('SIGKILL');
          await gone;
        },
      };
    }
    await sleep(50);
  }
  if (!exited) child.kill('SIGKILL');
  return null;
}

export async function acquireRedis(): Promise<TestRedis | null> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => {} };
  if (await ping('127.0.0.1', 6379)) return { url: 'redis://127.0.0.1:6379', stop: async () => {} };
  const server = await startRedisServer();
  return server && { url: server.url, stop: server.kill };
}

/** Deletes the keys a test created under its prefix (SCAN, so a shared server is not blocked). */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
