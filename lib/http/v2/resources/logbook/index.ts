import type pg from 'pg';
import { conflict, forbidden, notFound, validationError } from '../../../errors.js';
import { isBlank } from '../../../../input/jsonValues.js';
import { readBoolean, readIdList, readText } from '../../../bodyValues.js';
import { LogbookError, PUBLIC_BANNER_LIMIT, type Publication } from '../../../../accounts/logbooks.js';
import { foreignStationIds } from '../../../../accounts/stations.js';
import { created } from '../../created.js';
import { OFFICER_LEVEL, requireClubLevel, type Principal } from '../../principal.js';
import type { JsonSchema, ResourceDefinition } from '../../resource.js';
import { publicLogTopic } from '../../../../live/topics.js';
import { deleteLogbook, findLogbook, insertLogbook, listLogbooks, logbookNamed, updateLogbook } from './logbookRepository.js';

const NAME_LIMIT = 255;

function readName(value: unknown): string {
  return readText(value, 'name', NAME_LIMIT);
}

/** `station_ids` of a body: a comma-separated string of the owner's location ids (403 naming foreign ones). */
async function readStationIds(db: pg.Pool, principal: Principal, value: unknown): Promise<number[]> {
  const ids = readIdList(value, 'station_ids');
  const foreign = await foreignStationIds(db, principal.userId, ids);
  if (foreign.length) throw forbidden('station_ids not accessible for this token', { station_ids: foreign });
  return ids;
}

/** The publication fields present in a body, validated (400 naming the field). */
function readPublication(body: Record<string, unknown>): Partial<Publication> {
  const publication: Partial<Publication> = {};
  for (const field of ['public', 'public_show_times', 'public_show_frequency'] as const) {
    if (body[field] !== undefined) publication[field] = readBoolean(body[field], field);
  }
  if (body.public_banner !== undefined) publication.public_banner = readText(body.public_banner, 'public_banner', PUBLIC_BANNER_LIMIT);
  return publication;
}

const flagField = { type: ['boolean', 'integer', 'string'] };
const publicationFields = {
  public: { ...flagField, description: 'publish the logbook at /public/{slug} (default false)' },
  public_show_times: { ...flagField, description: 'the public page shows QSO times (default false)' },
  public_show_frequency: { ...flagField, description: 'the public page shows frequencies (default true)' },
  public_banner: { type: ['string', 'null'], description: `text shown on the public page, at most ${PUBLIC_BANNER_LIMIT} characters; "" or null for none` },
};

const stationIdsField = { type: ['string', 'integer', 'null'], description: 'comma-separated station location ids, e.g. "1,2"; "" for none' };

const logbookSchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    active: { type: 'boolean' },
    station_ids: { type: 'array', items: { type: 'integer' } },
    slug: { type: ['string', 'null'] },
    public: { type: 'boolean' },
    public_show_times: { type: 'boolean' },
    public_show_frequency: { type: 'boolean' },
    public_banner: { type: 'string' },
  },
};

/** Logbooks group station locations; every verb needs officer level on club tokens. */
export const logbookResource: ResourceDefinition = {
  name: 'logbook',
  description: 'Logbooks (groups of station locations) of the token owner',
  scoped: true,
  list: {
    summary: 'All logbooks (not paginated)',
    response: { type: 'array', items: logbookSchema },
    handler: async ({ principal, services }) => {
      requireClubLevel(principal, OFFICER_LEVEL);
      const logbooks = await listLogbooks(services.db, principal.userId);
      return { data: logbooks, meta: { count: logbooks.length } };
    },
  },
  show: {
    summary: 'One logbook',
    response: logbookSchema,
    handler: async ({ id, principal, services }) => {
      requireClubLevel(principal, OFFICER_LEVEL);
      const logbook = await findLogbook(services.db, principal.userId, Number(id));
      if (!logbook) throw notFound('Logbook not found');
      return { data: logbook };
    },
  },
  create: {
    summary: 'Create a logbook (the first one becomes active)',
    body: { type: 'object', additionalProperties: false, properties: { name: { type: ['string', 'number', 'null'] }, station_ids: stationIdsField, ...publicationFields } },
    response: logbookSchema,
    handler: async ({ ctx, body, principal, services }) => {
      requireClubLevel(principal, OFFICER_LEVEL);
      if (isBlank(body.name)) throw validationError('Missing required field(s): name', { missing: ['name'] });
      const name = readName(body.name);
      const stationIds = await readStationIds(services.db, principal, body.station_ids);
      const publication = readPublication(body);
      const existing = await logbookNamed(services.db, principal.userId, name);
      if (existing !== null) throw conflict('A logbook with this name already exists', { existing_id: existing });
      try {
        const logbook = await insertLogbook(services.db, principal.userId, name, stationIds, publication);
        return created(ctx, logbook.id, logbook);
      } catch (error) {
        // Station ids were checked above, so what remains is a concurrent create of the same name.
        if (error instanceof LogbookError) throw conflict(error.message);
        throw error;
      }
    },
  },
  update: {
    summary: 'Rename, replace the station locations, change what is published, or make it the active logbook',
    body: {
      type: 'object',
      additionalProperties: false,
      properties: {
        name: { type: ['string', 'number', 'null'] },
        station_ids: stationIdsField,
        set_active: { type: ['boolean', 'integer', 'string'] },
        ...publicationFields,
      },
    },
    response: logbookSchema,
    handler: async ({ id, body, principal, services }) => {
      requireClubLevel(principal, OFFICER_LEVEL);
      if ('name' in body && isBlank(body.name)) throw validationError('Field(s) cannot be cleared: name', { fields: ['name'] });
      const name = 'name' in body ? readName(body.name) : undefined;
      const stationIds = 'station_ids' in body ? await readStationIds(services.db, principal, body.station_ids) : undefined;
      const activate = body.set_active !== undefined && readBoolean(body.set_active, 'set_active');
      const publication = readPublication(body);
      if (name === undefined && stationIds === undefined && !activate && Object.keys(publication).length === 0) {
        throw validationError('Send at least one of name, station_ids, set_active: true, public, public_show_times, public_show_frequency, public_banner');
      }
      const result = await updateLogbook(services.db, principal.userId, Number(id), { name, stationIds, activate, publication });
      if (!result) throw notFound('Logbook not found');
      if ('nameTakenBy' in result) throw conflict('A logbook with this name already exists', { existing_id: result.nameTakenBy });
      // Unpublishing closes the open pages' sockets before answering; other changes reach them as a push.
      if (publication.public === false) await services.events.closeTopic?.(publicLogTopic(Number(id)));
      else if (stationIds !== undefined || Object.keys(publication).length > 0) services.events.publicLogChanged?.(Number(id));
      return { data: result.logbook };
    },
  },
  remove: {
    summary: 'Delete a logbook (not the active one); its station locations stay',
    handler: async ({ ctx, id, principal, services }) => {
      requireClubLevel(principal, OFFICER_LEVEL);
      const outcome = await deleteLogbook(services.db, principal.userId, Number(id));
      if (outcome === 'not_found') throw notFound('Logbook not found');
      if (outcome === 'active') throw conflict('The active logbook cannot be deleted');
      await services.events.closeTopic?.(publicLogTopic(Number(id)));
      ctx.status = 204;
      return undefined;
    },
  },
};
