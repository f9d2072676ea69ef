import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import type { Config } from '../config.js';
import { bulkPoolSizeFor, openDatabase, pagePoolSizeFor, type Database } from '../db/database.js';
import type { Logger } from '../log.js';
import { welcome } from './welcome.js';

/**
 * `serve --workers N`: N API processes on one port (node:cluster hands connections round-robin),
 * sharing nothing but PostgreSQL (and Redis when configured). The primary opens the database
 * (starting the embedded server and migrating) once, then forks; the workers connect to it
 * without migrating and serve. A signal to the primary stops every worker gracefully (in-flight
 * requests finish) before the database closes.
 */

export interface ServeOptions {
  config: Config;
  logger: Logger;
  port: number;
  host: string;
  /** API processes of the instance (`--workers`): they share its bulk connections. */
  workers: number;
}

/** Resolves on the first SIGINT or SIGTERM (or `also`, when given), with its name. */
export function stopSignal(also?: Promise<string>): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => resolve(signal);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    void also?.then(stop);
  });
}

/** One process serving until stopped; `db` is closed by the caller. */
export async function serveInProcess(options: ServeOptions, db: Database, stopped: Promise<string>): Promise<void> {
  // Loaded on demand: every other command starts faster without the whole HTTP app.
  const { startServer } = await import('../server.js');
  const server = await startServer({ ...options, db });
  if (cluster.isPrimary) {
    options.logger.info('listening', { url: server.url });
    await welcome(server.url, db.pool);
  }
  const signal = await stopped;
  db.stopping();
  // Ctrl-C reaches every process of the group: the primary alone says so.
  if (cluster.isPrimary) options.logger.info('shutting down', { signal });
  await server.close();
}

/** A cluster worker: the primary's database (DATABASE_URL it set), already migrated. */
export async function serveAsWorker(options: ServeOptions): Promise<void> {
  const logger = options.logger.child({ worker: cluster.worker!.id, pid: process.pid });
  const db = await openDatabase({
    logger, migrate: false, statementTimeoutMs: options.config.statement_timeout_ms, poolMode: options.config.database.pool_mode,
    bulkPoolSize: bulkPoolSizeFor(options.workers), pagePoolSize: pagePoolSizeFor(options.workers),
  });
  try {
    // The primary going away (killed without a chance to stop us) ends the worker too.
    await serveInProcess({ ...options, logger }, db, stopSignal(once(process, 'disconnect').then(() => 'disconnect')));
  } finally {
    await db.close();
    // The IPC channel would keep the process alive.
    if (process.connected) process.disconnect();
  }
}

/** A worker ended by Ctrl-C or a stop signal (it reaches the whole process group): no crash. */
const stoppedBySignal = (signal: string | null) => signal === 'SIGINT' || signal === 'SIGTERM';

/** Waits for `count` workers to listen; a worker that exits first (not by a stop signal) fails the start. */
function allListening(workers: Worker[]): Promise<{ port: number }> {
  return new Promise((resolve, reject) => {
    let listening = 0;
    for (const worker of workers) {
      worker.once('exit', (code, signal) => {
        if (!stoppedBySignal(signal)) reject(new Error(`worker ${worker.id} exited (${code}) before listening`));
      });
      worker.once('listening', (address) => {
        if (++listening === workers.length) resolve({ port: address.port });
      });
    }
  });
}

/**
 * V8 flags of every worker: a first old-space limit of 128 MB instead of one derived from the
 * small heap an API process lives with (20–30 MB). Pages are read as COPY output, Buffers outside
 * the heap that V8 counts against the same limit; with the small default it ran a full collection
 * every ~150 ms of list requests, with marking steps of up to 38 ms, and the small pages' p99 went
 * from ~20 to ~33 ms. With this flag no full collection ran in those scenarios and the p99 came
 * back to 16–25 ms (benchmarks/RESULTS.md, "JSON list pages by COPY"). Memory stays bounded:
 * the heap is collected when it reaches the limit, as before, only later.
 */
export const WORKER_V8_FLAGS = ['--initial-old-space-size=128'];

/** The primary of `serve --workers N` (N ≥ 2): forks, restarts crashed workers, stops them all on a signal. */
export async function servePrimary(options: ServeOptions, db: Database, count: number): Promise<void> {
  const { logger } = options;
  const env = { DATABASE_URL: db.url };
  cluster.setupPrimary({ execArgv: [...process.execArgv, ...WORKER_V8_FLAGS] });
  let stopping = false;
  const fork = (): Worker => {
    const worker = cluster.fork(env);
    worker.once('exit', (code, signal) => {
      if (stopping || stoppedBySignal(signal)) return;
      logger.error('worker exited; starting another', { worker: worker.id, code, signal });
      setTimeout(() => {
        if (!stopping) fork();
      }, 1000).unref();
    });
    return worker;
  };
  const workers = Array.from({ length: count }, fork);
  // Set at once: Ctrl-C also reaches the workers, whose exits are then no crash to replace.
  const stopped = stopSignal().then((signal) => {
    stopping = true;
    db.stopping();
    return signal;
  });
  try {
    const { port } = await Promise.race([allListening(workers), stopped.then(() => null)]) ?? { port: null };
    if (port !== null) {
      const url = `http://${options.host}:${port}`;
      logger.info('listening', { url, workers: count });
      await welcome(url, db.pool);
    }
    const signal = await stopped;
    logger.info('shutting down', { signal });
  } finally {
    stopping = true;
    const running = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined && !worker.isDead());
    await Promise.all(running.map((worker) => {
      const exited = once(worker, 'exit');
      worker.process.kill('SIGTERM');
      return exited;
    }));
  }
}
