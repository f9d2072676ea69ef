import type pg from 'pg';
import type { DuplicatePolicy, ImportSummary } from '../types.js';

/**
 * Rows of `import_jobs` (sql/011_import_jobs.sql). Every query names the owner or the job's
 * runner; state changes are single conditional UPDATEs, so two processes never both move a job.
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
  insertUnmatched: boolean;
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
}

/** The process that receives a job: it holds the spool and runs the import. */
export interface Runner {
  host: string;
  pid: number;
  instance: string;
}

const COLUMNS = `id::int AS "id", user_id AS "userId", station_id AS "stationId", state, dry_run AS "dryRun", operator,
  on_duplicate AS "onDuplicate", insert_unmatched AS "insertUnmatched",
  file_name AS "fileName", bytes_total::float8 AS "bytesTotal", bytes_done::float8 AS "bytesDone", records_done AS "recordsDone",
  summary, error, cancel_requested AS "cancelRequested", spool_path AS "spoolPath", created_at AS "createdAt",
  started_at AS "startedAt", finished_at AS "finishedAt"`;

const ACTIVE = `state IN ('queued', 'running')`;

export interface NewJob {
  userId: number;
  stationId: number;
  dryRun: boolean;
  operator: string | null;
  onDuplicate: DuplicatePolicy | null;
  insertUnmatched: boolean;
  fileName: string | null;
}

/** What a new job may spool, or why it may not start. */
export type Admission = { ok: true; job: ImportJob; spoolRoom: number } | { ok: false; reason: 'owner_busy' | 'spool_full'; active: number };

/**
 * Creates a job unless its owner already has `maxActive` queued or running, or the spools of
 * all active jobs fill `maxSpoolBytes`; `spoolRoom` is what this upload may still take. Runs
 * under a per-owner advisory lock so that simultaneous uploads cannot both take the last place.
 */
export async function admitJob(db: pg.Pool, job: NewJob, runner: Runner, spoolPathFor: (id: number) => string, limits: { maxActive: number; maxSpoolBytes: number }): Promise<Admission> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('import_jobs'), $1)", [job.userId]);
    const { rows: [counts] } = await client.query<{ mine: number; spooled: number }>(
      `SELECT count(*) FILTER (WHERE user_id = $1)::int AS mine, coalesce(sum(coalesce(bytes_total, bytes_done)), 0)::float8 AS spooled
         FROM import_jobs WHERE ${ACTIVE}`,
      [job.userId],
    );
    if (counts!.mine >= limits.maxActive) {
      await client.query('ROLLBACK');
      return { ok: false, reason: 'owner_busy', active: counts!.mine };
    }
    const spoolRoom = limits.maxSpoolBytes - counts!.spooled;
    if (spoolRoom <= 0) {
      await client.query('ROLLBACK');
      return { ok: false, reason: 'spool_full', active: counts!.mine };
    }
    const { rows: [created] } = await client.query<{ id: number }>(
      `INSERT INTO import_jobs (user_id, station_id, dry_run, operator, on_duplicate, insert_unmatched, file_name, runner_host, runner_pid, runner_instance, spool_path)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, '') RETURNING id::int AS id`,
      [job.userId, job.stationId, job.dryRun, job.operator, job.onDuplicate, job.insertUnmatched, job.fileName, runner.host, runner.pid, runner.instance],
    );
    const { rows: [row] } = await client.query<ImportJob>(
      `UPDATE import_jobs SET spool_path = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [created!.id, spoolPathFor(created!.id)],
    );
    await client.query('COMMIT');
    return { ok: true, job: row!, spoolRoom };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The upload is complete: its size is known and the job waits for the runner. */
export async function markReceived(db: pg.Pool, id: number, bytesTotal: number): Promise<void> {
  await db.query('UPDATE import_jobs SET bytes_total = $2 WHERE id = $1', [id, bytesTotal]);
}

/** A job whose upload failed never existed for the client (it got an error, not a job). */
export async function forgetJob(db: pg.Pool, id: number): Promise<void> {
  await db.query('DELETE FROM import_jobs WHERE id = $1', [id]);
}

/** queued → running; null when the job is no longer queued (cancelled meanwhile). */
export async function claimJob(db: pg.Pool, id: number): Promise<ImportJob | null> {
  const { rows } = await db.query<ImportJob>(
    `UPDATE import_jobs SET state = 'running', started_at = now() WHERE id = $1 AND state = 'queued' AND NOT cancel_requested RETURNING ${COLUMNS}`,
    [id],
  );
  return rows[0] ?? null;
}

/** Records progress; answers whether a cancel was asked for (by any process). */
export async function recordProgress(db: pg.Pool, id: number, bytes: number, records: number): Promise<boolean> {
  const { rows } = await db.query<{ cancel: boolean }>(
    'UPDATE import_jobs SET bytes_done = $2, records_done = $3 WHERE id = $1 RETURNING cancel_requested AS cancel',
    [id, bytes, records],
  );
  return rows[0]?.cancel ?? true;
}

export async function cancelRequested(db: pg.Pool, id: number): Promise<boolean> {
  const { rows } = await db.query<{ cancel: boolean }>('SELECT cancel_requested AS cancel FROM import_jobs WHERE id = $1', [id]);
  return rows[0]?.cancel ?? true;
}

export type JobOutcome =
  | { state: 'done'; summary: ImportSummary }
  | { state: 'failed' | 'cancelled'; error: string; summary?: ImportSummary };

/** queued/running → done | failed | cancelled, with the summary and/or the reason; null when it had already ended. */
export async function finishJob(db: pg.Pool, id: number, outcome: JobOutcome): Promise<ImportJob | null> {
  const summary = outcome.summary ?? null;
  const { rows } = await db.query<ImportJob>(
    `UPDATE import_jobs SET state = $2, summary = $3, error = $4, finished_at = now(),
            bytes_done = CASE WHEN $3::jsonb IS NOT NULL THEN coalesce(bytes_total, bytes_done) ELSE bytes_done END,
            records_done = coalesce(($3::jsonb ->> 'parsed')::int, records_done)
      WHERE id = $1 AND ${ACTIVE} RETURNING ${COLUMNS}`,
    [id, outcome.state, summary === null ? null : JSON.stringify(summary), outcome.state === 'done' ? null : outcome.error],
  );
  return rows[0] ?? null;
}

/**
 * Asks for a job of `userId` to stop: a queued one is cancelled at once, a running one when
 * its runner next checks (within a second). Null for an unknown or foreign job; the job
 * unchanged when it had already ended.
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
 * Active jobs of processes on this host that are gone: another pid that no longer runs, or
 * this pid under an earlier instance (a restarted container keeps its pid). Each is failed
 * with `reason`; their spool paths are returned for removal.
 */
export async function failOrphans(db: pg.Pool, runner: Runner, isAlive: (pid: number) => boolean, reason: string): Promise<string[]> {
  const { rows } = await db.query<{ id: number; pid: number; instance: string }>(
    `SELECT id::int AS id, runner_pid AS pid, runner_instance AS instance FROM import_jobs WHERE runner_host = $1 AND ${ACTIVE}`,
    [runner.host],
  );
  const orphans = rows.filter((row) => row.instance !== runner.instance && (row.pid === runner.pid || !isAlive(row.pid))).map((row) => row.id);
  if (!orphans.length) return [];
  const { rows: failed } = await db.query<{ spool: string }>(
    `UPDATE import_jobs SET state = 'failed', error = $2, finished_at = now() WHERE id = ANY($1::bigint[]) AND ${ACTIVE} RETURNING spool_path AS spool`,
    [orphans, reason],
  );
  return failed.map((row) => row.spool);
}

/** Finished jobs older than `days` are dropped (their spools are long gone). */
export async function pruneJobs(db: pg.Pool, days: number): Promise<void> {
  await db.query(`DELETE FROM import_jobs WHERE NOT ${ACTIVE} AND finished_at < now() - make_interval(days => $1)`, [days]);
}
