import { Readable } from 'node:stream';
import type { V1Call, V1Request } from '../call.js';
import { failed } from '../call.js';
import { encodeJson, jsonStringContents, sendJson } from '../answer.js';
import { ownsStations, requireKey, type KeyHolder } from '../keyAuth.js';
import { isNumeric, isSet, phpInt } from '../values.js';
import { exportAdifRecords, exportHeader, type ExportFilter } from '../../../export/query.js';
import { parseAdif } from '../../../adif/tokenizer.js';
import { isHeaderField, isKnownField } from '../../../adif/fields.js';
import { isKnownBand } from '../../../adif/bands.js';
import type { ConfirmationType } from '../../../qso/confirmationTypes.js';
import { OFFICER_LEVEL } from '../../v2/principal.js';

/**
 * `api/get_contacts_adif`: QSOs of some station locations after a known id, ascending by id (so
 * `lastfetchedid` never skips a QSO), as one ADIF document inside JSON or as JSON rows. The body
 * is streamed: the ADIF text is escaped record batch by record batch, never held whole.
 * `lastfetchedid` is a JSON integer in every answer, as the original's (clients compare it as a number).
 */

const DEFAULT_LIMIT = 20000;
const V1_QSL_FILTERS: readonly ConfirmationType[] = ['lotw', 'qsl', 'eqsl', 'clublog'];
/** Escaped output is yielded in pieces of about this many characters. */
const CHUNK_CHARS = 64 * 1024;

type Export = AsyncIterator<{ id: number; adif: string }>;

interface ExportRequest {
  filter: ExportFilter;
  fetchFromId: number;
  /** null: ADIF output; else JSON rows, restricted to these (upper-case) fields when non-empty. */
  jsonFields: string[] | null;
}

function stationIdsOf(value: unknown): number[] {
  const given = Array.isArray(value) ? value : [value];
  if (given.length === 0) throw failed(400, '"station_id" must not be empty');
  if (!given.every(isNumeric)) throw failed(400, '"station_id" values must be numeric');
  return [...new Set(given.map((id) => phpInt(id)!))];
}

/** `limit`: default 20000, a negative number for no limit. */
function limitOf(value: unknown): number | null {
  const limit = phpInt(value) ?? DEFAULT_LIMIT;
  return limit < 0 ? null : limit;
}

/** JSON output's `fields`; ignored for ADIF output, where every field is written. */
function jsonFieldsOf(body: Readonly<Record<string, unknown>>): string[] | null {
  const format = body.output_format ?? 'adif';
  if (format !== 'adif' && format !== 'json') throw failed(400, 'Invalid output_format. Use "adif" or "json"');
  if (format === 'adif') return null;
  if (!isSet(body, 'fields')) return [];
  if (!Array.isArray(body.fields) || body.fields.length === 0) throw failed(400, '"fields" must be a non-empty array');
  const fields = body.fields.map((field) => (typeof field === 'string' ? field.trim().toUpperCase() : String(field)));
  const unknown = fields.filter((field) => !isKnownField(field) || isHeaderField(field));
  if (unknown.length) throw failed(400, `Unknown fields: ${unknown.join(', ')}`);
  return [...new Set(fields)];
}

function qslTypesOf(value: unknown): ConfirmationType[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw failed(400, '"qsl_filter" must be an array');
  const types = value.map((type) => String(type).trim().toLowerCase());
  const invalid = types.filter((type) => !(V1_QSL_FILTERS as readonly string[]).includes(type));
  if (invalid.length) throw failed(400, `Invalid qsl_filter values: ${invalid.join(', ')}`);
  return types.length ? (types as ConfirmationType[]) : null;
}

function bandOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const band = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (band !== 'sat' && !isKnownBand(band)) throw failed(400, 'Invalid band value');
  return band === 'sat' ? 'SAT' : band;
}

/** The body's filter after the original's checks, in the original's order. */
function exportRequest(request: V1Request, key: KeyHolder): ExportRequest {
  const { body } = request;
  if (!isSet(body, 'station_id') || !isSet(body, 'fetchfromid')) throw failed(400, 'Not all required fields were present in input JSON');
  const stationIds = stationIdsOf(body.station_id);
  const limit = limitOf(body.limit);
  const jsonFields = jsonFieldsOf(body);
  const qslTypes = qslTypesOf(body.qsl_filter);
  const band = bandOf(body.band);
  const fetchFromId = phpInt(body.fetchfromid);
  if (fetchFromId === null) throw failed(400, 'Invalid fetchfromid.');
  if (!ownsStations(key, stationIds)) {
    throw failed(401, 'Station ID not accessible for this API key');
  }
  // Club members below officer level read only the QSOs they logged, as through v2.
  const operator = key.club && key.club.level < OFFICER_LEVEL ? key.club.callsign : null;
  return { filter: { stationIds, operator, sinceId: Math.max(0, fetchFromId), commitSafe: true, band, qslTypes, limit }, fetchFromId, jsonFields };
}

/** The export iterator as a whole again, its first record already read. */
async function* records(first: { id: number; adif: string }, rest: Export): AsyncGenerator<{ id: number; adif: string }> {
  yield first;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

async function* adifDocument(qsos: AsyncIterable<{ id: number; adif: string }>): AsyncGenerator<string> {
  let exported = 0;
  let lastId = 0;
  let pending = exportHeader();
  yield '{"status":"successfull","message":"Export successfull","adif":"';
  for await (const { id, adif } of qsos) {
    exported++;
    lastId = id;
    pending += adif;
    if (pending.length >= CHUNK_CHARS) {
      yield jsonStringContents(pending);
      pending = '';
    }
  }
  yield `${jsonStringContents(pending)}","lastfetchedid":${lastId},"exported_qsos":${exported}}`;
}

/** JSON rows: each record's fields (ADIF names), or only `fields` (null when absent), unique on them. */
async function* jsonDocument(qsos: AsyncIterable<{ id: number; adif: string }>, fields: string[]): AsyncGenerator<string> {
  const seen = new Set<string>();
  let exported = 0;
  let rows = 0;
  let lastId = 0;
  let pending = '';
  yield '{"status":"successfull","message":"Export successfull","qsos":[';
  for await (const { id, adif } of qsos) {
    exported++;
    lastId = id;
    const record = parseAdif(adif).records[0]?.fields ?? {};
    let row: Record<string, string | null> = record;
    if (fields.length) {
      row = Object.fromEntries(fields.map((field) => [field, record[field] ?? null]));
      const identity = JSON.stringify(Object.values(row));
      if (seen.has(identity)) continue;
      seen.add(identity);
    }
    pending += (rows++ ? ',' : '') + encodeJson(row);
    if (pending.length >= CHUNK_CHARS) {
      yield pending;
      pending = '';
    }
  }
  yield `${pending}],"lastfetchedid":${lastId},"exported_qsos":${exported},"exported_records":${rows}}`;
}

export const contactsExportCall: V1Call = {
  name: 'get_contacts_adif',
  wrongJson: { status: 400, body: { status: 'failed', reason: 'wrong JSON' } },
  async handle(request) {
    const { ctx, services } = request;
    const key = await requireKey(request, () => failed(401, 'missing api key'));
    const { filter, fetchFromId, jsonFields } = exportRequest(request, key);
    const rest = exportAdifRecords(services.bulkDb, filter)[Symbol.asyncIterator]();
    const first = await rest.next();
    if (first.done) {
      return sendJson(ctx, 200, { status: 'successfull', message: 'No new QSOs available.', lastfetchedid: fetchFromId, exported_qsos: 0, adif: null });
    }
    const qsos = records(first.value, rest);
    ctx.status = 200;
    ctx.type = 'application/json';
    const body = Readable.from(jsonFields === null ? adifDocument(qsos) : jsonDocument(qsos, jsonFields), { objectMode: false });
    // Ends the cursor (and frees its connection) however the response ends, a client gone mid-document included.
    body.once('close', () => {
      rest.return?.().catch((error: Error) => services.logger.warn('export cursor not closed', { error: error.message }));
    });
    ctx.body = body;
  },
};
