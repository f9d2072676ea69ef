import { PassThrough, type Readable, type Writable } from 'node:stream';
import { validationError } from '../../../errors.js';
import { isBlank } from '../../../bodyValues.js';
import { readMultipart } from '../../../upload/multipart.js';
import type { HandlerResult, RequestContext } from '../../resource.js';
import { importAdif } from '../../../../import/pipeline.js';
import { ownedStation } from './scope.js';
import { announceImport, importAnswer, importOptions, parseDryRun, readableSummary } from './importAnswer.js';

/**
 * POST /qso with a file: an ADIF or ADX document sent as the body itself (settings in the
 * query), or a `multipart/form-data` form (settings in the query or in fields before the file
 * part). The document streams into the same import pipeline as every other import path.
 */

/** Names that steer an upload, read from the query and from form fields. */
const SETTINGS = new Set(['station_profile_id', 'dryrun']);

interface UploadSettings {
  stationId: number;
  dryRun: boolean;
}

async function uploadSettings(request: RequestContext, values: Readonly<Record<string, string>>): Promise<UploadSettings> {
  if (isBlank(values.station_profile_id)) {
    throw validationError('station_profile_id is required: put it in the query (or, in a form, in a field before the file)', {
      missing: ['station_profile_id'],
    });
  }
  const station = await ownedStation(request, values.station_profile_id);
  return { stationId: station.id, dryRun: parseDryRun(values.dryrun) };
}

/** Imports the document and answers with the summary. */
async function importDocument(request: RequestContext, settings: UploadSettings, document: Readable): Promise<HandlerResult> {
  const { stationId, dryRun } = settings;
  const summary = await readableSummary(importAdif(request.services.bulkDb, document, importOptions(request, stationId, dryRun, 'MHz')));
  const answer = importAnswer(summary, dryRun, 'upload');
  announceImport(request, stationId, summary, dryRun);
  return answer;
}

/** A document sent as the request body. */
export async function documentUpload(request: RequestContext, body: Readable): Promise<HandlerResult> {
  return importDocument(request, await uploadSettings(request, request.query), body);
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
      async onFile() {
        const settings = await uploadSettings(request, values);
        const sink = new PassThrough();
        // Destroyed after the import has finished reading it (a bad form tail), its error has no other listener.
        sink.on('error', () => undefined);
        const answer = importDocument(request, settings, sink);
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
