import { PassThrough, type Readable, type Writable } from 'node:stream';
import { ApiError, conflict, validationError } from '../../../errors.js';
import { asBoolean, isBlank } from '../../../../input/jsonValues.js';
import { readMultipart } from '../../../upload/multipart.js';
import { restrictedOperator } from '../../principal.js';
import type { HandlerResult, RequestContext } from '../../resource.js';
import { importAdif } from '../../../../import/pipeline.js';
import { SpoolRefused } from '../../../../import/jobs/jobRunner.js';
import type { Admission } from '../../../../import/jobs/jobStore.js';
import { presentJob } from '../import/present.js';
import { ownedStation } from './scope.js';
import { announceImport, importAnswer, importOptions, parseDryRun, readableSummary } from './importAnswer.js';
import { IMPORT_POLICY_MEMBERS, readImportPolicy, type ImportPolicy } from './importPolicy.js';

/**
 * POST /qso with a file: an ADIF or ADX document sent as the body itself (settings in the
 * query), or a `multipart/form-data` form (settings in the query or in fields before the file
 * part). The document streams into the same import pipeline as every other import path.
 */

/** Names that steer an upload, read from the query and from form fields. */
const SETTINGS = new Set<string>(['station_profile_id', 'dryrun', 'async', ...IMPORT_POLICY_MEMBERS]);

interface UploadSettings {
  stationId: number;
  dryRun: boolean;
  /** Answer 202 at once and import in the background (an import job). */
  async: boolean;
  policy: ImportPolicy;
}

/** `Prefer: respond-async` (RFC 7240). */
function prefersAsync(request: RequestContext): boolean {
  return /(?:^|,)\s*respond-async\s*(?:[;,]|$)/i.test(request.ctx.get('prefer'));
}

/** `Prefer: respond-async`, or `async=true` for clients that cannot set headers (a plain HTML form). */
function wantsAsync(request: RequestContext, value: string | undefined): boolean {
  if (prefersAsync(request)) return true;
  if (value === undefined) return false;
  const flag = asBoolean(value);
  if (flag === undefined) throw validationError('Parameter "async" must be true or false', { field: 'async' });
  return flag;
}

/**
 * Whether a file upload asks for a background import before its body is read (the header, or
 * `async` in the query): its body then goes straight to the job's spool. A form's `async` field
 * is only known once read.
 */
export function asyncBeforeBody(request: RequestContext): boolean {
  return prefersAsync(request) || asBoolean(request.query.async) === true;
}

async function uploadSettings(request: RequestContext, values: Readonly<Record<string, string>>): Promise<UploadSettings> {
  if (isBlank(values.station_profile_id)) {
    throw validationError('station_profile_id is required: put it in the query (or, in a form, in a field before the file)', {
      missing: ['station_profile_id'],
    });
  }
  const station = ownedStation(request, values.station_profile_id);
  return { stationId: station.id, dryRun: parseDryRun(values.dryrun), async: wantsAsync(request, values.async), policy: readImportPolicy(values) };
}

/** Imports the document and answers with the summary. */
async function importDocument(request: RequestContext, settings: UploadSettings, document: Readable): Promise<HandlerResult> {
  const { stationId, dryRun, policy } = settings;
  const summary = await readableSummary(importAdif(request.services.bulkDb, document, importOptions(request, stationId, dryRun, 'MHz', policy)));
  const answer = importAnswer(summary, dryRun);
  announceImport(request, stationId, summary, dryRun);
  return answer;
}

/** The spool an upload will take when its request says so: the declared length of a body sent as it is (a form's is an upper bound). */
function declaredSpoolBytes(request: RequestContext): number | null {
  const { headers } = request.ctx.req;
  const encoding = (headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const declared = Number(headers['content-length']);
  return encoding === 'identity' && headers['content-length'] !== undefined && Number.isSafeInteger(declared) ? declared : null;
}

/** Why a job could not be admitted, or its upload not spooled, as the client is told. */
function spoolError(request: RequestContext, refusal: Exclude<Admission, { ok: true }> | SpoolRefused, jobId?: number): ApiError {
  const { max_active_per_owner: max, max_spool_bytes: limit } = request.services.config.import_jobs;
  if (refusal instanceof SpoolRefused) {
    return refusal.reason === 'full'
      ? new ApiError(413, 'payload_too_large', `The upload outgrew the room left in the import spool (${limit} bytes for all uploads waiting for their import); it was removed. Try again when running imports have finished, or send a smaller file`, { limit, reason: 'spool_full' })
      : conflict(`Import job ${jobId} was cancelled while its upload was received; the upload was removed`, { state: 'cancelled', id: jobId });
  }
  if (refusal.reason === 'owner_busy') return conflict(`${refusal.active} import jobs of yours are queued or running; at most ${max} at once`, { active: refusal.active, max });
  if (refusal.reason === 'too_large') return new ApiError(413, 'payload_too_large', `The upload is larger than the import spool (${limit} bytes, import_jobs.max_spool_bytes)`, { limit, reason: 'spool_quota' });
  return conflict(`The import spool is full (${refusal.available} of ${limit} bytes free); try again when running imports have finished`, { reason: 'spool_full', available: refusal.available });
}

/**
 * Spools the document under the data folder and answers 202 with the job; the import runs in
 * the background (lib/import/jobs). The job's bounds (jobs per owner, spool quota: the declared
 * size up front, then while writing) are checked before a byte is spooled; a refused or failed
 * upload leaves neither a job nor a file.
 */
async function spoolJob(request: RequestContext, settings: UploadSettings, document: Readable, fileName: string | null): Promise<HandlerResult> {
  const { services, principal, ctx } = request;
  const jobs = services.importJobs;
  const admission = await jobs.admit({
    userId: principal.userId, stationId: settings.stationId, dryRun: settings.dryRun, operator: restrictedOperator(principal),
    onDuplicate: settings.policy.onDuplicate ?? null, insertUnmatched: settings.policy.insertUnmatched ?? null,
    strictCallsign: settings.policy.strictCallsign, fileName,
  }, declaredSpoolBytes(request));
  if (!admission.ok) throw spoolError(request, admission);
  const { job } = admission;
  let size: number;
  try {
    size = await jobs.spool(job, admission.reserved, document);
    await jobs.received(job, size);
  } catch (error) {
    await jobs.discard(job);
    throw error instanceof SpoolRefused ? spoolError(request, error, job.id) : error;
  }
  const prefix = ctx.path.startsWith('/index.php/') ? '/index.php' : '';
  const headers: Record<string, string> = { Location: `${prefix}/api/v2/import/${job.id}` };
  if (/respond-async/i.test(ctx.get('prefer'))) headers['Preference-Applied'] = 'respond-async';
  return { data: presentJob({ ...job, bytesTotal: size }), status: 202, headers };
}

function receive(request: RequestContext, settings: UploadSettings, document: Readable, fileName: string | null): Promise<HandlerResult> {
  return settings.async ? spoolJob(request, settings, document, fileName) : importDocument(request, settings, document);
}

/** A document sent as the request body. */
export async function documentUpload(request: RequestContext, body: Readable): Promise<HandlerResult> {
  return receive(request, await uploadSettings(request, request.query), body, null);
}

/** A form: the file part streams into the import while the form is read. */
export async function formUpload(request: RequestContext, body: Readable, boundary: string): Promise<HandlerResult> {
  const values: Record<string, string> = { ...request.query };
  let running: { sink: Writable; answer: Promise<HandlerResult> } | null = null;
  try {
    const { file } = await readMultipart(body, boundary, {
      onField(name, value) {
        if (running && SETTINGS.has(name)) throw validationError(`Form field "${name}" must come before the file part`, { field: name });
        values[name] = value;
      },
      async onFile(_field, filename) {
        const settings = await uploadSettings(request, values);
        const sink = new PassThrough();
        // Destroyed after the import has finished reading it (a bad form tail), its error has no other listener.
        sink.on('error', () => undefined);
        const answer = receive(request, settings, sink, filename || null);
        answer.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled
        running = { sink, answer };
        return sink;
      },
    });
    if (!file) throw validationError('The form has no file part: send the document in a file field (e.g. <input type="file" name="file">)', { field: 'file' });
  } catch (error) {
    const started = running as { sink: Writable; answer: Promise<HandlerResult> } | null;
    if (started) {
      started.sink.destroy(error as Error);
      // When the import failed first (the reader then only saw its sink close), its error is the one to report.
      const own = await started.answer.then(() => null, (failure: unknown) => failure);
      if (own !== null && own !== error) throw own;
    }
    throw error;
  }
  return (running as { answer: Promise<HandlerResult> } | null)!.answer;
}
