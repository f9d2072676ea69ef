import { validationError } from '../../../errors.js';
import { asBoolean } from '../../../../input/jsonValues.js';
import { restrictedOperator } from '../../principal.js';
import type { HandlerResult, RequestContext } from '../../resource.js';
import type { ImportOptions, ImportSummary } from '../../../../import/types.js';
import { UnreadableInputError } from '../../../../import/errors.js';
import { importEvent, publishQsoEvent } from '../../../../qso/events.js';
import type { ImportPolicy } from './importPolicy.js';

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
 * The answer to a bulk, ADIF or file import; 400 when nothing could be stored and only hard
 * errors occurred. A dry run answers 200 with the counts the real import would give.
 */
export function importAnswer(summary: ImportSummary, dryRun: boolean): HandlerResult {
  if (summary.parsed === 0) throw validationError('No QSO records found', { parsed: 0, messages: summary.messages });
  if (summary.failed === summary.parsed) {
    throw validationError('No QSO could be imported', { parsed: summary.parsed, failed: summary.failed, messages: summary.messages });
  }
  const { parsed, imported, confirmed, unchanged, unmatched, ambiguous, skipped, failed, messages } = summary;
  const counts = { parsed, imported, confirmed, unchanged, unmatched, ambiguous, skipped, failed, messages };
  return dryRun ? { data: { dryrun: true, ...counts }, status: 200 } : { data: counts, status: 201 };
}

export function importOptions(request: RequestContext, stationId: number, dryRun: boolean, frequencyUnit: 'MHz' | 'Hz', policy: ImportPolicy): ImportOptions {
  return {
    stationId,
    frequencyUnit,
    dryRun,
    onDuplicate: policy.onDuplicate,
    insertUnmatched: policy.insertUnmatched,
    strictCallsign: policy.strictCallsign,
    operator: restrictedOperator(request.principal),
    rowsPerBatch: request.services.config.import_batch_rows,
  };
}

/** One event per import (not one per QSO), when it stored or changed QSOs. */
export function announceImport(request: RequestContext, stationId: number, summary: ImportSummary, dryRun: boolean): void {
  const event = dryRun ? null : importEvent(stationId, summary);
  if (event !== null) publishQsoEvent(request.services, request.principal.userId, event);
}
