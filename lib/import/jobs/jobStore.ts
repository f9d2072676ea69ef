import { createHash } from 'node:crypto';
import type pg from 'pg';
import { begin } from '../../db/transaction.js';
import type { DuplicatePolicy, ImportSummary } from '../types.js';

/**
 * Rows of `import_jobs` (sql/011_import_jobs.sql, leases and spool reservations sql/030). Every
 * query names the owner or the job's runner; state changes are single conditional UPDATEs, so
 * two processes never both move a job.
 */

export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface ImportJob {
  id: number;
  userId: number;
  stationId: number;
  state: JobState;
  dryRun: boolean;
  operator: string | null;
  onDuplicate: DuplicatePolicy | null;
  /** null: by what the download is (ImportOptions.insertUnmatched). */
  insertUnmatched: boolean | null;
  strictCallsign: boolean;
  fileName: string | null;
  bytesTotal: number | null;
  bytesDone: number;
  recordsDone: number;
  summary: ImportSummary | null;
  error: string | null;
  cancelRequested: boolean;
  spoolPath: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** The per-start id of the process that holds the job. */
  runnerInstance: string;
  /** Seconds since that process last renewed the job's lease. */
  silentSeconds: number;
}

/** The process that receives a job: it holds the spool and runs the import. */
export interface Runner {
  host: string;
  pid: number;
  instance: string;
}

const COLUMNS = `id::int AS "id", user_id AS "userId", station_id AS "stationId", state, dry_run AS "dryRun", operator,
  on_duplicate AS "onDuplicate", insert_unmatched AS "insertUnmatched", strict_callsign AS "strictCallsign",
  file_name AS "fileName", bytes_total::float8 AS "bytesTotal", bytes_done::float8 AS "bytesDone", records_done AS "recordsDone",
  summary, error, cancel_requested AS "cancelRequested", spool_path AS "spoolPath", created_at AS "createdAt",
  started_at AS "startedAt", finished_at AS "finishedAt", runner_instance AS "runnerInstance",
  extract(epoch FROM now() - heartbeat_at)::float8 AS "silentSeconds"`;

const ACTIVE = `state IN ('queued', 'running')`;

/** What the table and its queries are given: a pool, or a client inside a transaction. */
type Queryable = Pick<pg.ClientBase, 'query'>;

/** Spool bytes whose holder is alive (the lease in seconds is `leaseParam`): the quota counts these, a gone holder's stop counting when its lease expires. */
const liveSpools = (leaseParam: string) => `SELECT coalesce(sum(spool_bytes), 0) FROM import_jobs
  WHERE spool_bytes > 0 AND heartbeat_at >= now() - make_interval(secs => ${leaseParam})`;

/** Serialises every change of the spool reservations (the quota is a sum over rows). */
const SPOOL_LOCK = "SELECT pg_advisory_xact_lock(hashtext('import_spool'), 0)";

export interface NewJob {
  userId: number;
  stationId: number;
  dryRun: boolean;
  operator: string | null;
  onDuplicate: DuplicatePolicy | null;
  insertUnmatched: boolean | null;
  strictCallsign: boolean;
  fileName: string | null;
}

export interface SpoolLimits {
  maxActive: number;
  maxSpoolBytes: number;
  leaseSeconds: number;
}

/** What a new job may spool (`reserved` bytes so far), or why it may not start. */
export type Admission =
  | { ok: true; job: ImportJob; reserved: number }
  | { ok: false; reason: 'owner_busy'; active: number }
  | { ok: false; reason: 'spool_full'; available: number }
  | { ok: false; reason: 'too_large' };

/** Runs `work` in a transaction on a client of `db`. */
async function inTransaction<T>(db: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await begin(client);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function liveSpoolBytes(client: Queryable, leaseSeconds: number): Promise<number> {
  const { rows: [row] } = await client.query<{ bytes: number }>(`SELECT (${liveSpools('$1')})::float8 AS bytes`, [leaseSeconds]);
  return row!.bytes;
}

/**
 * Creates a job unless its owner already has `maxActive` queued or running, or the spool quota
 * has no room: for `declared` bytes (an upload's known size: refused outright beyond the quota),
 * or else for a first `step`. The room is reserved in the job's row (`reserved`) before a byte
 * is written. A per-owner advisory lock keeps simultaneous uploads from all taking the last
 * place, the spool lock from all taking the last bytes.
 */
export async function admitJob(db: pg.Pool, job: NewJob, runner: Runner, spoolPathFor: (id: number) => string, limits: SpoolLimits, want: { declared: number | null; step: number }): Promise<Admission> {
  if (want.declared !== null && want.declared > limits.maxSpoolBytes) return { ok: false, reason: 'too_large' };
  return inTransaction(db, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('import_jobs'), $1)", [job.userId]);
    const { rows: [mine] } = await client.query<{ active: number }>(`SELECT count(*)::int AS active FROM import_jobs WHERE user_id = $1 AND ${ACTIVE}`, [job.userId]);
    if (mine!.active >= limits.maxActive) return { ok: false, reason: 'owner_busy', active: mine!.active };
    await client.query(SPOOL_LOCK);
    const available = Math.max(0, limits.maxSpoolBytes - (await liveSpoolBytes(client, limits.leaseSeconds)));
    const reserved = want.declared ?? Math.min(want.step, available);
    if (reserved > available || available === 0) return { ok: false, reason: 'spool_full', available };
    const { rows: [created] } = await client.query<{ id: number }>(
      `INSERT INTO import_jobs (user_id, station_id, dry_run, operator, on_duplicate, insert_unmatched, strict_callsign, file_name, runner_host, runner_pid, runner_instance, spool_path, spool_bytes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, '', $12) RETURNING id::int AS id`,
      [job.userId, job.stationId, job.dryRun, job.operator, job.onDuplicate, job.insertUnmatched, job.strictCallsign, job.fileName, runner.host, runner.pid, runner.instance, reserved],
    );
    const { rows: [row] } = await client.query<ImportJob>(
      `UPDATE import_jobs SET spool_path = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [created!.id, spoolPathFor(created!.id)],
    );
    return { ok: true, job: row!, reserved };
  });
}

/**
 * Reserves `bytes` more spool for a job still being uploaded: 'reserved'; 'cancelled' when the
 * job was cancelled (or failed) meanwhile; 'full' when the quota has no room for them, or
 * 'wait' when this is the oldest upload still being received and younger ones hold spool: they
 * are refused first and give theirs back, so that uploads racing for the last room do not all fail.
 */
export async function reserveSpool(db: pg.Pool, id: number, bytes: number, limits: SpoolLimits): Promise<'reserved' | 'full' | 'wait' | 'cancelled'> {
  return inTransaction(db, async (client) => {
    await client.query(SPOOL_LOCK);
    const receiving = `SELECT 1 FROM import_jobs AS other WHERE other.state = 'queued' AND other.bytes_total IS NULL AND other.spool_bytes > 0
      AND other.heartbeat_at >= now() - make_interval(secs => $2)`;
    const { rows: [row] } = await client.query<{ open: boolean; fits: boolean; yields: boolean }>(
      `SELECT state = 'queued' AND NOT cancel_requested AS open, (${liveSpools('$2')}) + $3 <= $4 AS fits,
              NOT EXISTS (${receiving} AND other.id < $1) AND EXISTS (${receiving} AND other.id > $1) AS yields
         FROM import_jobs WHERE id = $1`,
      [id, limits.leaseSeconds, bytes, limits.maxSpoolBytes],
    );
    if (!row?.open) return 'cancelled';
    if (!row.fits) return row.yields ? 'wait' : 'full';
    await client.query('UPDATE import_jobs SET spool_bytes = spool_bytes + $2 WHERE id = $1', [id, bytes]);
    return 'reserved';
  });
}

/**
 * The upload is complete: its size is known, its reservation shrinks to it, and the job waits
 * for the runner. False when the job was cancelled while it was received.
 */
export async function markReceived(db: pg.Pool, id: number, bytesTotal: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE import_jobs SET bytes_total = $2, spool_bytes = $2 WHERE id = $1 AND state = 'queued' AND NOT cancel_requested`, [id, bytesTotal],
  );
  return rowCount === 1;
}

/**
 * A job whose upload failed never existed for the client (it got an error, not a job); one
 * cancelled meanwhile stays, as cancelled. Either way its spool is gone and counts no more.
 */
export async function forgetJob(db: pg.Pool, id: number): Promise<void> {
  await db.query(
    `WITH gone AS (DELETE FROM import_jobs WHERE id = $1 AND state = 'queued' AND NOT cancel_requested RETURNING id)
     UPDATE import_jobs SET spool_bytes = 0 WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM gone)`,
    [id],
  );
}

/** The job's spool file is removed: its bytes count no more. */
export async function releaseSpool(db: Queryable, ids: readonly number[]): Promise<void> {
  await db.query('UPDATE import_jobs SET spool_bytes = 0 WHERE id = ANY($1::bigint[]) AND spool_bytes > 0', [ids]);
}

/**
 * Renews the lease of the jobs a process holds (queued, running, or ended with a spool still to
 * remove); answers their states, so that the holder removes the spools of jobs ended elsewhere.
 */
export async function renewLeases(db: Queryable, ids: readonly number[]): Promise<Array<{ id: number; state: JobState; spoolPath: string }>> {
  const { rows } = await db.query<{ id: number; state: JobState; spoolPath: string }>(
    'UPDATE import_jobs SET heartbeat_at = now() WHERE id = ANY($1::bigint[]) RETURNING id::int AS id, state, spool_path AS "spoolPath"',
    [ids],
  );
  return rows;
}

/**
 * Jobs whose holder let its lease expire (a process gone, on whatever host): active ones are
 * failed with `reason`, and every spool they hold stops counting. Rows locked by a job that is
 * committing are skipped: their holder is alive. Returns the spool paths, to remove where they
 * are on this process's disk.
 */
export async function expireLeases(db: Queryable, leaseSeconds: number, reason: string): Promise<string[]> {
  const { rows } = await db.query<{ spool: string }>(
    `WITH stale AS (
       SELECT id, ${ACTIVE} AS active FROM import_jobs
        WHERE (${ACTIVE} OR spool_bytes > 0) AND heartbeat_at < now() - make_interval(secs => $1)
        FOR UPDATE SKIP LOCKED)
     UPDATE import_jobs AS job
        SET state = CASE WHEN stale.active THEN 'failed' ELSE job.state END,
            error = CASE WHEN stale.active THEN $2 ELSE job.error END,
            finished_at = CASE WHEN stale.active THEN now() ELSE job.finished_at END,
            spool_bytes = 0
       FROM stale WHERE job.id = stale.id
     RETURNING job.spool_path AS spool`,
    [leaseSeconds, reason],
  );
  return rows.map((row) => row.spool).filter((path) => path !== '');
}

/** queued → running; null when the job is no longer queued (cancelled meanwhile). */
export async function claimJob(db: pg.Pool, id: number): Promise<ImportJob | null> {
  const { rows } = await db.query<ImportJob>(
    `UPDATE import_jobs SET state = 'running', started_at = now() WHERE id = $1 AND state = 'queued' AND NOT cancel_requested RETURNING ${COLUMNS}`,
    [id],
  );
  return rows[0] ?? null;
}

/** Records progress; answers whether the job must stop: a cancel was asked for (by any process), or it no longer runs (its lease expired). */
export async function recordProgress(db: pg.Pool, id: number, bytes: number, records: number): Promise<boolean> {
  const { rows } = await db.query<{ stop: boolean }>(
    `UPDATE import_jobs SET bytes_done = $2, records_done = $3 WHERE id = $1 RETURNING cancel_requested OR state <> 'running' AS stop`,
    [id, bytes, records],
  );
  return rows[0]?.stop ?? true;
}

export async function cancelRequested(db: Queryable, id: number): Promise<boolean> {
  const { rows } = await db.query<{ stop: boolean }>(`SELECT cancel_requested OR state <> 'running' AS stop FROM import_jobs WHERE id = $1`, [id]);
  return rows[0]?.stop ?? true;
}

export type JobOutcome =
  | { state: 'done'; summary: ImportSummary }
  | { state: 'failed' | 'cancelled'; error: string; summary?: ImportSummary };

/**
 * queued/running → done | failed | cancelled, with the summary and/or the reason; its spool is
 * gone by then. Null when it had already ended, or (`unlessCancelled`, for the commit of its
 * data) when it no longer runs or a cancel was asked for. Inside the import's transaction, the
 * job's end commits with its QSOs or not at all.
 */
export async function finishJob(db: Queryable, id: number, outcome: JobOutcome, unlessCancelled = false): Promise<ImportJob | null> {
  const summary = outcome.summary ?? null;
  const { rows } = await db.query<ImportJob>(
    `UPDATE import_jobs SET state = $2, summary = $3, error = $4, finished_at = now(), spool_bytes = 0,
            bytes_done = CASE WHEN $3::jsonb IS NOT NULL THEN coalesce(bytes_total, bytes_done) ELSE bytes_done END,
            records_done = coalesce(($3::jsonb ->> 'parsed')::int, records_done)
      WHERE id = $1 AND ${ACTIVE} AND (NOT $5 OR (state = 'running' AND NOT cancel_requested)) RETURNING ${COLUMNS}`,
    [id, outcome.state, summary === null ? null : JSON.stringify(summary), outcome.state === 'done' ? null : outcome.error, unlessCancelled],
  );
  return rows[0] ?? null;
}

/**
 * Asks for a job of `userId` to stop: a queued one is cancelled at once (its holder removes its
 * spool), a running one when its runner next checks (within a second). Null for an unknown or
 * foreign job; the job unchanged when it had already ended. A running job's row is locked by
 * its import while that commits: the answer waits for the commit and sees the job ended.
 */
export async function requestCancel(db: pg.Pool, userId: number, id: number): Promise<ImportJob | null> {
  const { rows } = await db.query<ImportJob>(
    `UPDATE import_jobs
        SET cancel_requested = cancel_requested OR state IN ('queued', 'running'),
            state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END,
            error = CASE WHEN state = 'queued' THEN 'cancelled before it started' ELSE error END,
            finished_at = CASE WHEN state = 'queued' THEN now() ELSE finished_at END
      WHERE id = $2 AND user_id = $1 RETURNING ${COLUMNS}`,
    [userId, id],
  );
  return rows[0] ?? null;
}

export async function findJob(db: pg.Pool, userId: number, id: number): Promise<ImportJob | null> {
  const { rows } = await db.query<ImportJob>(`SELECT ${COLUMNS} FROM import_jobs WHERE id = $2 AND user_id = $1`, [userId, id]);
  return rows[0] ?? null;
}

/** The owner's most recent jobs, newest first. */
export async function recentJobs(db: pg.Pool, userId: number, limit: number): Promise<ImportJob[]> {
  const { rows } = await db.query<ImportJob>(`SELECT ${COLUMNS} FROM import_jobs WHERE user_id = $1 ORDER BY id DESC LIMIT $2`, [userId, limit]);
  return rows;
}

/**
 * Jobs of processes on this host that are gone (another pid that no longer runs, or this pid
 * under an earlier instance: a restarted container keeps its pid), without waiting for their
 * leases: active ones are failed with `reason`, and the spools of all of them (also of jobs
 * cancelled while queued) stop counting. Their spool paths are returned for removal.
 */
export async function failOrphans(db: pg.Pool, runner: Runner, isAlive: (pid: number) => boolean, reason: string): Promise<string[]> {
  const { rows } = await db.query<{ id: number; pid: number; instance: string }>(
    `SELECT id::int AS id, runner_pid AS pid, runner_instance AS instance FROM import_jobs WHERE runner_host = $1 AND (${ACTIVE} OR spool_bytes > 0)`,
    [runner.host],
  );
  const orphans = rows.filter((row) => row.instance !== runner.instance && (row.pid === runner.pid || !isAlive(row.pid))).map((row) => row.id);
  if (!orphans.length) return [];
  const { rows: failed } = await db.query<{ spool: string }>(
    `UPDATE import_jobs
        SET state = CASE WHEN ${ACTIVE} THEN 'failed' ELSE state END,
            error = CASE WHEN ${ACTIVE} THEN $2 ELSE error END,
            finished_at = CASE WHEN ${ACTIVE} THEN now() ELSE finished_at END,
            spool_bytes = 0
      WHERE id = ANY($1::bigint[]) RETURNING spool_path AS spool`,
    [orphans, reason],
  );
  return failed.map((row) => row.spool);
}

/**
 * This database, named apart from every other a spool folder may serve (its cluster's system
 * identifier and its own oid, hashed): job ids restart in each database, so a spool file's name
 * carries the key, and a process leaves the files of other keys alone.
 */
export async function databaseKey(db: pg.Pool): Promise<string> {
  const { rows } = await db.query<{ key: string }>(
    `SELECT (SELECT system_identifier FROM pg_control_system()) || '-' || (SELECT oid FROM pg_database WHERE datname = current_database()) AS key`);
  return createHash('sha256').update(rows[0]!.key).digest('hex').slice(0, 12);
}

/** Of the jobs `ids` (spool files found on disk), those whose spool is held by a live process: the others' files are orphans. */
export async function heldSpools(db: pg.Pool, ids: readonly number[], leaseSeconds: number): Promise<Set<number>> {
  const { rows } = await db.query<{ id: number }>(
    'SELECT id::int AS id FROM import_jobs WHERE id = ANY($1::bigint[]) AND spool_bytes > 0 AND heartbeat_at >= now() - make_interval(secs => $2)',
    [ids, leaseSeconds],
  );
  return new Set(rows.map((row) => row.id));
}

/** Finished jobs older than `days` are dropped (their spools are long gone). */
export async function pruneJobs(db: pg.Pool, days: number): Promise<void> {
  await db.query(`DELETE FROM import_jobs WHERE NOT ${ACTIVE} AND finished_at < now() - make_interval(days => $1)`, [days]);
}
