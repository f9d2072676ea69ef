import { validationError } from '../../../errors.js';
import { readIdList } from '../../../bodyValues.js';
import { parseCallsignParam, present } from '../../params.js';
import type { RequestContext, ResourceDefinition } from '../../resource.js';
import { normalizeGrid } from '../../../../adif/grid.js';
import { qsoScope, type QsoScope } from '../../../../qso/scope.js';
import { basicLookup, grantedStationIds, privateLookup } from '../../../../lookup/callsignLookup.js';
import { GRID_CONFIRMATIONS, gridStatus, workedGrids, type GridConfirmation, type GridFilter } from '../../../../lookup/gridLookup.js';

const DETAILS = ['basic', 'full'] as const;

/** The owner's locations, narrowed by `station_ids` (foreign ids are dropped, not refused). */
function lookupScope({ principal, query }: Pick<RequestContext, 'query' | 'principal'>): QsoScope {
  const requested = present(query.station_ids) ? readIdList(query.station_ids, 'station_ids') : null;
  return qsoScope(principal, grantedStationIds(principal.stationIds, requested));
}

function optional(query: Record<string, string>, name: string): string | null {
  return present(query[name]) ? query[name].trim() : null;
}

function gridFilter(query: Record<string, string>): GridFilter {
  const cnfm = optional(query, 'cnfm');
  if (cnfm !== null && !(GRID_CONFIRMATIONS as readonly string[]).includes(cnfm)) {
    throw validationError(`Unknown cnfm "${cnfm}"`, { field: 'cnfm', allowed: GRID_CONFIRMATIONS });
  }
  return { band: optional(query, 'band'), cnfm: cnfm as GridConfirmation | null };
}

async function lookupGrid(request: RequestContext, grid: string) {
  const filter = gridFilter(request.query);
  const scope = lookupScope(request);
  if (grid.toUpperCase() === 'ALL') {
    // A whole scope's squares (hundreds of ms at 1M QSOs): page-sized heavy work, queued on the page pool.
    const grids = await workedGrids(request.services.pageDb, scope, filter);
    return { data: { grids, count: grids.length }, meta: { type: 'worked_grids', band: filter.band, cnfm: filter.cnfm } };
  }
  const square = normalizeGrid(grid);
  if (square === null) throw validationError('Invalid grid locator', { field: 'grid' });
  return { data: { gridsquare: square, result: await gridStatus(request.services.db, scope, square, filter) }, meta: { type: 'grid' } };
}

async function lookupCallsign(request: RequestContext, callsign: string) {
  const detail = (optional(request.query, 'detail') ?? 'basic').toLowerCase();
  if (!(DETAILS as readonly string[]).includes(detail)) throw validationError(`Unknown detail "${detail}"`, { field: 'detail', allowed: DETAILS });
  const scope = lookupScope(request);
  const data = detail === 'full'
    ? await privateLookup(request.services.db, { callsign, scope, band: optional(request.query, 'band'), mode: optional(request.query, 'mode') })
    : await basicLookup(request.services.db, { callsign, scope });
  return { data, meta: { type: 'callsign', detail } };
}

const param = (description: string) => ({ type: 'string', description });

/** Look up one callsign or one gridsquare in the owner's log. Read-only; no items. */
export const lookupResource: ResourceDefinition = {
  name: 'lookup',
  description: 'Callsign and gridsquare lookups against the owner\'s log',
  scoped: true,
  list: {
    summary: 'Look up ?callsign= (detail basic|full) or ?grid= (a locator, or "all" for every worked square)',
    query: {
      type: 'object',
      properties: {
        callsign: param('callsign to look up'),
        detail: param('basic (default) or full'),
        band: param('band or SAT'),
        mode: param('mode or submode (full detail)'),
        station_ids: param('comma-separated station location ids; foreign ids are ignored'),
        callbook: param('accepted and ignored: no callbook lookups are made'),
        grid: param('a Maidenhead locator, or "all"'),
        cnfm: param('grid lookups: qsl, lotw or eqsl'),
      },
    },
    handler: async (request) => {
      const grid = optional(request.query, 'grid');
      if (grid !== null) return lookupGrid(request, grid);
      const callsign = parseCallsignParam(request.query);
      if (callsign !== null) return lookupCallsign(request, callsign);
      throw validationError('Provide a callsign (?callsign=...) or a grid (?grid=...)');
    },
  },
};
