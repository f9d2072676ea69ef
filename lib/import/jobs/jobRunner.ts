import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { ImportJobsConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import type { EventPublisher } from '../../services.js';
import { userTopic } from '../../live/topics.js';
import { isAlive } from '../../db/embedded.js';
import { outsideQueryScope, QueryScope, runInQueryScope } from '../../db/queryScope.js';
import { importEvent, publishQsoEvent } from '../../qso/events.js';
import { importAdif } from '../pipeline.js';
import { LocationBusyError } from '../errors.js';
import type { ImportSummary } from '../types.js';
import {
  admitJob, cancelRequested, claimJob, databaseKey, expireLeases, failOrphans, finishJob, forgetJob, heldSpools, markReceived, pruneJobs, recordProgress,
  releaseSpool, requestCancel, renewLeases, reserveSpool, type Admission, type ImportJob, type JobOutcome, type JobState, type NewJob, type Runner, type SpoolLimits,
} from './jobStore.js';

/** How often a running job writes its progress (and learns of a cancel from another process). */
const PROGRESS_INTERVAL_MS = 500;
/** Finished jobs are listed this long. */
const KEEP_DAYS = 7;
const READ_CHUNK_BYTES = 256 * 1024;
/** How often a process renews the leases of the jobs it holds (and learns of those ended elsewhere). */
const HEARTBEAT_MS = 1000;
/** How long the oldest upload waits for room that younger ones give back: RESERVE_WAITS × RESERVE_WAIT_MS. */
const RESERVE_WAITS = 20;
const RESERVE_WAIT_MS = 100;
/** A spool file's name: its database's key (databaseKey) and its job's id. */
const SPOOL_FILE = /^job-([0-9a-f]{12})-(\d+)\.spool$/;
/** How often a job whose location another import holds tries again. */
const LOCATION_RETRY_MS = 250;
const RESTARTED = 'interrupted by a server restart; the upload was removed, nothing was stored';
const LEASE_EXPIRED = 'its server stopped renewing the job (gone, on whatever host); the upload was removed, nothing was stored';

/** A job this process runs: `waiting` while another import holds its location (it then holds no runner place). */
interface RunningJob {
  userId: number;
  waiting: boolean;
  abort(reason: Error): void;
  done: Promise<void>;
}

/** A cancel, told apart from a failure when the import rejects. */
class JobCancelled extends Error {}

/** Why a spooling upload stopped: its job was cancelled, or the spool quota had no room for its next bytes. */
export class SpoolRefused extends Error {
  constructor(readonly reason: 'cancelled' | 'full') {
    super(reason === 'full' ? 'the import spool is full' : 'the job was cancelled while its upload was received');
  }
}

/** Spool reserved at a time while an upload of unknown size is written: 1/64 of the quota, 64 KiB to 8 MiB. */
export function spoolStep(maxSpoolBytes: number): number {
  return Math.min(8 * 1024 * 1024, Math.max(64 * 1024, Math.floor(maxSpoolBytes / 64)));
}

/** Live-update payload on the owner's topic while a job runs and when it ends. */
export interface ImportProgressEvent {
  type: 'import_progress';
  job_id: number;
  station_id: number;
  state: JobState;
  bytes_done: number;
  bytes_total: number | null;
  records_done: number;
}

export interface ImportJobsOptions {
  /** Job rows. */
  db: pg.Pool;
  /** The imports themselves (the pool without a statement timeout). */
  importDb: pg.Pool;
  config: ImportJobsConfig;
  /** Default spool folder when the config names none. */
  defaultSpoolDir: string;
  rowsPerBatch?: number;
  logger: Logger;
  events: EventPublisher;
}

/**
 * Background imports of spooled uploads. The process that received an upload runs it (the
 * spool is on its disk), at most `concurrency` at a time; state and progress go to
 * `import_jobs`, so any process can show or cancel any job. The process renews the lease of
 * every job it holds once a second; any process fails a job whose lease expired. Start-up fails
 * the jobs a previous process on this host left unfinished and removes every orphan spool.
 */
export class ImportJobs {
  readonly runner: Runner = { host: hostname(), pid: process.pid, instance: randomUUID() };
  readonly spoolDir: string;
  private readonly queue: Array<{ id: number; userId: number }> = [];
  private readonly running = new Map<number, RunningJob>();
  /** Jobs whose spool this process holds: being uploaded, queued, running, or ended with the file still to remove. */
  private readonly held = new Map<number, string>();
  private heartbeat: NodeJS.Timeout | null = null;
  /** The beat under way, if any: a slow one is not overtaken by the next. */
  private beating: Promise<void> | null = null;
  private beats = 0;
  private closed = false;
  /** Set by start(): this database's key in its spool files' names. */
  private databaseKey = '';

  constructor(private readonly options: ImportJobsOptions) {
    this.spoolDir = options.config.spool_dir ?? options.defaultSpoolDir;
  }

  private get limits(): SpoolLimits {
    const { max_active_per_owner: maxActive, max_spool_bytes: maxSpoolBytes, lease_seconds: leaseSeconds } = this.options.config;
    return { maxActive, maxSpoolBytes, leaseSeconds };
  }

  async start(): Promise<void> {
    const { db, logger } = this.options;
    await mkdir(this.spoolDir, { recursive: true, mode: 0o700 });
    const { mode } = await stat(this.spoolDir);
    if (mode & 0o077) logger.warn('the import spool folder is open to other users; its files are not (0600)', { folder: this.spoolDir });
    this.databaseKey = await databaseKey(db);
    const spools = await failOrphans(db, this.runner, isAlive, RESTARTED);
    for (const spool of spools) await rm(spool, { force: true });
    if (spools.length) logger.warn('import jobs interrupted by a restart marked failed', { count: spools.length });
    await this.expire();
    await this.removeOrphanSpools();
    await pruneJobs(db, KEEP_DAYS);
    this.heartbeat = setInterval(() => {
      this.beating ??= this.beat()
        .catch((error: Error) => logger.warn('import job leases not renewed', { error: error.message }))
        .finally(() => (this.beating = null));
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /**
   * This database's spool files on this disk whose job no live process holds (a crash, a cancel
   * before one): removed. Files of other databases sharing the folder are theirs to judge.
   */
  private async removeOrphanSpools(): Promise<void> {
    const files = new Map<number, string>();
    for (const name of await readdir(this.spoolDir)) {
      const [, key, id] = SPOOL_FILE.exec(name) ?? [];
      if (key === this.databaseKey && id !== undefined) files.set(Number(id), join(this.spoolDir, name));
    }
    if (!files.size) return;
    const held = await heldSpools(this.options.db, [...files.keys()], this.limits.leaseSeconds);
    const orphans = [...files].filter(([id]) => !held.has(id));
    for (const [, path] of orphans) await rm(path, { force: true });
    if (orphans.length) this.options.logger.warn('orphan import spool files removed', { count: orphans.length });
  }

  /** Fails the jobs whose lease expired, wherever they ran, and removes their spools where they are on this disk. */
  private async expire(): Promise<void> {
    for (const spool of await expireLeases(this.options.db, this.limits.leaseSeconds, LEASE_EXPIRED)) await rm(spool, { force: true });
  }

  /** Renews the held jobs' leases and removes the spools of those ended meanwhile; now and then expires others' leases. */
  private async beat(): Promise<void> {
    const { db } = this.options;
    if (this.held.size) {
      for (const job of await renewLeases(db, [...this.held.keys()])) {
        if ((job.state === 'queued' || job.state === 'running') || this.running.has(job.id)) continue;
        await this.removeSpool(job.id, job.spoolPath);
      }
    }
    if (++this.beats % Math.max(1, Math.floor(this.limits.leaseSeconds / 3)) === 0) await this.expire();
  }

  /** A new job for an upload about to be spooled (of `declared` bytes when known), or why not (owner busy, spool full, too large). */
  async admit(job: NewJob, declared: number | null): Promise<Admission> {
    await this.expire();
    const admission = await admitJob(this.options.db, job, this.runner, (id) => join(this.spoolDir, `job-${this.databaseKey}-${id}.spool`), this.limits, {
      declared, step: spoolStep(this.limits.maxSpoolBytes),
    });
    if (admission.ok) this.held.set(admission.job.id, admission.job.spoolPath);
    return admission;
  }

  /**
   * Writes an admitted job's upload to its spool file (0600) and returns its size. More spool is
   * reserved before bytes beyond the reservation are written, so that the live spools never
   * exceed the quota: SpoolRefused when none is left or the job was cancelled meanwhile. The
   * caller discards the job on any failure.
   */
  async spool(job: ImportJob, reserved: number, document: Readable): Promise<number> {
    const { db } = this.options;
    const step = spoolStep(this.limits.maxSpoolBytes);
    const limits = this.limits;
    let room = reserved;
    let written = 0;
    const quota = new Transform({
      transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
        const need = written + chunk.length - room;
        const reserve = need <= 0 ? Promise.resolve('reserved' as const) : reserveWaiting(db, job.id, Math.max(step, need), limits);
        reserve.then((answer) => {
          if (answer !== 'reserved') return callback(new SpoolRefused(answer));
          if (need > 0) room += Math.max(step, need);
          written += chunk.length;
          callback(null, chunk);
        }, callback);
      },
    });
    await pipeline(document, quota, createWriteStream(job.spoolPath, { flags: 'wx', mode: 0o600 }));
    return written;
  }

  /** The upload is spooled: the job joins this process's queue. SpoolRefused('cancelled') when it was cancelled while received. */
  async received(job: ImportJob, bytes: number): Promise<void> {
    if (!(await markReceived(this.options.db, job.id, bytes))) throw new SpoolRefused('cancelled');
    this.queue.push({ id: job.id, userId: job.userId });
    // The job outlives the request: it must not run in the request's query scope, whose
    // connections are terminated when that client goes away.
    runInQueryScope(new QueryScope(), () => this.pump());
  }

  /**
   * Forgets a job whose upload failed, and its spool. Outside the request's query scope: when the
   * client went away mid-upload that scope refuses queries, and the job, left queued with no
   * file, would count against its owner's max_active_per_owner until its lease expired.
   */
  async discard(job: ImportJob): Promise<void> {
    await rm(job.spoolPath, { force: true });
    await outsideQueryScope(() => forgetJob(this.options.db, job.id));
    this.held.delete(job.id);
  }

  /**
   * Asks for a job of `userId` to stop (see requestCancel), after failing the jobs whose lease
   * expired, so that a job of a gone process is seen as failed rather than promised a cancel. A
   * queued job held here loses its spool at once (held elsewhere: at that process's next beat).
   */
  async cancel(userId: number, id: number): Promise<ImportJob | null> {
    await this.expire();
    const job = await requestCancel(this.options.db, userId, id);
    if (job?.state === 'cancelled' && this.held.has(id) && !this.running.has(id)) await this.removeSpool(id, job.spoolPath);
    return job;
  }

  /** Stops running jobs (rolled back, failed "server stopped") and fails the queued ones. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.beating;
    const stopped = new Error('the server stopped before the import finished; nothing was stored');
    for (const job of this.running.values()) job.abort(stopped);
    await Promise.all([...this.running.values()].map((job) => job.done));
    for (const { id } of this.queue.splice(0)) {
      const job = await finishJob(this.options.db, id, { state: 'failed', error: 'the server stopped before the import started' });
      if (job) await this.removeSpool(id, job.spoolPath);
    }
  }

  /** Removes a held job's spool file; its bytes count no more. */
  private async removeSpool(id: number, path: string): Promise<void> {
    await rm(path, { force: true });
    await releaseSpool(this.options.db, [id]);
    this.held.delete(id);
  }

  /** Jobs of `userId` running here, those waiting for their location included. */
  private activeOf(userId: number): number {
    let count = 0;
    for (const job of this.running.values()) if (job.userId === userId) count++;
    return count;
  }

  /** Runner places taken: running jobs not waiting for their location. */
  private working(): number {
    let count = 0;
    for (const job of this.running.values()) if (!job.waiting) count++;
    return count;
  }

  /**
   * Starts queued jobs while runner places are free (`concurrency`), oldest first among owners
   * below their share: half the places (at least one), a job waiting for its location counting
   * in it. So one owner's jobs, running or waiting behind that owner's own imports, never keep
   * another owner's job queued.
   */
  private pump(): void {
    const { concurrency } = this.options.config;
    const share = Math.max(1, Math.floor(concurrency / 2));
    while (!this.closed && this.working() < concurrency) {
      const at = this.queue.findIndex((queued) => this.activeOf(queued.userId) < share);
      if (at === -1) return;
      const [{ id, userId }] = this.queue.splice(at, 1) as [{ id: number; userId: number }];
      let abort: (reason: Error) => void = () => undefined;
      const job: RunningJob = { userId, waiting: false, abort: (reason) => abort(reason), done: Promise.resolve() };
      this.running.set(id, job);
      job.done = this.run(id, job, (handler) => (abort = handler))
        .catch((error: Error) => this.options.logger.error('import job failed unexpectedly', { job_id: id, error: error.message }))
        .finally(() => {
          this.running.delete(id);
          this.pump();
        });
    }
  }

  /**
   * While another import holds the job's location: gives the runner place up (the owner's share
   * stays taken), so that other owners' jobs run meanwhile, then waits for a place again.
   */
  private async awaitLocation(job: RunningJob, signal: AbortSignal): Promise<void> {
    job.waiting = true;
    try {
      this.pump();
      do await sleep(LOCATION_RETRY_MS, undefined, { signal });
      while (this.working() >= this.options.config.concurrency);
    } finally {
      job.waiting = false;
    }
  }

  /** Runs `attempt` (an import with lockWait 'none') until it finds the job's location free. */
  private async whenLocationFree(job: RunningJob, signal: AbortSignal, attempt: () => Promise<ImportSummary>): Promise<ImportSummary> {
    for (;;) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof LocationBusyError) || signal.aborted) throw error;
      }
      await this.awaitLocation(job, signal);
    }
  }

  private async run(id: number, running: RunningJob, onAbort: (abort: (reason: Error) => void) => void): Promise<void> {
    const { db, logger } = this.options;
    const job = await claimJob(db, id);
    if (!job) {
      // Cancelled while queued: the spool goes now rather than at the next heartbeat.
      const path = this.held.get(id);
      if (path !== undefined) await this.removeSpool(id, path);
      return;
    }
    // Each attempt reads the spool from its start (one that found the location busy read nothing).
    const reading: { input: Readable | null } = { input: null };
    const open = () => {
      reading.input?.destroy();
      return (reading.input = createReadStream(job.spoolPath, { highWaterMark: READ_CHUNK_BYTES }));
    };
    const controller = new AbortController();
    const abort = (reason: Error) => controller.abort(reason);
    onAbort(abort);
    const progress = { bytes: 0, records: 0 };
    // Progress and the cancel flag are exchanged on a timer: a job waiting for the station's
    // import lock reports nothing, yet must still be cancellable.
    const timer = setInterval(() => {
      const check = progress.bytes > 0 ? recordProgress(db, id, progress.bytes, progress.records) : cancelRequested(db, id);
      check.then((stop) => {
        if (stop) abort(new JobCancelled('cancelled while running; nothing was stored'));
        else this.publish(job, 'running', progress.bytes, progress.records);
      }, (error: Error) => logger.warn('import job progress not recorded', { job_id: id, error: error.message }));
    }, PROGRESS_INTERVAL_MS);
    let outcome: JobOutcome;
    let summary: ImportSummary | null = null;
    let committed: ImportJob | null = null;
    try {
      summary = await this.whenLocationFree(running, controller.signal, () => importAdif(this.options.importDb, open(), {
        stationId: job.stationId, frequencyUnit: 'MHz', dryRun: job.dryRun, operator: job.operator, lockWait: 'none',
        onDuplicate: job.onDuplicate ?? undefined, insertUnmatched: job.insertUnmatched ?? undefined, strictCallsign: job.strictCallsign,
        rowsPerBatch: this.options.rowsPerBatch, signal: controller.signal, onProgress: (now) => Object.assign(progress, now),
        // The job's end commits with its QSOs: a process that dies between the two cannot leave
        // stored QSOs behind a job reported as failed.
        beforeCommit: async (client, stored) => {
          await rm(job.spoolPath, { force: true });
          committed = await finishJob(client, id, outcomeOf(stored), true);
          if (!committed) throw (await cancelRequested(client, id)) ? new JobCancelled('cancelled while running; nothing was stored') : new Error('the job was ended elsewhere');
        },
      }));
      outcome = outcomeOf(summary);
    } catch (error) {
      // An abort surfaces as the pipeline's AbortError, or as the reason itself (checked before COMMIT).
      const reason = controller.signal.aborted ? (controller.signal.reason as Error) : (error as Error);
      outcome = { state: reason instanceof JobCancelled ? 'cancelled' : 'failed', error: reason.message };
    } finally {
      clearInterval(timer);
      reading.input?.destroy();
    }
    // Before the job is recorded as ended (a client that sees it ended finds its spool gone).
    await this.removeSpool(id, job.spoolPath);
    const finished = committed ?? (await finishJob(db, id, outcome));
    const event = summary === null || job.dryRun ? null : importEvent(job.stationId, summary);
    if (event !== null) publishQsoEvent(this.options, job.userId, event);
    if (finished) this.publish(finished, finished.state, finished.bytesDone, finished.recordsDone);
  }

  private publish(job: ImportJob, state: JobState, bytes: number, records: number): void {
    const event: ImportProgressEvent = {
      type: 'import_progress', job_id: job.id, station_id: job.stationId, state, bytes_done: bytes, bytes_total: job.bytesTotal, records_done: records,
    };
    try {
      this.options.events.publish(userTopic(job.userId), event);
    } catch (error) {
      this.options.logger.warn('live update not published', { error: (error as Error).message });
    }
  }
}

/** Spool for an upload, waiting (RESERVE_WAITS times at most) while younger uploads are refused and give theirs back. */
async function reserveWaiting(db: pg.Pool, id: number, bytes: number, limits: SpoolLimits): Promise<'reserved' | 'full' | 'cancelled'> {
  for (let attempt = 0; ; attempt++) {
    const answer = await reserveSpool(db, id, bytes, limits);
    if (answer !== 'wait') return answer;
    if (attempt === RESERVE_WAITS) return 'full';
    await new Promise((resolve) => setTimeout(resolve, RESERVE_WAIT_MS));
  }
}

/** The job's end from the summary, with the synchronous import's rules for "nothing importable". */
function outcomeOf(summary: ImportSummary): JobOutcome {
  if (summary.parsed === 0) return { state: 'failed', error: 'No QSO records found', summary };
  if (summary.failed === summary.parsed) return { state: 'failed', error: 'No QSO could be imported', summary };
  return { state: 'done', summary };
}
