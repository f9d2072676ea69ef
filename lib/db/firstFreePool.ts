import pg from 'pg';

/** A check-out waiting in pg-pool: its callback, and whether it gave up (connectionTimeoutMillis). */
interface PendingItem {
  callback(error: Error | undefined, client: pg.PoolClient | undefined, release: (error?: Error | boolean) => void): void;
  timedOut: boolean;
}

interface IdleItem {
  client: pg.PoolClient;
  idleListener(error: Error): void;
  timeoutId?: NodeJS.Timeout;
}

/** The internals of pg-pool 3 (3.14 in package-lock) this pool changes; its types do not declare them. */
interface PoolInternals {
  ending: boolean;
  _idle: IdleItem[];
  newClient(pendingItem: PendingItem): void;
  _pulseQueue(): void;
  _acquireClient(client: pg.PoolClient, pendingItem: PendingItem, idleListener: IdleItem['idleListener'], isNew: boolean): void;
}

const base = pg.Pool.prototype as unknown as PoolInternals;

/**
 * A pool whose waiting check-out takes the first connection that becomes free. pg-pool ties a
 * check-out that finds no idle connection (and room to grow) to the connection it opens for it,
 * and a connection released meanwhile goes idle instead: under load a new backend takes 100 ms
 * and more to start, while the pool's other connections come back within milliseconds. A cheap
 * request then waited for the opening while released connections sat idle (the slowest
 * `GET /api/v2/qso/{id}` while heavy lists were abandoned, benchmarks/RESULTS.md). The opening
 * still goes on, and serves whoever waits when it is done, or joins the idle ones.
 */
export class FirstFreePool extends pg.Pool {
  /** Check-outs waiting on a connection being opened, oldest first. */
  private readonly waitingForOpening: PendingItem[] = [];

  /** pg-pool's "open a connection for this check-out". */
  protected newClient(pendingItem: PendingItem): void {
    this.waitingForOpening.push(pendingItem);
    const opened: PendingItem = {
      timedOut: false,
      callback: (error, client, release) => {
        if (error !== undefined || client === undefined) {
          // The opening failed: the check-out it was for learns so, unless another connection served it.
          if (this.stopWaiting(pendingItem)) pendingItem.callback(error ?? new Error('no connection'), undefined, release);
          return;
        }
        const waiter = this.nextWaiting();
        if (waiter === undefined) release();
        else waiter.callback(undefined, client, release);
      },
    };
    base.newClient.call(this, opened);
  }

  /** pg-pool's "hand idle connections to the waiting": those waiting on an opening come first, being the oldest. */
  protected _pulseQueue(): void {
    const internals = this as unknown as PoolInternals;
    while (!internals.ending && internals._idle.length > 0) {
      const waiter = this.nextWaiting();
      if (waiter === undefined) break;
      const idle = internals._idle.pop()!;
      clearTimeout(idle.timeoutId);
      (idle.client as { ref?(): void }).ref?.();
      internals._acquireClient(idle.client, waiter, idle.idleListener, false);
    }
    base._pulseQueue.call(this);
  }

  private nextWaiting(): PendingItem | undefined {
    let waiter: PendingItem | undefined;
    do waiter = this.waitingForOpening.shift();
    while (waiter?.timedOut);
    return waiter;
  }

  private stopWaiting(item: PendingItem): boolean {
    const index = this.waitingForOpening.indexOf(item);
    if (index >= 0) this.waitingForOpening.splice(index, 1);
    return index >= 0;
  }
}
