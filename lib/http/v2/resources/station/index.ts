import { conflict, notFound, validationError } from '../../../errors.js';
import { readBoolean } from '../../../bodyValues.js';
import { created } from '../../created.js';
import { OFFICER_LEVEL, requireClubLevel } from '../../principal.js';
import type { JsonSchema, ResourceDefinition } from '../../resource.js';
import { readNewStation, readStationChanges, rejectClearedRequired } from './stationFields.js';
import { READ_ONLY_STATION_FIELDS, STATION_FIELDS } from '../../../../accounts/stationFields.js';
import { deleteStation, findStation, insertStation, listStations, updateStation, type StationWrite } from '../../../../accounts/stationRepository.js';

const text = { type: ['string', 'number', 'null'] };
const integer = { type: ['integer', 'string', 'null'] };
const INTEGER_FIELDS = new Set(['dxcc', 'cq', 'itu', 'power']);

/** Writable fields, plus the object's read-only ones (ignored) so that a GET result can be sent back. */
function bodySchema(extra: Record<string, JsonSchema>): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      ...Object.fromEntries(STATION_FIELDS.map((field) => [field, INTEGER_FIELDS.has(field) ? integer : text])),
      ...Object.fromEntries(READ_ONLY_STATION_FIELDS.map((field) => [field, { description: 'read-only, ignored' }])),
      ...extra,
    },
  };
}

const stationSchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    uuid: { type: 'string' },
    ...Object.fromEntries(STATION_FIELDS.map((field) => [field, INTEGER_FIELDS.has(field) ? { type: ['integer', 'null'] } : { type: 'string' }])),
    country: { type: 'string' },
    active: { type: 'boolean' },
  },
};

function stationOrConflict(result: StationWrite) {
  if ('identicalTo' in result) {
    throw conflict('An identical station location already exists', { existing_id: result.identicalTo });
  }
  return result.station;
}

/** Station locations (logbook profiles) of the token owner; for club tokens the club's, written by officers only. */
export const stationResource: ResourceDefinition = {
  name: 'station',
  description: 'Station locations of the token owner',
  scoped: true,
  list: {
    summary: 'All station locations (not paginated)',
    response: { type: 'array', items: stationSchema },
    handler: async ({ principal, services }) => {
      const stations = await listStations(services.db, principal.userId);
      return { data: stations, meta: { count: stations.length } };
    },
  },
  show: {
    summary: 'One station location',
    response: stationSchema,
    handler: async ({ id, principal, services }) => {
      const station = await findStation(services.db, principal.userId, Number(id));
      if (!station) throw notFound('Station location not found');
      return { data: station };
    },
  },
  create: {
    summary: 'Create a station location (the first one becomes active)',
    body: bodySchema({}),
    response: stationSchema,
    handler: async ({ ctx, body, principal, services }) => {
      requireClubLevel(principal, OFFICER_LEVEL);
      const station = stationOrConflict(await insertStation(services.db, principal.userId, readNewStation(body)));
      return created(ctx, station.id, station);
    },
  },
  update: {
    summary: 'Change fields of a station location; set_active: true makes it the active one',
    body: bodySchema({ set_active: { type: ['boolean', 'integer', 'string'] } }),
    response: stationSchema,
    handler: async ({ id, body, principal, services }) => {
      requireClubLevel(principal, OFFICER_LEVEL);
      rejectClearedRequired(body);
      const changes = readStationChanges(body);
      const activate = body.set_active !== undefined && readBoolean(body.set_active, 'set_active');
      if (!Object.keys(changes).length && !activate) throw validationError('No editable fields in request body');
      const result = await updateStation(services.db, principal.userId, Number(id), changes, activate);
      if (!result) throw notFound('Station location not found');
      return { data: stationOrConflict(result) };
    },
  },
  remove: {
    summary: 'Delete a station location with all its QSOs (not the active one)',
    handler: async ({ ctx, id, principal, services }) => {
      requireClubLevel(principal, OFFICER_LEVEL);
      const outcome = await deleteStation(services.db, principal.userId, Number(id));
      if (outcome === 'not_found') throw notFound('Station location not found');
      if (outcome === 'active') throw conflict('The active station location cannot be deleted');
      ctx.status = 204;
      return undefined;
    },
  },
};
