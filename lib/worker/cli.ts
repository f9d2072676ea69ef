/**
 * What the `logbook worker` command needs: options from flags, environment and
 * the config file (with one-line errors naming the offending key), and a
 * runner that stops the worker cleanly on SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import type { Logger } from '../log.js';
import { MIN_SECRET_LENGTH, type WorkerOptions } from './options.js';
import { startWorker, type RunningWorker } from './server.js';

/** The `worker` object of the JSON config file; only these keys concern the worker process. */
export interface WorkerConfigSection {
  secret?: unknown;
  derived_keys?: unknown;
  redis_url?: unknown;
  ws_bind?: unknown;
  internal_bind?: unknown;
  topic_ttl?: unknown;
}

export interface WorkerCliSources {
  /** Arguments after `worker`, e.g. ['--ws-port', '9000']. */
  argv: string[];
  env?: NodeJS.ProcessEnv;
  config?: { worker?: WorkerConfigSection };
  logger?: Logger;
}

function portFlag(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new Error(`worker: --${name} must be a port number 0-65535 (got "${value}")`);
  return port;
}

function optionalString(key: string, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`worker: config ${key} must be a string`);
  return value;
}

/**
 * Flags: --ws-port (9000), --internal-port (9001), --ws-bind, --internal-bind.
 * Secret: WORKER_SECRET, else config worker.secret. Redis: REDIS_URL, else config worker.redis_url.
 * Topic TTL: config worker.topic_ttl (seconds). Derived keys: config worker.derived_keys. Throws an Error whose message is one line.
 */
export function workerOptionsFromCli({ argv, env = process.env, config, logger }: WorkerCliSources): WorkerOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      'ws-port': { type: 'string' },
      'internal-port': { type: 'string' },
      'ws-bind': { type: 'string' },
      'internal-bind': { type: 'string' },
    },
  });
  const section = config?.worker ?? {};

  const secretSource = env.WORKER_SECRET ? 'WORKER_SECRET' : 'config worker.secret';
  const secret = env.WORKER_SECRET || optionalString('worker.secret', section.secret);
  if (!secret) throw new Error(`worker: no secret: set WORKER_SECRET or config worker.secret (at least ${MIN_SECRET_LENGTH} characters)`);
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(`worker: ${secretSource} is too short (${secret.length} characters, at least ${MIN_SECRET_LENGTH} required)`);
  }

  const derivedKeys = section.derived_keys ?? false;
  if (typeof derivedKeys !== 'boolean') throw new Error('worker: config worker.derived_keys must be true or false');

  const ttl = section.topic_ttl;
  if (ttl !== undefined && (typeof ttl !== 'number' || !(ttl > 0))) {
    throw new Error('worker: config worker.topic_ttl must be a positive number of seconds');
  }

  return {
    wsPort: portFlag('ws-port', values['ws-port'], 9000),
    internalPort: portFlag('internal-port', values['internal-port'], 9001),
    wsBind: values['ws-bind'] ?? optionalString('worker.ws_bind', section.ws_bind),
    internalBind: values['internal-bind'] ?? optionalString('worker.internal_bind', section.internal_bind),
    secret,
    derivedKeys,
    redisUrl: env.REDIS_URL || optionalString('worker.redis_url', section.redis_url),
    topicTtlSeconds: ttl as number | undefined,
    logger,
  };
}

/** Starts the worker and closes it on SIGINT/SIGTERM; resolves once it is listening. */
export async function runWorker(options: WorkerOptions): Promise<RunningWorker> {
  const worker = await startWorker(options);
  const stop = () => {
    worker.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return worker;
}
