/** An owner's check-outs beyond its share and its waiting room: the caller answers 429 with Retry-After. */
export class OwnerShareBusyError extends Error {
  override name = 'OwnerShareBusyError';
  constructor(readonly retryAfterSeconds: number) {
    super('too many requests of this user are waiting for a database connection');
  }
}

interface Owner { held: number; waiting: Array<() => void> }

/**
 * At most `perOwner` connections of a pool for one owner (a user) at a time: the owner's further
 * check-outs wait in a queue of their own, first come first served, at most `maxWaiting` of them
 * (then OwnerShareBusyError). Only check-outs within their owner's share reach the pool's own
 * queue, so another owner never waits behind one owner's many slow requests: with a share of
 * half the pool, half of it is always free of any one owner.
 */
export class OwnerShare {
  private readonly owners = new Map<number, Owner>();

  constructor(readonly perOwner: number, readonly maxWaiting: number) {}

  /** A slot of `owner`'s share, once it has one; call the returned function, once, to give it back. */
  async acquire(owner: number): Promise<() => void> {
    let state = this.owners.get(owner);
    if (state === undefined) this.owners.set(owner, (state = { held: 0, waiting: [] }));
    if (state.held < this.perOwner) state.held++;
    else if (state.waiting.length >= this.maxWaiting) throw new OwnerShareBusyError(1);
    else await new Promise<void>((resolve) => state.waiting.push(resolve));
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.giveBack(owner, state);
    };
  }

  /** Held slots of `owner` (for tests and metrics). */
  held(owner: number): number {
    return this.owners.get(owner)?.held ?? 0;
  }

  /** Check-outs of `owner` waiting for a slot. */
  waiting(owner: number): number {
    return this.owners.get(owner)?.waiting.length ?? 0;
  }

  private giveBack(owner: number, state: Owner): void {
    // The slot passes straight to the next waiter, so `held` stays as it is.
    const next = state.waiting.shift();
    if (next !== undefined) return next();
    state.held--;
    if (state.held === 0) this.owners.delete(owner);
  }
}
