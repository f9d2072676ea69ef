import type { Server } from 'node:http';
import type pg from 'pg';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { DEFAULT_BROWSER_TOKEN_TTL_SECONDS, type Config, type SignInLimits } from './config.js';
import type { Database } from './db/database.js';
import type { Logger } from './log.js';
import { Metrics } from './metrics.js';
import { RateLimiter } from './ratelimit/limiter.js';
import { MemoryRateLimitStore } from './ratelimit/memoryStore.js';
import { PostgresRateLimitStore } from './ratelimit/postgresStore.js';
import { RedisRateLimitStore } from './ratelimit/redisStore.js';
import { PUBLIC_BUCKET, PUBLIC_DEFAULT_LIMIT, SIGN_IN_ACCOUNT_BUCKET, SIGN_IN_ADDRESS_BUCKET, type RateLimitMap, type RateLimitStore } from './ratelimit/types.js';
import type { EventPublisher, Services } from './services.js';
import { scheduleChangePruning } from './qso/changeRetention.js';
import { CursorCodec } from './qso/changeCursor.js';
import { cachedServerKey } from './db/serverKeys.js';
import { appVersion } from './version.js';
import { startCountCompaction } from './qso/counts.js';
import { createApp } from './http/app.js';
import { configuredPublisher } from './live/configured.js';
import { withPublicLogPushes } from './publicLog/pushes.js';
import { listenForRevocations, type RevocationListener } from './live/revocationListener.js';
import type { ResourceDefinition } from './http/v2/resource.js';
import { InsertBatcher } from './import/insertBatcher.js';
import { BatchedLookup } from './db/batchedLookup.js';
import { lookupTokens } from './auth/tokens.js';
import { lookupKeys } from './auth/keys.js';
import { ImportJobs } from './import/jobs/jobRunner.js';
import { logbookHome } from './db/embedded.js';
import { prepareSpoolFolder } from './http/spool.js';
import { UploadSlots } from './http/upload/uploadSlots.js';
import { READ_AHEAD_PAGES, ReadAheadBudget } from './http/readAhead.js';
import { PublicLogCache } from './publicLog/cache.js';

const noEvents: EventPublisher = { publish: () => undefined, close: async () => undefined };

/** The workers' publisher when they are configured; else events go nowhere. */
const eventPublisher = (config: Config, logger: Logger): EventPublisher => configuredPublisher(config, logger) ?? noEvents;

function rateLimitStore(config: Config, db: Database): RateLimitStore {
  switch (config.rate_limit_store) {
    case 'redis':
      return new RedisRateLimitStore(process.env.REDIS_URL!);
    case 'postgres':
      return new PostgresRateLimitStore(db.pool);
    case 'memory':
      return new MemoryRateLimitStore();
  }
}

/** The sign-in buckets, always on: they share the API's store but not its `api_rate_limits` map. */
function signInBuckets(limits: SignInLimits): RateLimitMap {
  return { [SIGN_IN_ACCOUNT_BUCKET]: limits.account, [SIGN_IN_ADDRESS_BUCKET]: limits.address };
}

export interface ServiceOptions {
  config: Config;
  db: Database;
  logger: Logger;
  events?: EventPublisher;
  clock?: () => number;
}

export function createServices(options: ServiceOptions & { spoolFolder: string }): Services {
  const publicLogs = new PublicLogCache(options.db.pool);
  const worker = options.events ?? eventPublisher(options.config, options.logger);
  // Without a worker there is nothing to push to: public pages poll.
  const events = worker.register ? withPublicLogPushes(worker, { db: options.db.pool, cache: publicLogs, logger: options.logger.child({ component: 'public-log' }) }) : worker;
  const metrics = new Metrics();
  const limits = rateLimitStore(options.config, options.db);
  return {
    db: options.db.pool,
    bulkDb: options.db.bulkPool,
    pageDb: options.db.pagePool,
    readAhead: new ReadAheadBudget({
      perPage: options.config.page_read_ahead_bytes,
      pages: READ_AHEAD_PAGES,
      spoolFolder: options.spoolFolder,
      onDiskError: (error) => options.logger.warn('a page could not wait on disk for its client: it holds its connection until read', { error: error.message }),
      metrics,
    }),
    config: options.config,
    logger: options.logger,
    metrics,
    rateLimiter: new RateLimiter(options.config.api_rate_limits, limits, options.clock),
    signInLimiter: new RateLimiter(signInBuckets(options.config.sign_in_limits), limits, options.clock),
    publicLimiter: new RateLimiter({ [PUBLIC_BUCKET]: options.config.api_rate_limits?.[PUBLIC_BUCKET] ?? PUBLIC_DEFAULT_LIMIT }, limits, options.clock),
    publicLogs,
    events,
    credentials: {
      tokens: new BatchedLookup((hashes) => lookupTokens(options.db.pool, hashes)),
      keys: new BatchedLookup((hashes) => lookupKeys(options.db.pool, hashes)),
    },
    qsoInserts: new InsertBatcher(options.db.pool, metrics),
    importJobs: new ImportJobs({
      db: options.db.pool,
      importDb: options.db.bulkPool,
      config: options.config.import_jobs,
      defaultSpoolDir: join(logbookHome(), 'import-jobs'),
      rowsPerBatch: options.config.import_batch_rows,
      logger: options.logger.child({ component: 'import-jobs' }),
      events,
    }),
    uploads: new UploadSlots({ perProcess: options.config.uploads.max_concurrent, perOwner: options.config.uploads.max_concurrent_per_owner }),
    version: appVersion,
    spoolFolder: options.spoolFolder,
    changeCursors: cursorCodec(options.db.pool),
  };
}

/** How often a process behind a transaction-mode pooler without `database.listen_url` reads new revocations. */
const REVOCATION_POLL_MS = 2000;
/** The change feed's cursor codec, its key read (or created) once, when the feed is first asked. */
function cursorCodec(db: pg.Pool): () => Promise<CursorCodec> {
  const key = cachedServerKey(db, 'change_cursor');
  return async () => new CursorCodec(await key());
}

/** With live updates on, revoked API tokens end their browser tokens (lib/live/revocationListener.ts). */
function revocationListener(services: Services, db: Database): Promise<RevocationListener> | undefined {
  const revoke = services.events.revoke?.bind(services.events);
  if (!revoke) return undefined;
  // LISTEN needs a session: a direct connection when one is configured, else polls behind a transaction-mode pooler.
  const { listen_url: listenUrl } = services.config.database;
  return listenForRevocations({
    url: listenUrl ?? db.url,
    ...(listenUrl === undefined && db.poolMode === 'transaction' ? { pollMs: REVOCATION_POLL_MS } : {}),
    tokenTtlSeconds: services.config.worker.token_ttl_seconds ?? DEFAULT_BROWSER_TOKEN_TTL_SECONDS,
    revoke,
    logger: services.logger.child({ component: 'token-revocations' }),
  });
}

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  services: Services;
  /** Stops accepting, lets in-flight requests finish, then releases everything. */
  close(): Promise<void>;
}

export interface StartOptions extends ServiceOptions {
  port: number;
  host: string;
  resources?: ResourceDefinition[];
}

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const spoolFolder = await prepareSpoolFolder(join(logbookHome(), 'spool'));
  const services = createServices({ ...options, spoolFolder });
  await services.importJobs.start();
  const app = createApp(services, { resources: options.resources });
  const server = app.listen(options.port, options.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const compaction = startCountCompaction(services.db, services.logger);
  const revocations = await revocationListener(services, options.db);
  const stopPruning = scheduleChangePruning(services.db, services.config.change_retention_days, (error) => {
    services.logger.warn('change feed retention failed', { error: error.message });
  });
  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    url: `http://${options.host}:${port}`,
    services,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await stopPruning();
        await compaction.stop();
        await revocations?.close();
        await services.importJobs.close();
        await services.rateLimiter.close();
        await services.events.close();
      })();
      return closing;
    },
  };
}
