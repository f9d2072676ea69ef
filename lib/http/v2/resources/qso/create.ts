import { PassThrough, type Readable } from 'node:stream';
import { conflict, validationError } from '../../../errors.js';
import { isBlank } from '../../../../input/jsonValues.js';
import { decodedBody, stopReading } from '../../../upload/bodyStream.js';
import { bodyKind } from '../../../upload/bodyKind.js';
import { checkedForm } from '../../../upload/multipart.js';
import { takesUploadSlot } from '../../../upload/uploadSlots.js';
import { receiveBody, type ReceivedBody } from '../../../upload/receivedBody.js';
import { created } from '../../created.js';
import { restrictedOperator } from '../../principal.js';
import type { Handler, HandlerResult, RequestContext } from '../../resource.js';
import { isKnownField } from '../../../../adif/fields.js';
import { importAdif, importRecords } from '../../../../import/pipeline.js';
import { insertOneQso } from '../../../../import/insertOne.js';
import type { ImportSummary, RawRecord } from '../../../../import/types.js';
import { presentQso } from '../../../../qso/present.js';
import { readCreateBody, type AdifText } from './createBody.js';
import { publishQsoEvent } from '../../../../qso/events.js';
import { ownedStation, type OwnedStation } from './scope.js';
import { announceImport, importAnswer, importOptions, parseDryRun, readableSummary } from './importAnswer.js';
import { asyncBeforeBody, documentUpload, formUpload } from './upload.js';
import { IMPORT_POLICY_MEMBERS, readImportPolicy, samePolicy, type ImportPolicy } from './importPolicy.js';

/**
 * POST /qso: one QSO, many (`qsos`), or an ADIF document (`import_type` adif); files sent as
 * the body or in a form are read by upload.ts. Everything goes
 * through the import pipeline of lib/import, so duplicate detection, mode splitting and DXCC
 * filling are those of every other insert path. Nothing here uploads to online services or
 * asks a callbook.
 */

const IMPORT_TYPES = ['json', 'adif'] as const;
type ImportType = (typeof IMPORT_TYPES)[number];

/** Fields a QSO must carry (SPEC.md "Create fields"). */
const REQUIRED_FIELDS = ['call', 'band', 'mode', 'qso_date', 'time_on'] as const;

/** Top-level members that steer the request rather than describe a QSO. */
const CONTROL_MEMBERS = new Set<string>(['station_profile_id', 'import_type', 'dryrun', ...IMPORT_POLICY_MEMBERS]);

function parseImportType(value: unknown): ImportType {
  if (value === undefined || value === null) return 'json';
  const type = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!(IMPORT_TYPES as readonly string[]).includes(type)) {
    throw validationError('import_type must be json or adif', { field: 'import_type', allowed: IMPORT_TYPES });
  }
  return type as ImportType;
}

/** Where a message about a bulk row points: `details.index` for rows of `qsos`. */
type Place = { index: number } | Record<string, never>;

function isScalar(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

/**
 * One QSO object of the body as a raw record: lower-case ADIF field names with scalar values;
 * 400 naming an unknown field or a non-scalar value, and listing missing required fields.
 */
function readRecord(members: Record<string, unknown>, place: Place, skip: ReadonlySet<string> = new Set()): RawRecord {
  const record: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(members)) {
    if (skip.has(key)) continue;
    const name = key.toLowerCase();
    if (!isKnownField(name)) throw validationError(`Unknown ADIF field "${key}"`, { ...place, field: key });
    if (!isScalar(value)) throw validationError(`Field "${key}" must be a scalar value`, { ...place, field: key });
    record[name] = value as string | number | boolean | null;
  }
  const missing = REQUIRED_FIELDS.filter((field) => isBlank(record[field]));
  if (missing.length) {
    const where = 'index' in place ? `qsos[${place.index}]` : 'QSO';
    throw validationError(`${where} lacks required field(s): ${missing.join(', ')}`, { ...place, missing });
  }
  return record;
}

function readBulkRecords(qsos: unknown, maxRows: number): RawRecord[] {
  if (!Array.isArray(qsos) || qsos.length === 0) throw validationError('qsos must be a non-empty array of QSO objects', { field: 'qsos' });
  if (qsos.length > maxRows) {
    throw validationError(`qsos holds ${qsos.length} QSOs; at most ${maxRows} are accepted per request`, { field: 'qsos', max: maxRows });
  }
  return qsos.map((row: unknown, index) => {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) throw validationError(`qsos[${index}] must be an object`, { index });
    return readRecord(row as Record<string, unknown>, { index });
  });
}

/** Members of a bulk or ADIF request besides the ones it uses: scalars only, and nothing unknown. */
function rejectStrayMembers(members: Record<string, unknown>, used: readonly string[]): void {
  for (const [name, value] of Object.entries(members)) {
    if (!isScalar(value) && !used.includes(name)) throw validationError(`Field "${name}" must be a scalar value`, { field: name });
    if (!CONTROL_MEMBERS.has(name) && !used.includes(name)) {
      throw validationError(`Field "${name}" is not accepted with ${used.join(' and ')}`, { field: name });
    }
  }
}

/** An import fed with the `adif` text while the body is still arriving. */
interface RunningImport {
  dryRun: boolean;
  sink: PassThrough;
  result: Promise<ImportSummary>;
  /** Stopped by this request (its failure is then no cause to report). */
  stopped?: boolean;
}

/**
 * The imports a streamed `adif` feeds. When `dryrun` has not been seen before `adif`, a real
 * import and a dry run both read the text, and the one the final `dryrun` asks for is completed
 * while the other is stopped (the real one rolls back). Nothing commits before the whole body
 * has been read and checked.
 */
interface StreamedAdif {
  stationId: number;
  policy: ImportPolicy;
  runs: RunningImport[];
}

function startImport(request: RequestContext, stationId: number, dryRun: boolean, policy: ImportPolicy, alongside: boolean): RunningImport {
  const sink = new PassThrough();
  // Stopped before the import reads from it (still connecting), the sink's error must not go unheard.
  sink.on('error', () => undefined);
  // A dry run, too, holds a connection while it reads (it matches in a transaction): the one that
  // runs alongside the real import takes it from the main pool, so that a request never holds
  // two bulkDb connections (as many such requests as the pool has connections could then wait
  // for each other for good).
  const pool = dryRun && alongside ? request.services.db : request.services.bulkDb;
  const result = importAdif(pool, sink, importOptions(request, stationId, dryRun, 'MHz', policy));
  result.catch(() => undefined); // awaited later; this only keeps an early failure from going unhandled
  return { dryRun, sink, result };
}

/**
 * Stops an import that must not complete and waits for its rollback; one already completing is
 * left alone. Returns the error of an import that had failed on its own (its sink was already
 * destroyed by its pipeline), else null.
 */
async function stopImport(run: RunningImport, reason: Error): Promise<unknown> {
  if (run.sink.writableEnded || run.stopped) return null;
  const failedOnItsOwn = run.sink.destroyed;
  run.stopped = true;
  run.sink.destroy(reason);
  const failure = await run.result.then(() => null, (error: unknown) => error);
  return failedOnItsOwn ? failure : null;
}

/**
 * Stops the running imports; returns the first one's own failure. When an import fails (its
 * database connection terminated, say), the body reader only sees the import's sink closed:
 * the import's error is the cause to report, not that.
 */
async function abandon(streamed: StreamedAdif | null, reason: Error): Promise<unknown> {
  let cause: unknown = null;
  for (const run of streamed?.runs ?? []) {
    const failure = await stopImport(run, reason);
    cause ??= failure;
  }
  return cause;
}

/** Completes the import `dryRun` asks for, after stopping the other one. */
async function finishStreamed(streamed: StreamedAdif, dryRun: boolean): Promise<ImportSummary> {
  const chosen = streamed.runs.find((run) => run.dryRun === dryRun)!;
  for (const run of streamed.runs) if (run !== chosen) await stopImport(run, new Error('the request asked for the other kind of import'));
  chosen.sink.end();
  return chosen.result;
}

/** `import_type` adif: the document streamed (or spooled) into the ADIF import. */
async function adifImport(request: RequestContext, members: Record<string, unknown>, text: AdifText, streamed: StreamedAdif | null, stationId: number, dryRun: boolean): Promise<HandlerResult> {
  rejectStrayMembers(members, ['adif']);
  if (text.kind === 'absent') throw validationError('import_type=adif requires a non-empty "adif" string', { field: 'adif' });
  let summary: ImportSummary;
  if (streamed) summary = await readableSummary(finishStreamed(streamed, dryRun), 'adif');
  else if (text.kind === 'spooled') {
    try {
      summary = await readableSummary(importAdif(request.services.bulkDb, text.open(), importOptions(request, stationId, dryRun, 'MHz', readImportPolicy(members))), 'adif');
    } finally {
      await text.discard();
    }
  } else throw new Error('ADIF text was streamed without an import');
  const answer = importAnswer(summary, dryRun);
  announceImport(request, stationId, summary, dryRun);
  return answer;
}

async function bulkImport(request: RequestContext, members: Record<string, unknown>, stationId: number, dryRun: boolean): Promise<HandlerResult> {
  rejectStrayMembers(members, ['qsos']);
  const records = readBulkRecords(members.qsos, request.services.config.max_bulk_qsos);
  const summary = await importRecords(request.services.bulkDb, records, importOptions(request, stationId, dryRun, 'Hz', readImportPolicy(members)));
  const answer = importAnswer(summary, dryRun);
  announceImport(request, stationId, summary, dryRun);
  return answer;
}

/** One QSO: 201 with the stored object, 409 for a duplicate; a dry run only checks it. */
async function singleCreate(request: RequestContext, members: Record<string, unknown>, station: OwnedStation, dryRun: boolean): Promise<HandlerResult> {
  const stationId = station.id;
  const policyMember = IMPORT_POLICY_MEMBERS.find((name) => members[name] !== undefined);
  if (policyMember !== undefined) throw validationError(`Field "${policyMember}" applies to bulk (qsos) and ADIF imports`, { field: policyMember });
  const record = readRecord(members, {}, CONTROL_MEMBERS);
  const { services, principal, ctx } = request;
  if (dryRun) return importAnswer(await importRecords(services.db, [record], importOptions(request, stationId, true, 'Hz', { strictCallsign: false })), true);
  const result = await insertOneQso(services.qsoInserts, record, station, { frequencyUnit: 'Hz', operator: restrictedOperator(principal) });
  if ('duplicateOf' in result) throw conflict(`Duplicate of QSO ${result.duplicateOf}`, { existing_id: result.duplicateOf });
  if ('rejected' in result) throw validationError(`QSO not stored: ${result.rejected.join('; ')}`, { messages: result.rejected });
  publishQsoEvent(services, principal.userId, { type: 'qso_created', qso_id: result.id, station_id: stationId });
  return created(ctx, result.id, presentQso(result.row));
}

/**
 * POST /qso by the body's kind: JSON (one, many, an `adif` string), a document sent as the body
 * itself, or a form with a file part. Every kind may arrive gzip-compressed.
 */
export const createQso: Handler = async (request) => {
  const { ctx, services } = request;
  const upload = takesUploadSlot(ctx.req.headers);
  const release = upload ? services.uploads.take(request.principal.userId) : null;
  let received: ReceivedBody | null = null;
  try {
    let body = decodedBody(ctx.req, services.config.max_body_bytes);
    // A client gone before its answer: what its body still holds (a compressed form read to
    // its end, a received body not yet imported) is not worked on any further.
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) body.destroy(new Error('the client went away before its upload was read'));
    });
    try {
      const kind = await bodyKind(ctx.request.type, ctx.get('content-type'), body);
      // Every import but a background one (whose spool is its job's) starts once the body is in.
      if (kind.kind === 'json' || !asyncBeforeBody(request)) {
        received = await receiveBody(kind.kind === 'multipart' ? checkedForm(body, kind.boundary) : body, !upload, services.spoolFolder);
        body = received.stream;
      }
      if (kind.kind === 'document') return await documentUpload(request, body);
      if (kind.kind === 'multipart') return await formUpload(request, body, kind.boundary);
      return await jsonCreate(request, body);
    } catch (error) {
      body.destroy();
      stopReading(ctx.req);
      throw error;
    }
  } finally {
    await received?.discard();
    release?.();
  }
};

async function jsonCreate(request: RequestContext, input: Readable): Promise<HandlerResult> {
  const { services } = request;
  let streamed: StreamedAdif | null = null;
  const limits = { maxJsonBytes: services.config.max_json_body_bytes };

  // An ADIF import whose import_type and station_profile_id precede the document starts while
  // the document arrives.
  const startAdif = async (seen: Readonly<Record<string, unknown>>) => {
    if (seen.station_profile_id === undefined || seen.import_type === undefined) return null;
    if (parseImportType(seen.import_type) !== 'adif') return null;
    const station = ownedStation(request, seen.station_profile_id);
    const kinds = seen.dryrun === undefined ? [false, true] : [parseDryRun(seen.dryrun)];
    const policy = readImportPolicy(seen);
    streamed = { stationId: station.id, policy, runs: kinds.map((dryRun) => startImport(request, station.id, dryRun, policy, kinds.length > 1)) };
    return streamed.runs.map((run) => run.sink);
  };

  let body;
  try {
    body = await readCreateBody(input, limits, startAdif, services.spoolFolder);
  } catch (error) {
    throw (await abandon(streamed, error as Error)) ?? error;
  }
  const { members, adif } = body;
  const running = streamed as StreamedAdif | null;
  try {
    if (isBlank(members.station_profile_id)) throw validationError('station_profile_id is required', { missing: ['station_profile_id'] });
    const station = ownedStation(request, members.station_profile_id);
    const importType = parseImportType(members.import_type);
    const dryRun = parseDryRun(members.dryrun);
    const changed = running && (importType !== 'adif' || station.id !== running.stationId || !running.runs.some((run) => run.dryRun === dryRun)
      || !samePolicy(running.policy, readImportPolicy(members)));
    if (changed) {
      throw validationError('import_type, station_profile_id, dryrun, on_duplicate, insert_unmatched and strict_callsign must keep the values they had before "adif"', { field: 'adif' });
    }
    if (importType === 'adif') return await adifImport(request, members, adif, running, station.id, dryRun);
    if (adif.kind !== 'absent') throw validationError('Field "adif" needs import_type adif', { field: 'adif' });
    if (members.qsos !== undefined) return await bulkImport(request, members, station.id, dryRun);
    return await singleCreate(request, members, station, dryRun);
  } catch (error) {
    const cause = await abandon(running, error as Error);
    if (adif.kind === 'spooled') await adif.discard();
    throw cause ?? error;
  }
}
