import type { V1Call } from '../call.js';
import type { TextFilter } from '../body.js';
import { failed } from '../call.js';
import { sendEmpty, sendJson } from '../answer.js';
import { requireWriteKey, type KeyHolder } from '../keyAuth.js';
import { idValue, phpTruthy } from '../values.js';
import { importAdif } from '../../../import/pipeline.js';
import { DIRECT_MAX_CHARS, importSmallAdif } from '../../../import/direct.js';
import type { ImportSummary } from '../../../import/types.js';
import { UnreadableInputError } from '../../../import/errors.js';
import { OFFICER_LEVEL } from '../../v2/principal.js';
import { importEvent, publishQsoEvent } from '../../../qso/events.js';

/**
 * Loggers put a line break after each `<eor>` inside the JSON string, which is not valid JSON;
 * the original removed such whitespace before decoding, and so do we, chunk by chunk: a chunk
 * ending inside `<eor>` holds back that beginning, and one ending right after it drops the
 * breaks that open the next chunk.
 */
const BREAK_AFTER_EOR = /<(eor)>[\r\n\t]+/gi;
const PARTIAL_EOR_AT_END = /<(?:e(?:o(?:r)?)?)?$/i;
const EOR_AT_END = /<eor>$/i;

function collapseAfterEor(): TextFilter {
  let held = '';
  let afterEor = false;
  return (chunk, last) => {
    let text = held + chunk;
    held = '';
    if (afterEor) text = text.replace(/^[\r\n\t]+/, '');
    if (text === '') return '';
    text = text.replace(BREAK_AFTER_EOR, '<$1>');
    afterEor = EOR_AT_END.test(text);
    const partial = last || afterEor ? null : PARTIAL_EOR_AT_END.exec(text);
    if (!partial) return text;
    held = partial[0];
    return text.slice(0, partial.index);
  };
}

/** A club member below officer level logs as themself, whatever OPERATOR the record names. */
function forcedOperator(key: KeyHolder): string | null {
  return key.club && key.club.level < OFFICER_LEVEL ? key.club.callsign : null;
}

/** An officer's records keep their OPERATOR; an empty one (or the club's own call) becomes the officer's. */
function defaultOperator(key: KeyHolder): string | null {
  return key.club && key.club.level >= OFFICER_LEVEL ? key.club.callsign : null;
}

/**
 * The summary's messages, plus one line for skipped duplicates (they are not errors: sync
 * clients resend QSOs and must not see a failure for that). `[""]` when there is nothing to
 * say, the original's shape of a clean import.
 */
function messagesOf(summary: ImportSummary, dryRun: boolean): string[] {
  const messages = [...(dryRun ? ['Dryrun works'] : []), ...summary.messages];
  if (summary.skipped > 0) messages.push(`${summary.skipped} duplicate QSO(s) skipped: already in the log`);
  return messages.length ? messages : [''];
}

/**
 * `api/qso[/<dryrun>]`: ADIF import of one or many records through the same reader, normaliser
 * and duplicate rule as v2 (small documents by one INSERT, large ones through the pipeline), with the v1 station-callsign check. Counts are truthful: `adif_count` = rows
 * stored, `adif_errors` = records refused; any refused record makes the answer 400 "abort" (the
 * others are stored all the same, as in the original). A truthy last segment is a dry run.
 */
export const qsoCall: V1Call = {
  name: 'qso',
  textMember: 'string',
  bodyFilter: collapseAfterEor,
  wrongJson: { status: 200, body: { status: 'failed', reason: 'wrong JSON' } },
  async handle(request) {
    const { ctx, services, body } = request;
    const key = await requireWriteKey(request, () => failed(401, 'missing or wrong api key'), () => failed(403, 'API key does not have write permissions'));
    const stationId = idValue(body.station_profile_id);
    const station = key.stations.find((owned) => owned.id === stationId);
    if (station === undefined) throw failed(401, 'station id does not belong to the API key owner.');
    const { text } = request;
    if (body.type !== 'adif' || text === null || text.text === '') return sendEmpty(ctx);

    const dryRun = phpTruthy(request.segment);
    const options = {
      stationId: station.id,
      frequencyUnit: 'MHz',
      checkStationCallsign: true,
      door: 'v1',
      operator: forcedOperator(key),
      defaultOperator: defaultOperator(key),
    } as const;
    let summary: ImportSummary;
    try {
      // A logger's few QSOs go straight in (no import lock, no duplicate index of the whole location).
      summary = !dryRun && text.text !== null && text.text.length <= DIRECT_MAX_CHARS
        ? await importSmallAdif(services.db, services.qsoInserts, text.text, station, options)
        : await importAdif(services.bulkDb, text.open(), { ...options, dryRun, rowsPerBatch: services.config.import_batch_rows });
    } catch (error) {
      // Nothing in the string was ADIF: the caller's mistake, in the v1 failure shape.
      if (error instanceof UnreadableInputError) throw failed(400, error.message);
      throw error;
    }
    // A dry run's `imported` counts what would be stored; the original answers 0 and nothing happened.
    const stored = dryRun ? 0 : summary.imported;
    const event = dryRun ? null : importEvent(station.id, summary);
    if (event !== null) publishQsoEvent(services, key.userId, event);
    const ok = summary.failed === 0;
    sendJson(ctx, ok ? 201 : 400, {
      status: ok ? 'created' : 'abort',
      type: 'adif',
      string: '',
      adif_count: stored,
      adif_errors: summary.failed,
      messages: messagesOf(summary, dryRun),
    });
  },
};
