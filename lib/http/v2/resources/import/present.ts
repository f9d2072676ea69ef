import type { ImportJob } from '../../../../import/jobs/jobStore.js';
import type { JsonSchema } from '../../resource.js';

/** Seconds left, from the pace so far; null until there is a pace to go by. */
function etaSeconds(job: ImportJob, now: number): number | null {
  if (job.state !== 'running' || !job.startedAt || !job.bytesTotal || job.bytesDone <= 0) return null;
  const elapsed = (now - job.startedAt.getTime()) / 1000;
  return Math.max(0, Math.round((elapsed * (job.bytesTotal - job.bytesDone)) / job.bytesDone));
}

/** An import job as the API shows it. */
export function presentJob(job: ImportJob, now = Date.now()) {
  return {
    id: job.id,
    state: job.state,
    station_id: job.stationId,
    dryrun: job.dryRun,
    file_name: job.fileName,
    bytes_total: job.bytesTotal,
    bytes_done: job.bytesDone,
    records_done: job.recordsDone,
    eta_seconds: etaSeconds(job, now),
    cancel_requested: job.cancelRequested,
    summary: job.summary,
    error: job.error,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
  };
}

const nullable = (type: string, description?: string): JsonSchema => ({ type: [type, 'null'], ...(description ? { description } : {}) });

export const jobSchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    state: { type: 'string', enum: ['queued', 'running', 'done', 'failed', 'cancelled'] },
    station_id: { type: 'integer' },
    dryrun: { type: 'boolean' },
    file_name: nullable('string'),
    bytes_total: nullable('integer', 'Decompressed size of the upload'),
    bytes_done: { type: 'integer' },
    records_done: { type: 'integer' },
    eta_seconds: nullable('integer', 'Estimate while running, from the pace so far'),
    cancel_requested: { type: 'boolean' },
    summary: nullable('object', 'The import summary, once done (also for a job that failed because nothing was importable)'),
    error: nullable('string', 'Why the job failed or was cancelled'),
    created_at: { type: 'string' },
    started_at: nullable('string'),
    finished_at: nullable('string'),
  },
};
