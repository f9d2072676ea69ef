import type { PublicLogCache } from './publicLog/cache.js';
import type { ScopedPool } from './db/queryScope.js';
import type { LiveHealth } from './live/publisher.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import type { ImportJobs } from './import/jobs/jobRunner.js';
import type { InsertBatcher } from './import/insertBatcher.js';
import type { BatchedLookup } from './db/batchedLookup.js';
import type { TokenRecord } from './auth/tokens.js';
import type { V1Key } from './auth/keys.js';
import type { ReadAheadBudget } from './http/readAhead.js';
import type { UploadSlots } from './http/upload/uploadSlots.js';
import type { CursorCodec } from './qso/changeCursor.js';

/** The look-ups that authenticate requests, by the presented secret's SHA-256 hash (over `db`). */
export interface CredentialLookups {
  tokens: BatchedLookup<TokenRecord>;
  keys: BatchedLookup<V1Key>;
}

/** A sink for live-update events; the no-op one is used when no worker is configured. */
export interface EventPublisher {
  publish(topic: string, payload: unknown): void;
  /** Ends the browser tokens minted from this API token, up to `until` (unix seconds); never throws. */
  revoke?(tokenId: number, until: number): void;
  /** Makes a topic known to the worker before browsers connect to it (default: they need a token); never rejects. */
  register?(topic: string, requireToken?: boolean): Promise<void>;
  /** Unregisters a topic and closes its open sockets on every worker; never rejects. */
  closeTopic?(topic: string): Promise<void>;
  /** QSOs of these station locations were committed: the public logs over them push (lib/publicLog/pushes.ts). */
  qsosChanged?(stationIds: number[]): void;
  /** Registers a public log's topic for pages about to connect (throttled: lib/publicLog/pushes.ts); never rejects. */
  openPublicTopic?(topic: string): Promise<void>;
  /** A logbook's publication settings changed: its public log pushes when published. */
  publicLogChanged?(logbookId: number): void;
  /** The workers' state for the API's status (see LiveHealth); absent when no worker is configured. */
  health?(): Promise<LiveHealth>;
  close(): Promise<void>;
}

/** What request handlers may use: passed down explicitly, never imported as globals. */
export interface Services {
  db: ScopedPool;
  /** Imports and exports (Database.bulkPool): long work queues here, not in `db`. */
  bulkDb: ScopedPool;
  /** Lists, the change feed, statistics, whole-scope look-ups (Database.pagePool): page-sized heavy work queues here. */
  pageDb: ScopedPool;
  /** Memory lent to list pages read ahead of slow clients, so that they give pageDb connections back early. */
  readAhead: ReadAheadBudget;
  config: Config;
  logger: Logger;
  metrics: Metrics;
  rateLimiter: RateLimiter;
  /** Failed sign-ins to the browser app (its own limits, the same store as rateLimiter). */
  signInLimiter: RateLimiter;
  /** The public live log's limit per client address (bucket `public`, on by default; lib/http/public/router.ts). */
  publicLimiter: RateLimiter;
  /** The public live log's answers, kept while their logbook has not changed (lib/publicLog/cache.ts). */
  publicLogs: PublicLogCache;
  events: EventPublisher;
  credentials: CredentialLookups;
  /** Single creates and loggers' few QSOs, stored together with the others arriving meanwhile (over `db`). */
  qsoInserts: InsertBatcher;
  /** Background imports of spooled uploads. */
  importJobs: ImportJobs;
  /** Places for the uploads this process reads at once (config `uploads`). */
  uploads: UploadSlots;
  version: string;
  /** This process's folder for request text spooled to disk (lib/http/spool.ts). */
  spoolFolder: string;
  /** Signs and checks the change feed's cursors with the instance's key (read once per process). */
  changeCursors(): Promise<CursorCodec>;
}
