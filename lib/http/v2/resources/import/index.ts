import { conflict, notFound } from '../../../errors.js';
import type { ResourceDefinition } from '../../resource.js';
import { findJob, recentJobs } from '../../../../import/jobs/jobStore.js';
import { jobSchema, presentJob } from './present.js';

/** Jobs listed by GET /import: the owner's most recent. */
const RECENT_JOBS = 50;
/** A running job whose process renewed its lease longer ago than this cannot be promised to stop (it renews every second). */
const UNRESPONSIVE_SECONDS = 5;

/**
 * Background imports started by POST /qso with `Prefer: respond-async` (or `?async=true`):
 * their state, progress and summary, and cancelling. Guarded by the qso scopes, since a job
 * is a QSO write.
 */
export const importResource: ResourceDefinition = {
  name: 'import',
  description: "The token owner's background import jobs (POST /api/v2/qso with Prefer: respond-async)",
  scoped: true,
  scopes: { GET: 'qso:read', DELETE: 'qso:write' },
  list: {
    summary: `The owner's ${RECENT_JOBS} most recent import jobs, newest first`,
    response: { type: 'array', items: jobSchema },
    handler: async ({ services, principal }) => ({ data: (await recentJobs(services.db, principal.userId, RECENT_JOBS)).map((job) => presentJob(job)) }),
  },
  show: {
    summary: 'One import job: state, bytes and records so far, an ETA, and the summary once done',
    response: jobSchema,
    handler: async ({ services, principal, id }) => {
      const job = await findJob(services.db, principal.userId, Number(id));
      if (!job) throw notFound('Unknown import job');
      return { data: presentJob(job) };
    },
  },
  remove: {
    summary: 'Cancel a queued or running job (202; a running one is rolled back within a second: nothing is stored); 409 when it has ended, or when the process running it has stopped answering',
    response: jobSchema,
    otherResponses: { 202: { description: 'Cancel accepted', data: jobSchema } },
    handler: async ({ services, principal, id }) => {
      const job = await services.importJobs.cancel(principal.userId, Number(id));
      if (!job) throw notFound('Unknown import job');
      if (job.state !== 'cancelled' && job.state !== 'queued' && job.state !== 'running') {
        throw conflict(`Import job ${job.id} has already ended (${job.state})${job.error ? `: ${job.error}` : ''}`, { state: job.state });
      }
      if (job.state === 'running' && job.silentSeconds > UNRESPONSIVE_SECONDS) {
        const left = Math.max(0, Math.ceil(services.config.import_jobs.lease_seconds - job.silentSeconds));
        throw conflict(
          `Import job ${job.id} cannot be stopped now: the server process running it has not answered for ${Math.floor(job.silentSeconds)} seconds. `
          + `The cancel is recorded and applies if that process answers again; otherwise the job fails within ${left} seconds, when its lease expires, and nothing of it is stored`,
          { state: job.state, reason: 'runner_unresponsive', cancel_requested: true, lease_expires_in: left },
        );
      }
      return { data: presentJob(job), status: 202 };
    },
  },
};
