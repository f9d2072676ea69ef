import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import type { ImportJobsConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import type { EventPublisher } from '../../services.js';
import { userTopic } from '../../live/topics.js';
import { isAlive } from '../../db/embedded.js';
import { outsideQueryScope, QueryScope, runInQueryScope } from '../../db/queryScope.js';
import { importEvent, publishQsoEvent } from '../../qso/events.js';
import { importAdif } from '../pipeline.js';
import type { ImportSummary } from '../types.js';
import {
  admitJob, cancelRequested, claimJob, failOrphans, finishJob, forgetJob, markReceived, pruneJobs, recordProgress,
  type Admission, type ImportJob, type JobOutcome, type JobState, type NewJob, type Runner,
} from './jobStore.js';

/** How often a running job writes its progress (and learns of a cancel from another process). */
const PROGRESS_INTERVAL_MS = 500;
/** Finished jobs are listed this long. */
const KEEP_DAYS = 7;
const READ_CHUNK_BYTES = 256 * 1024;

/** A cancel, told apart from a failure when the import rejects. */
class JobCancelled extends Error {}

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
 * `import_jobs`, so any process can show or cancel any job. Start-up fails the jobs a previous
 * process on this host left unfinished and removes their spools.
 */
export class ImportJobs {
  readonly runner: Runner = { host: hostname(), pid: process.pid, instance: randomUUID() };
  readonly spoolDir: string;
  private readonly queue: number[] = [];
  private readonly running = new Map<number, { abort(reason: Error): void; done: Promise<void> }>();
  private closed = false;

  constructor(private readonly options: ImportJobsOptions) {
    this.spoolDir = options.config.spool_dir ?? options.defaultSpoolDir;
  }

  async start(): Promise<void> {
    await mkdir(this.spoolDir, { recursive: true });
    const spools = await failOrphans(this.options.db, this.runner, isAlive, 'interrupted by a server restart; the upload was removed, nothing was stored');
    for (const spool of spools) await rm(spool, { force: true });
    if (spools.length) this.options.logger.warn('import jobs interrupted by a restart marked failed', { count: spools.length });
    await pruneJobs(this.options.db, KEEP_DAYS);
  }

  /** A new job for an upload about to be spooled, or why not (owner busy, spool full). */
  admit(job: NewJob): Promise<Admission> {
    const { max_active_per_owner: maxActive, max_spool_bytes: maxSpoolBytes } = this.options.config;
    return admitJob(this.options.db, job, this.runner, (id) => join(this.spoolDir, `job-${id}.spool`), { maxActive, maxSpoolBytes });
  }

  /** The upload is spooled: the job joins this process's queue. */
  async received(job: ImportJob, bytes: number): Promise<void> {
    await markReceived(this.options.db, job.id, bytes);
    this.queue.push(job.id);
    // The job outlives the request: it must not run in the request's query scope, whose
    // connections are terminated when that client goes away.
    runInQueryScope(new QueryScope(), () => this.pump());
  }

  /** The upload failed: the job and its spool go (the client got an error, never a job). */
  /**
   * Forgets a job whose upload failed. Outside the request's query scope: when the client went
   * away mid-upload that scope refuses queries, and the job, left queued with no file, would count
   * against its owner's max_active_per_owner until a restart.
   */
  async discard(job: ImportJob): Promise<void> {
    await rm(job.spoolPath, { force: true });
    await outsideQueryScope(() => forgetJob(this.options.db, job.id));
  }

  /** Stops running jobs (rolled back, failed "server stopped") and fails the queued ones. */
  async close(): Promise<void> {
    this.closed = true;
    const stopped = new Error('the server stopped before the import finished; nothing was stored');
    for (const job of this.running.values()) job.abort(stopped);
    await Promise.all([...this.running.values()].map((job) => job.done));
    for (const id of this.queue.splice(0)) {
      const job = await finishJob(this.options.db, id, { state: 'failed', error: 'the server stopped before the import started' });
      if (job) await rm(job.spoolPath, { force: true });
    }
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.options.config.concurrency && this.queue.length) {
      const id = this.queue.shift()!;
      let abort: (reason: Error) => void = () => undefined;
      const done = this.run(id, (handler) => (abort = handler))
        .catch((error: Error) => this.options.logger.error('import job failed unexpectedly', { job_id: id, error: error.message }))
        .finally(() => {
          this.running.delete(id);
          this.pump();
        });
      this.running.set(id, { abort: (reason) => abort(reason), done });
    }
  }

  private async run(id: number, onAbort: (abort: (reason: Error) => void) => void): Promise<void> {
    const { db, logger } = this.options;
    const job = await claimJob(db, id);
    if (!job) {
      const { rows } = await db.query<{ spool: string }>('SELECT spool_path AS spool FROM import_jobs WHERE id = $1', [id]);
      if (rows[0]) await rm(rows[0].spool, { force: true });
      return;
    }
    const input = createReadStream(job.spoolPath, { highWaterMark: READ_CHUNK_BYTES });
    const controller = new AbortController();
    const abort = (reason: Error) => controller.abort(reason);
    onAbort(abort);
    const progress = { bytes: 0, records: 0 };
    // Progress and the cancel flag are exchanged on a timer: a job waiting for the station's
    // import lock reports nothing, yet must still be cancellable.
    const timer = setInterval(() => {
      const check = progress.bytes > 0 ? recordProgress(db, id, progress.bytes, progress.records) : cancelRequested(db, id);
      check.then((cancel) => {
        if (cancel) abort(new JobCancelled('cancelled while running; nothing was stored'));
        else this.publish(job, 'running', progress.bytes, progress.records);
      }, (error: Error) => logger.warn('import job progress not recorded', { job_id: id, error: error.message }));
    }, PROGRESS_INTERVAL_MS);
    let outcome: JobOutcome;
    let summary: ImportSummary | null = null;
    try {
      summary = await importAdif(this.options.importDb, input, {
        stationId: job.stationId, frequencyUnit: 'MHz', dryRun: job.dryRun, operator: job.operator,
        onDuplicate: job.onDuplicate ?? undefined, insertUnmatched: job.insertUnmatched,
        rowsPerBatch: this.options.rowsPerBatch, signal: controller.signal, onProgress: (now) => Object.assign(progress, now),
      });
      outcome = outcomeOf(summary);
    } catch (error) {
      // An abort surfaces as the pipeline's AbortError, or as the reason itself (checked before COMMIT).
      const reason = controller.signal.aborted ? (controller.signal.reason as Error) : (error as Error);
      outcome = { state: reason instanceof JobCancelled ? 'cancelled' : 'failed', error: reason.message };
    } finally {
      clearInterval(timer);
      input.destroy();
      // Before the job is recorded as ended: a client that sees it ended finds its spool gone.
      await rm(job.spoolPath, { force: true });
    }
    const finished = await finishJob(db, id, outcome);
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

/** The job's end from the summary, with the synchronous import's rules for "nothing importable". */
function outcomeOf(summary: ImportSummary): JobOutcome {
  if (summary.parsed === 0) return { state: 'failed', error: 'No QSO records found', summary };
  if (summary.failed === summary.parsed) return { state: 'failed', error: 'No QSO could be imported', summary };
  return { state: 'done', summary };
}
