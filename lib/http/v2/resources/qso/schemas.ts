import type { JsonSchema } from '../../resource.js';
import { QSO_COLUMNS } from '../../../../qso/present.js';
import { EDITABLE_FIELDS } from './patchFields.js';
import { IMPORT_POLICY_PROPERTIES } from './importPolicy.js';

/**
 * Schemas of the QSO resource for /openapi.json. The handlers validate parameters and bodies
 * themselves (with `details.allowed`, `details.missing`, `details.index`), so these schemas
 * describe rather than restrict: none of them rejects a request the handlers would accept.
 */

const text = (description: string): JsonSchema => ({ type: 'string', description });

export const listQuerySchema: JsonSchema = {
  type: 'object',
  properties: {
    station_id: text('Comma-separated station location ids (default: all owned); a foreign id is 403 forbidden'),
    callsign: text('Worked callsign, exact and case-insensitive'),
    band: text('Band such as 20m, or SAT for satellite QSOs (prop_mode SAT)'),
    mode: text('Main mode or submode'),
    qsl_filter: text('Comma list of lotw, qsl, eqsl, qrz, clublog: confirmed by any of them'),
    since_id: text('Only QSOs with an id above this'),
    qso_since: text('YYYY-MM-DD, inclusive'),
    qso_until: text('YYYY-MM-DD, inclusive (the whole day)'),
    page: text('1-based page (default 1)'),
    per_page: text('Page size: default 50 (json) / 1000 (adif), at most 5000'),
    limit: text('Newest N QSOs after the filters (at most 5000); overrides page and per_page'),
    format: text('json (default) or adif'),
  },
};

const nullableInteger = { type: ['integer', 'null'] };
const INTEGER_COLUMNS = new Set(['id', 'station_id', 'cqz', 'ituz', 'srx', 'stx', 'dxcc']);
const NULLABLE_COLUMNS = new Set(['submode', 'freq', 'freq_rx', 'time_off']);

/** The QSO object: integers for ids, zones, serials and Hz; confirmation dates may be null. */
export const qsoSchema: JsonSchema = {
  type: 'object',
  properties: Object.fromEntries(
    QSO_COLUMNS.map((column) => {
      const name = column === 'time_on' ? 'qso_date' : column;
      if (column === 'freq' || column === 'freq_rx') return [name, { ...nullableInteger, description: 'Hz' }];
      if (INTEGER_COLUMNS.has(column)) return [name, column === 'id' || column === 'station_id' ? { type: 'integer' } : nullableInteger];
      if (NULLABLE_COLUMNS.has(column) || column.endsWith('date')) return [name, { type: ['string', 'null'] }];
      return [name, { type: 'string' }];
    }),
  ),
};

const scalar = { type: ['string', 'number', 'boolean', 'null'] };

export const createBodySchema: JsonSchema = {
  type: 'object',
  description:
    'One QSO (station_profile_id, call, band, mode, qso_date, time_on and any lower-case ADIF field), ' +
    'many (station_profile_id, qsos[], dryrun, on_duplicate, insert_unmatched, strict_callsign) or an ADIF document ' +
    '(import_type adif, station_profile_id, adif, dryrun, on_duplicate, insert_unmatched, strict_callsign)',
  properties: {
    station_profile_id: { type: ['integer', 'string'] },
    import_type: { type: 'string', enum: ['json', 'adif'] },
    dryrun: { type: ['boolean', 'integer', 'string'] },
    ...IMPORT_POLICY_PROPERTIES,
    adif: { type: 'string' },
    qsos: { type: 'array', items: { type: 'object', additionalProperties: scalar } },
    call: { type: 'string' },
    band: { type: 'string' },
    mode: { type: 'string' },
    qso_date: text('YYYY-MM-DD'),
    time_on: text('HHMM, HHMMSS or HH:MM[:SS]'),
    freq: { type: ['integer', 'string'], description: 'Hz, or a number with a unit suffix such as 7.0475M' },
  },
  additionalProperties: scalar,
};

/** Settings of a file upload (the document as the body, or a form), read from the query. */
export const uploadQuerySchema: JsonSchema = {
  type: 'object',
  properties: {
    station_profile_id: text('File uploads: the owned station location the QSOs go to (a form may send it as a field before the file)'),
    dryrun: text('File uploads: true to check only; the summary then counts what a real run would import, skip and fail'),
    async: text('File uploads: true to answer 202 at once with an import job (as Prefer: respond-async does); see /api/v2/import'),
  },
};

const documentBody: JsonSchema = {
  type: 'string',
  format: 'binary',
  description: 'An ADIF (.adi) or ADX document, sniffed from its bytes; Content-Encoding gzip accepted; at most max_body_bytes after decompression',
};

/** The bodies POST /qso takes besides JSON: a document as the body itself, or a browser form. */
export const uploadBodies: Record<string, JsonSchema> = {
  'text/plain': documentBody,
  'application/octet-stream': documentBody,
  'application/xml': documentBody,
  'multipart/form-data': {
    type: 'object',
    description: 'A form: optional station_profile_id and dryrun fields before one file part',
    properties: { station_profile_id: { type: 'string' }, dryrun: { type: 'string' }, async: { type: 'string' }, file: documentBody },
    required: ['file'],
  },
};

export const updateBodySchema: JsonSchema = {
  type: 'object',
  properties: Object.fromEntries(EDITABLE_FIELDS.map((field) => [field, scalar])),
};

export const importSummarySchema: JsonSchema = {
  type: 'object',
  properties: {
    dryrun: { type: 'boolean' },
    parsed: { type: 'integer' },
    imported: { type: 'integer' },
    confirmed: { type: 'integer', description: 'stored QSOs a record changed (on_duplicate confirm or merge)' },
    unchanged: { type: 'integer', description: 'stored QSOs a record matched without changing them' },
    unmatched: { type: 'integer', description: 'records of a recognised download that match no QSO' },
    ambiguous: { type: 'integer', description: 'records not applied: two QSOs equally near, or a nearer record took the QSO' },
    skipped: { type: 'integer' },
    failed: { type: 'integer' },
    messages: { type: 'array', items: { type: 'string' }, description: 'grouped by kind: one line per kind with a count and the first records' },
  },
};

export const adifExportSchema: JsonSchema = {
  type: 'object',
  properties: {
    exported: { type: 'integer' },
    lastfetchedid: { type: 'integer' },
    adif: { type: ['string', 'null'] },
  },
};
