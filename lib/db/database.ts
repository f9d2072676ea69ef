import { availableParallelism } from 'node:os';
import pg from 'pg';
import { OwnerShare } from './ownerShare.js';
import type { Logger } from '../log.js';
import { sendUnnamed, sessionSettingsSql, setUpConnection, type ConnectionSetup, type PoolMode } from './connectionSetup.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from './embedded.js';
import { migrate } from './migrate.js';
import { ScopedPool } from './queryScope.js';

/** bigint (int8) columns hold ids and Hz frequencies, all far below 2^53: read them as numbers. */
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
/** timestamp without time zone is UTC in this schema; keep it as text and format it ourselves. */
pg.types.setTypeParser(pg.types.builtins.TIMESTAMP, (value: string) => value);
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);

export interface Database {
  pool: ScopedPool;
  /**
   * Imports and exports, which may hold a connection for minutes: a few connections of their
   * own, so that they queue among themselves and never take every connection others need.
   */
  bulkPool: ScopedPool;
  /**
   * Page-sized heavy work (lists, the change feed, statistics, whole-scope look-ups): as many
   * connections for the instance as it has cores (pagePoolSizeFor), so that however many such
   * requests arrive, their backends leave the cheap requests' backends a core's worth of turns.
   */
  pagePool: ScopedPool;
  url: string;
  /** How PostgreSQL is reached (lib/db/connectionSetup.ts). */
  poolMode: PoolMode;
  /** Migrations this open applied. */
  migrationsApplied: string[];
  /**
   * The process is stopping (Ctrl-C reaches the embedded PostgreSQL too, which then ends every
   * connection): idle connections that fail from now on are expected, not logged.
   */
  stopping(): void;
  close(): Promise<void>;
}

export interface OpenOptions {
  logger: Logger;
  url?: string;
  migrate?: boolean;
  poolSize?: number;
  bulkPoolSize?: number;
  pagePoolSize?: number;
  /** PostgreSQL statement_timeout of every connection (0: none); long work (exports, imports, migrations) lifts it for its transaction. */
  statementTimeoutMs?: number;
  /** `transaction` behind a transaction-pooling pgbouncer (default `session`, lib/db/connectionSetup.ts). */
  poolMode?: PoolMode;
  /** How long a connection beyond the KEPT_CONNECTIONS of its pool stays open idle (default 10 s). */
  idleTimeoutMs?: number;
  /**
   * Whether each new connection runs CONNECTION_WARM_UP (default true). A command line's few
   * statements gain nothing from it: they end before the backend's heap would matter.
   */
  warmUp?: boolean;
}

/**
 * Settings of every connection's work: no parallel plans. Starting a parallel query's workers
 * costs 40–50 ms on the 2-core machine, against 0.2 ms for the same count done by the backend
 * alone (the undated confirmations, an index range the planner thought big): more than a
 * request's whole work. Every statement here reads an index range, a page or the counts, or
 * streams a COPY in order, none of which gains from workers.
 */
function connectionSettings(statementTimeoutMs: number | undefined): ConnectionSetup['settings'] {
  return { max_parallel_workers_per_gather: 0, ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs } : {}) };
}

/**
 * The first statement of every connection: its backend allocates and frees 2 MB. PostgreSQL's
 * memory contexts return what a statement used (its planning, a COPY's rows) to glibc's malloc,
 * which gives the top of its heap back to the kernel beyond a trim threshold of 128 kB, so the
 * next statement faults every page in again: 12 ms of backend CPU per confirmation page (its
 * fifteen-branch plan) instead of 3.7, 15 ms per ADIF page of 1,000 records instead of 9. A
 * freed chunk of 2 MB, which malloc had to map on its own, raises its thresholds for the
 * backend's life (mmap to 2 MB, trim to 4 MB; glibc's dynamic threshold; 1 MB was too little
 * for the ADIF page), so a backend keeps at most 4 MB more. Elsewhere (another C library) it is
 * a string of 2 MB, built and dropped once per connection. Built from 2,048 copies of 1 kB and
 * measured in bytes: `length(repeat('x', 2097152))` copied one byte at a time and counted
 * characters, 14–19 ms of backend CPU per new connection against 2.4 (the same brk calls
 * saved afterwards, strace), paid again for every backend an abandoned request's termination
 * replaces.
 */
export const CONNECTION_WARM_UP = "SELECT octet_length(repeat(repeat('x', 1024), 2048))";

/** SQLSTATE of a backend terminated by pg_terminate_backend (or a server shutting down). */
const ADMIN_SHUTDOWN = '57P01';

/**
 * Connections a pool keeps however long it stays idle (the others close after idleTimeoutMs). A
 * new backend starts with empty catalog caches: after 12 s without requests the first
 * confirmation page took 70–96 ms, 20–27 ms with two connections kept (the client's new TCP
 * connection included), 10 ms warm; a logger that sends a QSO a minute would pay it every time.
 */
const KEPT_CONNECTIONS = 2;

/**
 * An idle connection the server ended (ADMIN_SHUTDOWN) is reported only if this process is not
 * stopping itself this long after: Ctrl-C reaches the embedded server, whose connections end
 * before this process has even handled its own SIGINT.
 */
const SHUTDOWN_GRACE_MS = 2000;

/** How many check-outs of one owner may wait for their share of a heavy pool (beyond: 429). */
const OWNER_WAITING_MAX = 32;

/**
 * A heavy pool's share per owner: half its connections (at least one), so that whatever one user
 * runs, half of every process's heavy connections, and so of the instance's, stay free of it.
 */
function halfPerOwner(max: number): OwnerShare {
  return new OwnerShare(Math.max(1, Math.floor(max / 2)), OWNER_WAITING_MAX);
}

/** A ScopedPool with a one-connection control pool to terminate its backends. */
function scopedPool(url: string, max: number, options: OpenOptions, state: { stopping: boolean }, share: OwnerShare | null = null): ScopedPool {
  const { statementTimeoutMs, idleTimeoutMs = 10_000, logger } = options;
  const setup: ConnectionSetup = { mode: options.poolMode ?? 'session', settings: connectionSettings(statementTimeoutMs) };
  const control = new pg.Pool({ connectionString: url, max: 1 });
  const config = { connectionString: url, max, min: Math.min(KEPT_CONNECTIONS, max), idleTimeoutMillis: idleTimeoutMs };
  const pool = new ScopedPool(config, control, setup.mode, share);
  setUpConnection(pool, setup);
  for (const each of [pool, control]) {
    each.on('error', (error, client) => {
      if (state.stopping || (each === pool && pool.wasAbandoned(client))) return;
      const report = () => state.stopping || logger.error('idle database connection failed', { error: error.message });
      if ((error as { code?: string }).code === ADMIN_SHUTDOWN) setTimeout(report, SHUTDOWN_GRACE_MS).unref();
      else report();
    });
  }
  // Queued ahead of whatever the connection was checked out for, the session's settings with the
  // warm-up in one round trip. A connection that fails here fails that work's query as well,
  // which reports it: a connection ended under it (a request cancelled by its client going away,
  // the server shutting down) is no news of its own.
  pool.on('connect', (client) => {
    setUpConnection(client, setup);
    if (setup.mode === 'transaction') sendUnnamed(client, (name) => logger.warn('named statement behind transaction pooling, sent unnamed', { name }));
    const first = [sessionSettingsSql(client), options.warmUp === false ? '' : CONNECTION_WARM_UP].filter(Boolean).join('; ');
    if (first) client.query(first).catch((error: Error & { code?: string }) => {
      if (error.code === ADMIN_SHUTDOWN || error.message === 'Connection terminated') return;
      logger.warn('connection warm-up failed', { error: error.message });
    });
  });
  return pool;
}

/**
 * Bulk connections of a whole instance: the imports and exports its database runs at once. Each
 * of `--workers N` processes gets its share, at least 2 so that one long import or export does
 * not hold up every other of its process. A share of 4 a process made 8 heavy backends on the
 * 2-core machine with the default 2 workers, when lists shared this pool.
 */
const INSTANCE_BULK_CONNECTIONS = 4;

/** The bulk pool of one of `processes` API processes. */
export function bulkPoolSizeFor(processes: number): number {
  return Math.max(2, Math.ceil(INSTANCE_BULK_CONNECTIONS / processes));
}

/**
 * The page pool of one of `processes` API processes: the instance's cores shared among them, at
 * least one each. Each page statement keeps a core busy while it runs; with two such backends a
 * core on the 2-core machine, `GET /api/v2/qso/{id}` while 100 heavy lists were abandoned took
 * p99 94–208 ms, with one 40–75 ms (benchmarks/RESULTS.md). So that a client reading its page
 * slowly does not hold the process's connection (and its other lists behind it), pages are read
 * ahead of their clients (lib/http/readAhead.ts).
 */
export function pagePoolSizeFor(processes: number, cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / processes));
}

/** Connects to DATABASE_URL, or starts the embedded server when none is given; migrates. */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  const { logger } = options;
  let embedded: EmbeddedDatabase | undefined;
  let url = options.url ?? process.env.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedDatabase(logger);
    url = embedded.url;
  }
  const state = { stopping: false };
  const bulkSize = options.bulkPoolSize ?? bulkPoolSizeFor(1);
  const pageSize = options.pagePoolSize ?? pagePoolSizeFor(1);
  const pool = scopedPool(url, options.poolSize ?? 10, options, state);
  const bulkPool = scopedPool(url, bulkSize, options, state, halfPerOwner(bulkSize));
  const pagePool = scopedPool(url, pageSize, options, state, halfPerOwner(pageSize));
  let migrationsApplied: string[] = [];
  try {
    if (options.migrate !== false) {
      migrationsApplied = await migrate(pool);
      if (migrationsApplied.length) logger.info('migrations applied', { applied: migrationsApplied });
    }
  } catch (error) {
    await pool.end();
    await bulkPool.end();
    await pagePool.end();
    await embedded?.stop();
    throw error;
  }
  return {
    pool,
    bulkPool,
    pagePool,
    url,
    poolMode: options.poolMode ?? 'session',
    migrationsApplied,
    stopping() {
      state.stopping = true;
    },
    async close() {
      await pool.end();
      await bulkPool.end();
      await pagePool.end();
      await embedded?.stop();
    },
  };
}
