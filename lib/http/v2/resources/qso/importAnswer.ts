import { validationError } from '../../../errors.js';
import { asBoolean } from '../../../bodyValues.js';
import { restrictedOperator } from '../../principal.js';
import type { HandlerResult, RequestContext } from '../../resource.js';
import type { ImportOptions, ImportSummary } from '../../../../import/types.js';
import { UnreadableInputError } from '../../../../import/errors.js';
import { publishQsoEvent } from '../../../../qso/events.js';

/** What every import path of POST /qso shares: its options, its answer, its live event. */

export function parseDryRun(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  const flag = asBoolean(value);
  if (flag === undefined) throw validationError('Field "dryrun" must be true or false', { field: 'dryrun' });
  return flag;
}

/** An import's summary; an input with nothing readable as ADIF or ADX is the client's mistake: 400. */
export async function readableSummary(run: Promise<ImportSummary>, field?: string): Promise<ImportSummary> {
  try {
    return await run;
  } catch (error) {
    if (error instanceof UnreadableInputError) throw validationError(error.message, field === undefined ? {} : { field });
    throw error;
  }
}

/**
 * How a dry run answers: `adif` (SPEC: `{dryrun, parsed}`), `json` (bulk create), `upload` (a
 * file sent as the body or a form: the counts the real run would report).
 */
export type DryRunShape = 'adif' | 'json' | 'upload';

/** The answer to a bulk or ADIF import; 400 when nothing could be stored and only hard errors occurred. */
export function importAnswer(summary: ImportSummary, dryRun: boolean, dryRunShape: DryRunShape): HandlerResult {
  if (summary.parsed === 0) throw validationError('No QSO records found', { parsed: 0, messages: summary.messages });
  if (summary.failed === summary.parsed) {
    throw validationError('No QSO could be imported', { parsed: summary.parsed, failed: summary.failed, messages: summary.messages });
  }
  const { parsed, imported, skipped, failed, messages } = summary;
  if (dryRunShape === 'upload') return { data: dryRun ? { dryrun: true, parsed, imported, skipped, failed, messages } : { parsed, imported, skipped, failed, messages }, status: dryRun ? 200 : 201 };
  if (dryRun) {
    const data = dryRunShape === 'adif'
      ? { dryrun: true, parsed }
      : { dryrun: true, parsed, imported: 0, skipped: 0, messages };
    return { data, status: 200 };
  }
  return { data: { parsed, imported, skipped, messages }, status: 201 };
}

export function importOptions(request: RequestContext, stationId: number, dryRun: boolean, frequencyUnit: 'MHz' | 'Hz'): ImportOptions {
  return { stationId, frequencyUnit, dryRun, operator: restrictedOperator(request.principal), rowsPerBatch: request.services.config.import_batch_rows };
}

export function announceImport(request: RequestContext, stationId: number, summary: ImportSummary, dryRun: boolean): void {
  if (dryRun || summary.imported === 0) return;
  publishQsoEvent(request.services, request.principal.userId, { type: 'qso_imported', station_id: stationId, imported: summary.imported });
}
