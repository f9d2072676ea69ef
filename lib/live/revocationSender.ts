import type { Logger } from '../log.js';
import type { Worker, WorkerSet } from './workerSet.js';

/**
 * Revocations (an API token revoked: its browser tokens must stop working) on their way to the
 * workers. They are never dropped: one that no worker took is tried again every `retryAfterMs`
 * until it lapses, so a worker that was down hears of it when it is back.
 *
 * A worker without Redis keeps revocations in memory only, so one that restarts forgets them.
 * Every worker names its run in a reply header; when the run a worker answers with is not the
 * one that was told every revocation still in force, it is told them all again before anything
 * else is sent. While revocations are in force, each worker is also asked which run it is every
 * `instanceCheckMs`, so a restart is noticed when nothing is published. A revocation is kept only
 * until its `until` (the browser-token lifetime).
 */

export interface RevocationSenderOptions {
  retryAfterMs: number;
  instanceCheckMs: number;
  log: Logger;
  /** Logs a failure (at most one line per interval: the publisher's). */
  complain(message: string, fields: Record<string, unknown>): void;
  /** Has the publisher's loop run (and call `send` first): a revocation, a retry or a restart found. */
  kick(): void;
}

function revocationBody(tokenId: number, until: number): string {
  return JSON.stringify({ token_id: tokenId, until });
}

/** Drops the revocations whose `until` has passed: no browser token they concern is valid any more. */
function forgetLapsed(revocations: Map<number, number>): void {
  const now = Date.now() / 1000;
  for (const [tokenId, until] of revocations) if (until < now) revocations.delete(tokenId);
}

export class RevocationSender {
  /** Token id → until, for revocations no worker has taken yet. */
  private readonly untaken = new Map<number, number>();
  /** Token id → until, for every revocation in force: what a worker that restarted is told again. */
  private readonly inForce = new Map<number, number>();
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly instanceCheck: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly workers: WorkerSet, private readonly options: RevocationSenderOptions) {
    this.instanceCheck = setInterval(() => void this.checkInstances(), options.instanceCheckMs);
    this.instanceCheck.unref();
  }

  add(tokenId: number, until: number): void {
    if (this.closed) return;
    this.untaken.set(tokenId, Math.max(until, this.untaken.get(tokenId) ?? 0));
    this.inForce.set(tokenId, Math.max(until, this.inForce.get(tokenId) ?? 0));
    this.options.kick();
  }

  /** Revocations in force, kept to tell a worker that restarts. */
  get count(): number {
    return this.inForce.size;
  }

  /** Something to send before the next publish (and no retry waiting for its time). */
  due(): boolean {
    return (this.untaken.size > 0 || this.workers.anyUninformed()) && this.retryTimer === undefined;
  }

  /** Tells restarted workers every revocation in force, then sends the untaken ones; what fails is retried later. */
  async send(): Promise<void> {
    let behind = false;
    for (const worker of this.workers.workers) if (this.workers.uninformed(worker) && !(await this.inform(worker))) behind = true;
    for (const [tokenId, until] of [...this.untaken]) {
      if (until < Date.now() / 1000) {
        this.untaken.delete(tokenId);
        continue;
      }
      try {
        const { status, text } = await this.workers.post('/internal/revoke', revocationBody(tokenId, until));
        if (status === 200) {
          this.untaken.delete(tokenId);
          continue;
        }
        this.options.complain('live updates: worker refused revocation', { token_id: tokenId, status, response: text });
      } catch (err) {
        this.options.complain('live updates: worker unreachable, revocation kept for a retry', { token_id: tokenId, error: (err as Error).message });
      }
    }
    if ((behind || this.untaken.size > 0) && !this.closed && this.retryTimer === undefined) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.options.kick();
      }, this.options.retryAfterMs);
      this.retryTimer.unref();
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.instanceCheck);
  }

  /** While revocations are in force: asks each worker which run it is; a restart found is handled by the publisher's loop. */
  private async checkInstances(): Promise<void> {
    if (this.inForce.size === 0) return;
    forgetLapsed(this.inForce);
    if (await this.workers.checkInstances()) this.options.kick();
  }

  /** Tells a worker that (re)started every revocation in force; false when it did not take them all. */
  private async inform(worker: Worker): Promise<boolean> {
    const run = worker.instance;
    forgetLapsed(this.inForce);
    for (const [tokenId, until] of [...this.inForce]) {
      try {
        const { status, text } = await this.workers.postTo(worker, '/internal/revoke', revocationBody(tokenId, until));
        if (status !== 200) {
          this.options.complain('live updates: restarted worker refused a revocation', { worker: worker.base, token_id: tokenId, status, response: text });
          return false;
        }
      } catch (err) {
        this.options.complain('live updates: restarted worker unreachable, revocations kept for a retry', { worker: worker.base, error: (err as Error).message });
        return false;
      }
      // Restarted again meanwhile: the new run needs them all.
      if (worker.instance !== run) return false;
    }
    worker.informed = run;
    this.options.log.info('live updates: a worker (re)started; revocations in force sent again', { worker: worker.base, revocations: this.inForce.size });
    return true;
  }
}
