import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { cancelRequest } from './cancelRequest.js';
import type { PoolMode } from './connectionSetup.js';
import type { OwnerShare } from './ownerShare.js';
import { FirstFreePool } from './firstFreePool.js';
import { connectionsClosed, endPool } from './poolEnd.js';
import { inTransaction } from './transaction.js';

/**
 * The database work of one unit of work (an HTTP request): every connection it checks out of a
 * ScopedPool is remembered until released, so that when the work is abandoned (the client went
 * away) its backends can be terminated at once instead of running to the end.
 */
export class QueryScope {
  abandoned = false;
  /** The user the request works for, once it is authenticated: its check-outs count against that user's share (OwnerShare). */
  owner: number | null = null;
  readonly held = new Set<CheckOut>();
}

/** Names the user the current request works for (its QueryScope's owner), from its credentials. */
export function claimOwner(userId: number): void {
  const scope = scopes.getStore();
  if (scope !== undefined) scope.owner = userId;
}

/**
 * One check-out of a connection by a scope: its backend and the release of this check-out. The
 * pool hands the same Client object to the next check-out with a release of its own, so
 * abandon() must never go through `client.release` once the scope has let the connection go.
 */
interface CheckOut {
  pool: ScopedPool;
  client: pg.PoolClient;
  pid: number | null;
  release(error?: boolean | Error): void;
}

const scopes = new AsyncLocalStorage<QueryScope>();

/** Runs `work` with `scope` as the scope of every connection it (and what it awaits) checks out. */
export function runInQueryScope<T>(scope: QueryScope, work: () => T): T {
  return scopes.run(scope, work);
}

/**
 * Runs `work` in no scope: clean-up after a request (removing what its upload left half-done)
 * must still reach the database when the request was abandoned, whose scope refuses check-outs.
 */
export function outsideQueryScope<T>(work: () => T): T {
  return scopes.exit(work);
}

export class AbandonedError extends Error {
  override name = 'AbandonedError';
}

/** node-postgres keeps the backend's process id from the start-up handshake; its types do not declare it. */
function backendPid(client: pg.PoolClient): number | null {
  return (client as unknown as { processID: number | null }).processID;
}

type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * A pool whose connections are tracked per QueryScope. `pool.query` goes through `connect` as
 * well, so both forms are covered. Terminating (rather than cancelling) the backend also drops
 * the connection: the pool opens a fresh one when it needs it. Behind a transaction-mode pooler
 * the backend is cancelled instead (cancelRequest: its process id is the pooler's own), and its
 * connection to the pooler dropped.
 */
export class ScopedPool extends FirstFreePool {
  /**
   * Connections discarded because their scope was abandoned: their backend's termination may
   * arrive after the pool took them back to close them, as an 'error' of the pool that is news
   * to nobody (wasAbandoned).
   */
  private readonly abandonedClients = new WeakSet<pg.Client>();

  /**
   * `control` runs pg_terminate_backend: a separate pool, so it never waits behind the work it
   * stops. `share`: how many connections one owner's requests may hold at once (none: no bound).
   */
  constructor(config: pg.PoolConfig, private readonly control: pg.Pool, private readonly mode: PoolMode = 'session', readonly share: OwnerShare | null = null) {
    super(config);
    // A lone statement takes the settings only inside a transaction of its own (SET LOCAL).
    if (mode === 'transaction') this.query = this.queryInTransaction as pg.Pool['query'];
  }

  /** pool.query(text or config, values?) behind a transaction-mode pooler: BEGIN with the settings, the statement, COMMIT. */
  private queryInTransaction(...args: unknown[]): unknown {
    const [config, values] = args as [string | pg.QueryConfig, unknown[] | undefined];
    // The callback form and submittables (none of the code's own) go as pg-pool sends them.
    const passThrough = typeof args[args.length - 1] === 'function' || typeof (config as { submit?: unknown }).submit === 'function';
    if (passThrough) return (super.query as (...all: unknown[]) => unknown).apply(this, args);
    return inTransaction(this, (client) => client.query(config, values));
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    const scope = scopes.getStore();
    const checkedOut = scope === undefined ? super.connect().then(guardConnection) : this.connectIn(scope);
    if (callback === undefined) return checkedOut;
    checkedOut.then(
      (client) => callback(undefined, client, (release) => client.release(release as boolean | Error | undefined)),
      (error: Error) => callback(error, undefined, () => undefined),
    );
  }

  /**
   * Marks the scope abandoned, terminates the backends it holds and hands their connections back
   * to the pool as broken (it discards them); later check-outs fail. The hand-back cannot wait
   * for the work using them: a cursor stream destroyed on a terminated connection (pg-query-stream)
   * waits for a ReadyForQuery that never comes, so that work never releases its connection, and
   * a few abandoned lists would hold every connection of their pool for good.
   */
  async abandon(scope: QueryScope): Promise<void> {
    // From here on the scope's releases discard their connections (adopt): one handed back while
    // its backend is being terminated must not be lent to another request.
    scope.abandoned = true;
    // A scope spans pools: each terminates its own check-outs, through its own control pool.
    const held = [...scope.held].filter((checkOut) => checkOut.pool === this);
    if (this.mode === 'transaction') await Promise.all(held.map((checkOut) => cancelRequest(checkOut.client)));
    else {
      const pids = held.map((checkOut) => checkOut.pid).filter((pid): pid is number => pid !== null);
      if (pids.length > 0) await this.control.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
    }
    for (const checkOut of held) checkOut.release(new AbandonedError('the request was abandoned by its client'));
  }

  /** A check-out of `scope`, within its owner's share: the slot goes back with the connection. */
  private async connectIn(scope: QueryScope): Promise<pg.PoolClient> {
    const slot = scope.owner === null || this.share === null ? null : await this.share.acquire(scope.owner);
    try {
      return this.adopt(scope, guardConnection(await super.connect()), slot);
    } catch (error) {
      slot?.();
      throw error;
    }
  }

  /** Tracks a check-out in `scope` (refused once the scope is abandoned). */
  private adopt(scope: QueryScope, client: pg.PoolClient, slot: (() => void) | null): pg.PoolClient {
    if (scope.abandoned) {
      client.release();
      throw new AbandonedError('the request was abandoned by its client');
    }
    // The pool gives every check-out a release function of its own, so wrapping it is per check-out.
    // Released once: abandon() may hand the connection back before the work using it does.
    const release = client.release;
    let released = false;
    const checkOut: CheckOut = {
      pool: this,
      client,
      pid: backendPid(client),
      release: (error?: boolean | Error) => {
        if (released) return;
        released = true;
        slot?.();
        scope.held.delete(checkOut);
        if (!scope.abandoned) return release(error);
        this.abandonedClients.add(client);
        return release(error instanceof Error ? error : new AbandonedError('the request was abandoned by its client'));
      },
    };
    scope.held.add(checkOut);
    client.release = checkOut.release;
    return client;
  }

  /** Whether `client` (of an 'error' event of the pool) was discarded because its scope was abandoned. */
  wasAbandoned(client: pg.Client): boolean {
    return this.abandonedClients.has(client);
  }

  /** Resolves once every connection, and the control pool's, has closed (connectionsClosed). */
  override async end(): Promise<void> {
    const closed = connectionsClosed(this);
    await super.end();
    await closed;
    await endPool(this.control);
  }
}

/**
 * A checked-out connection whose backend goes away (terminated by abandon(), a restart, an
 * administrator) emits 'error'; the pool listens only while a connection is idle, and an
 * unheard 'error' would end the process. The work using the connection learns of it anyway: its
 * query fails, or the next one does (the connection is no longer queryable and is discarded on
 * release).
 */
function guardConnection(client: pg.PoolClient): pg.PoolClient {
  const ignore = () => undefined;
  client.on('error', ignore);
  const release = client.release;
  client.release = (error?: boolean | Error) => {
    client.off('error', ignore);
    return release(error);
  };
  return client;
}
