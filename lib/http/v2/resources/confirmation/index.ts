import { parseBandFilter } from '../../../../adif/bands.js';
import { listConfirmations } from '../../../../confirmations/query.js';
import { CONFIRMATION_KEYS } from '../../../../qso/confirmationTypes.js';
import { qsoScope } from '../../../../qso/scope.js';
import {
  paginationMeta, parseCallsignParam, parseDateParam, parseKeyList, parsePagination, parseStationIds, present,
} from '../../params.js';
import type { JsonSchema, ResourceDefinition } from '../../resource.js';

const DEFAULT_PER_PAGE = 100;
const MAX_PER_PAGE = 1000;

const text = (description: string): JsonSchema => ({ type: 'string', description });

/** Documents the parameters; the handler validates them itself so errors carry `details`. */
const querySchema: JsonSchema = {
  type: 'object',
  properties: {
    type: text(`comma list of ${CONFIRMATION_KEYS.join(', ')} (default: all)`),
    station_id: text('comma list of owned station location ids (default: all owned)'),
    since: text('YYYY-MM-DD: received on or after, per type on its own received date'),
    qso_since: text('YYYY-MM-DD: QSOs made on or after'),
    qso_until: text('YYYY-MM-DD: QSOs made on or before'),
    band: text('band, e.g. 20m, or SAT for satellite QSOs'),
    mode: text('mode or submode'),
    callsign: text('exact worked callsign'),
    page: text('1-based page (default 1)'),
    per_page: text(`page size (default ${DEFAULT_PER_PAGE}, at most ${MAX_PER_PAGE})`),
  },
};

const optional = { type: 'string', description: 'omitted when empty' };
const rowSchema: JsonSchema = {
  type: 'object',
  required: ['qso_id', 'callsign', 'qso_date', 'mode', 'band', 'confirmation_date', 'type'],
  properties: {
    qso_id: { type: 'integer' },
    callsign: { type: 'string' },
    qso_date: { type: 'string', description: 'YYYY-MM-DD HH:MM:SS (UTC)' },
    mode: { type: 'string' },
    band: { type: 'string' },
    confirmation_date: { type: 'string', description: 'YYYY-MM-DD' },
    type: { type: 'string', enum: ['LoTW', 'eQSL', 'QSL Card', 'QRZ.com', 'Clublog'] },
    submode: optional,
    gridsquare: optional,
    vucc_grids: optional,
    sat_name: optional,
    sat_mode: optional,
  },
};

/** A blank value is no filter (null); a band is echoed as matched: lower-case, or SAT. */
function bandParam(value: string | undefined): string | null {
  const filter = present(value) ? parseBandFilter(value) : null;
  if (!filter) return null;
  return filter.kind === 'sat' ? 'SAT' : filter.band;
}

function modeParam(value: string | undefined): string | null {
  const mode = present(value) ? value.trim().toUpperCase() : '';
  return mode === '' ? null : mode;
}

/** Received QSL confirmations, one row per (QSO, confirmation type); no single-item path. */
export const confirmationResource: ResourceDefinition = {
  name: 'confirmation',
  description: 'Received QSL confirmations, one row per (QSO, confirmation type), newest first',
  scoped: true,
  list: {
    summary: 'List confirmations by received date, newest first, then QSO id',
    query: querySchema,
    response: { type: 'array', items: rowSchema },
    handler: async ({ query, principal, services }) => {
      const types = parseKeyList(query, 'type', CONFIRMATION_KEYS) ?? CONFIRMATION_KEYS;
      const since = parseDateParam(query, 'since');
      const qsoSince = parseDateParam(query, 'qso_since');
      const qsoUntil = parseDateParam(query, 'qso_until');
      const band = bandParam(query.band);
      const mode = modeParam(query.mode);
      const callsign = parseCallsignParam(query);
      const pagination = parsePagination(query, DEFAULT_PER_PAGE, MAX_PER_PAGE);
      const scope = qsoScope(principal, parseStationIds(principal, query));

      const { rows, total } = await listConfirmations(
        services.pageDb,
        { scope, types, since, qsoSince, qsoUntil, band, mode, callsign },
        pagination.perPage,
        pagination.offset,
      );
      return {
        data: rows,
        meta: {
          ...paginationMeta(pagination, rows.length, total),
          filters: { type: types, since, qso_since: qsoSince, qso_until: qsoUntil, band, mode, callsign },
        },
      };
    },
  },
};
