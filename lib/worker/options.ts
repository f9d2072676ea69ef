/**
 * Worker options: the public shape, its defaults, and the checks that make a
 * misconfigured worker refuse to start instead of running insecurely.
 */
import type { Logger } from '../log.js';
import { createLogger } from '../log.js';

export const MIN_SECRET_LENGTH = 32;

export interface WorkerOptions {
  /** WebSocket port for browsers; 0 picks a free port. */
  wsPort: number;
  /** Internal HTTP port for the application server; 0 picks a free port. */
  internalPort: number;
  /** Interface for the WebSocket port; default all interfaces. */
  wsBind?: string;
  /** Interface for the internal port; default 127.0.0.1 so it is never public by accident. */
  internalBind?: string;
  /** Shared with the application; it authenticates internal calls and signs browser tokens (./workerKeys.ts). */
  secret: string;
  /** Use two keys derived from the secret instead of the secret itself (`worker.derived_keys`); default false, the original's protocol. */
  derivedKeys?: boolean;
  /** Enables cluster mode (fan-out and shared topic registry through Redis). */
  redisUrl?: string;
  /** Lifetime of a topic registration; re-registering renews it. Default 86400. */
  topicTtlSeconds?: number;
  logger?: Logger;
  /** Prefix of Redis keys and the Pub/Sub channel; default `wavelog:` (compatible with the original worker). */
  redisPrefix?: string;
  /** Time a new socket has to send its auth frame. Default 10000. */
  authTimeoutMs?: number;
  /** Bytes a socket may have queued before further frames to it are dropped. Default 64 KiB. */
  maxBackpressureBytes?: number;
  /** A socket whose queue stays above half that limit this long is closed. Default 10000. */
  slowConsumerTimeoutMs?: number;
}

export interface ResolvedWorkerOptions {
  wsPort: number;
  internalPort: number;
  /** Undefined listens on every interface. */
  wsBind: string | undefined;
  internalBind: string;
  secret: string;
  derivedKeys: boolean;
  redisUrl: string | undefined;
  topicTtlSeconds: number;
  logger: Logger;
  redisPrefix: string;
  authTimeoutMs: number;
  maxBackpressureBytes: number;
  slowConsumerTimeoutMs: number;
}

function checkPort(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 65535) {
    throw new Error(`worker: ${name} must be an integer port between 0 and 65535 (got ${String(value)})`);
  }
  return value;
}

function checkPositive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new Error(`worker: ${name} must be a positive number (got ${String(value)})`);
  }
  return value;
}

/** Fills in defaults and rejects unsafe or malformed values with one clear message. */
export function resolveWorkerOptions(options: WorkerOptions): ResolvedWorkerOptions {
  const secret = options.secret;
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new Error('worker: secret is missing (set WORKER_SECRET or worker.secret, at least 32 characters)');
  }
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(`worker: secret is too short (${secret.length} characters, at least ${MIN_SECRET_LENGTH} required)`);
  }
  return {
    wsPort: checkPort('wsPort', options.wsPort),
    internalPort: checkPort('internalPort', options.internalPort),
    wsBind: options.wsBind || undefined,
    internalBind: options.internalBind ?? '127.0.0.1',
    secret,
    derivedKeys: options.derivedKeys === true,
    redisUrl: options.redisUrl || undefined,
    topicTtlSeconds: checkPositive('topicTtlSeconds', options.topicTtlSeconds, 86400),
    logger: options.logger ?? createLogger({ component: 'worker' }),
    redisPrefix: options.redisPrefix ?? 'wavelog:',
    authTimeoutMs: checkPositive('authTimeoutMs', options.authTimeoutMs, 10_000),
    maxBackpressureBytes: checkPositive('maxBackpressureBytes', options.maxBackpressureBytes, 64 * 1024),
    slowConsumerTimeoutMs: checkPositive('slowConsumerTimeoutMs', options.slowConsumerTimeoutMs, 10_000),
  };
}
