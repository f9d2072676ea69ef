import { INSTANCE_HEADER } from '../worker/internalApi.js';
import { internalCallKey } from '../worker/workerKeys.js';

/**
 * The workers' internal ports as the publisher reaches them: a request goes to the first worker
 * that answers, a worker that fails is passed over for `retryAfterMs`, and each answer names the
 * run of the worker it came from (INSTANCE_HEADER), so that a restart can be noticed.
 */

/**
 * What the workers say about themselves: `ok` when every one answers `ok`, `down` when none
 * answers, else `degraded` (one is gone, or has lost its Redis cluster).
 */
export type LiveHealth = 'ok' | 'degraded' | 'down';

export interface Worker {
  base: string;
  /** Date.now() before which this worker is passed over, after it failed. */
  downUntil: number;
  /** The run (INSTANCE_HEADER) the worker last answered from; undefined until it names one. */
  instance: string | undefined;
  /** The run that was told every revocation in force: a worker answering from another one is told again. */
  informed: string | undefined;
}

export interface WorkerReply {
  status: number;
  text: string;
}

export interface WorkerSetOptions {
  /** Base URLs of the workers' internal ports, most preferred first. */
  urls: readonly string[];
  secret: string;
  /** `worker.derived_keys`: send the derived internal-call key instead of the secret (lib/worker/workerKeys.ts). */
  derivedKeys: boolean;
  /** Per-request limit, connection and response included. */
  timeoutMs: number;
  /** How long a worker that failed is passed over. */
  retryAfterMs: number;
  /** Logs a failure (at most one line per interval: the publisher's). */
  complain(message: string, fields: Record<string, unknown>): void;
  /** Whether revocations are in force: with none, every run a worker answers from counts as told. */
  revocationsInForce(): boolean;
}

export class WorkerSet {
  readonly workers: Worker[];
  /** The internal-call key in X-Worker-Secret: the secret itself, as the original's, unless keys are derived. */
  private readonly headers: Record<string, string>;
  private checkingInstances = false;

  constructor(private readonly options: WorkerSetOptions) {
    if (options.urls.length === 0) throw new Error('live updates: no worker url');
    this.workers = options.urls.map((url) => ({ base: url.replace(/\/+$/, ''), downUntil: 0, instance: undefined, informed: undefined }));
    this.headers = { 'Content-Type': 'application/json', 'X-Worker-Secret': internalCallKey(options.secret, options.derivedKeys) };
  }

  /** A worker that answers from a run that was not told every revocation in force (it restarted). */
  uninformed(worker: Worker): boolean {
    return worker.instance !== worker.informed && worker.downUntil <= Date.now();
  }

  anyUninformed(): boolean {
    return this.workers.some((worker) => this.uninformed(worker));
  }

  /** One request to one worker; a worker that fails is passed over for `retryAfterMs`. */
  async postTo(worker: Worker, path: string, body: string): Promise<WorkerReply> {
    try {
      const res = await fetch(worker.base + path, { method: 'POST', headers: this.headers, body, signal: AbortSignal.timeout(this.options.timeoutMs) });
      const text = (await res.text()).trim();
      worker.downUntil = 0;
      this.observe(worker, res);
      return { status: res.status, text };
    } catch (err) {
      worker.downUntil = Date.now() + this.options.retryAfterMs;
      throw err;
    }
  }

  /** Sends to the first worker that answers; throws the last failure when none does. */
  async post(path: string, body: string): Promise<WorkerReply> {
    let failure: unknown;
    for (const worker of this.candidates()) {
      try {
        return await this.postTo(worker, path, body);
      } catch (err) {
        failure = err;
        if (this.workers.length > 1) this.options.complain('live updates: worker unreachable, trying the next', { worker: worker.base, error: (err as Error).message });
      }
    }
    throw failure;
  }

  /** Asks every worker for its status. Never rejects. */
  async health(): Promise<LiveHealth> {
    const answers = await Promise.all(this.workers.map((worker) => this.status(worker)));
    if (answers.every((answer) => answer === 'ok')) return 'ok';
    return answers.every((answer) => answer === null) ? 'down' : 'degraded';
  }

  /** Asks each worker which run it is; true when one answers from a run not yet told (it restarted). */
  async checkInstances(): Promise<boolean> {
    if (this.checkingInstances) return false;
    this.checkingInstances = true;
    await Promise.all(this.workers.map(async (worker) => {
      try {
        const res = await fetch(`${worker.base}/internal/instance`, { headers: this.headers, signal: AbortSignal.timeout(this.options.timeoutMs) });
        await res.arrayBuffer();
        this.observe(worker, res);
      } catch {
        // Down: the next check, or the next request, finds out when it is back.
      }
    }));
    this.checkingInstances = false;
    return this.anyUninformed();
  }

  /** The workers to try, in order: those not passed over, or every one when all are. */
  private candidates(): Worker[] {
    const now = Date.now();
    const up = this.workers.filter((worker) => worker.downUntil <= now);
    return up.length > 0 ? up : this.workers;
  }

  /** Notes which run of the worker answered (a worker that names none, like the original, is never told again). */
  private observe(worker: Worker, res: Response): void {
    const instance = res.headers.get(INSTANCE_HEADER);
    if (instance === null) return;
    worker.downUntil = 0;
    worker.instance = instance;
    if (!this.options.revocationsInForce()) worker.informed = instance;
  }

  private async status(worker: Worker): Promise<string | null> {
    try {
      const res = await fetch(`${worker.base}/internal/status`, { headers: this.headers, signal: AbortSignal.timeout(this.options.timeoutMs) });
      this.observe(worker, res);
      if (res.status !== 200) return null;
      const body = (await res.json()) as { status?: unknown };
      return typeof body.status === 'string' ? body.status : null;
    } catch {
      return null;
    }
  }
}
