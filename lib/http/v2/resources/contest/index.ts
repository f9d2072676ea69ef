import type pg from 'pg';
import { ApiError, forbidden, notFound, validationError } from '../../../errors.js';
import { asBoolean } from '../../../../input/jsonValues.js';
import { created } from '../../created.js';
import { parseIdParam, parseStationIds, present } from '../../params.js';
import { OFFICER_LEVEL, requireClubLevel, restrictedOperator, type Principal } from '../../principal.js';
import type { JsonSchema, ResourceDefinition } from '../../resource.js';
import { foreignStationIds } from '../../../../accounts/stations.js';
import { inQsoTransaction } from '../../../../qso/writeLock.js';
import { qsoScope, type QsoScope } from '../../../../qso/scope.js';
import { answerCabrillo, cabrilloQuery } from './cabrillo.js';
import { readSettingsChanges } from './contestSettings.js';
import { DEFAULT_SETTINGS, SETTING_NAMES } from '../../../../contests/settings.js';
import { checkTimeOrder, readNewSession, readQsoIds, readSessionChanges } from './sessionFields.js';
import {
  deleteSession, findSession, insertSession, invisibleQsoIds, linkQsos, listSessions, lockSession, sessionQsoIds, unlinkQsos, updateSession,
} from '../../../../contests/repository.js';

type Queryable = Pick<pg.PoolClient, 'query'>;

async function requireOwnedStation(db: pg.Pool, principal: Principal, stationId: number): Promise<void> {
  if ((await foreignStationIds(db, principal.userId, [stationId])).length) {
    throw forbidden('station_id not accessible for this token', { station_id: stationId });
  }
}

/** The QSOs a request may link: the owner's (club members below officer: their own). */
function linkScope(principal: Principal): QsoScope {
  return qsoScope(principal, principal.stationIds);
}

/** A link list naming a QSO the token cannot see is refused whole, before anything changes. */
async function refuseInvisible(db: Queryable, scope: QsoScope, ids: number[], field: string): Promise<void> {
  const invisible = await invisibleQsoIds(db, scope, ids);
  if (invisible.length) {
    throw new ApiError(404, 'not_found', `${field} names QSOs that do not exist or are not visible`, { field, qso_ids: invisible });
  }
}

const member = (description: string) => ({ description });
const sessionMembers: Record<string, JsonSchema> = {
  contest: member('ADIF Contest_ID, e.g. CQ-WW-SSB'),
  station_id: member('station location id of the owner'),
  time_start: member('YYYY-MM-DD HH:MM[:SS], UTC'),
  time_end: member('YYYY-MM-DD HH:MM[:SS], UTC, or null'),
  comment: member('text'),
  exchangefields: member('comma-separated: serial, gridsquare, exchange'),
  copyexchangeto: member('"", dok, locator, qth, name, age, state or power'),
  callbook_lookup: member('boolean'),
  custom_name: member('text'),
  serial_per_band: member('boolean'),
  serial_scope: member('station or operator'),
  link_qso_ids: member('comma-separated QSO ids to link'),
};

const sessionSchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    contest: { type: 'string' },
    contest_name: { type: 'string' },
    time_start: { type: 'string' },
    time_end: { type: ['string', 'null'] },
    station_id: { type: 'integer' },
    comment: { type: 'string' },
    settings: { type: 'object', properties: Object.fromEntries([...SETTING_NAMES, 'exchangetype'].map((name) => [name, {}])) },
    qso_count: { type: 'integer' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
};

/** Contest sessions: a contest run at one station location, and the QSOs linked to it. */
export const contestResource: ResourceDefinition = {
  name: 'contest',
  description: 'Contest sessions of the token owner and their linked QSOs',
  scoped: true,
  list: {
    summary: 'Contest sessions, newest first (not paginated)',
    query: {
      type: 'object',
      properties: {
        station_id: { type: 'string', description: 'comma-separated station location ids' },
        since_id: { type: 'string', description: 'only sessions with a greater id' },
      },
    },
    response: { type: 'array', items: sessionSchema },
    handler: async ({ query, principal, services }) => {
      const scope = qsoScope(principal, parseStationIds(principal, query));
      const sessions = await listSessions(services.db, principal.userId, scope, parseIdParam(query, 'since_id') ?? 0);
      return { data: sessions, meta: { count: sessions.length } };
    },
  },
  show: {
    summary: 'One contest session with the ids of its linked QSOs; format=cabrillo: its Cabrillo 3.0 log',
    query: cabrilloQuery,
    response: { ...sessionSchema, properties: { ...(sessionSchema.properties as object), qso_ids: { type: 'array', items: { type: 'integer' } } } },
    handler: async (request) => {
      const { id, principal, services, query } = request;
      if (query.format !== undefined) return answerCabrillo(request);
      const session = await findSession(services.db, principal.userId, Number(id), restrictedOperator(principal));
      if (!session) throw notFound('Contest session not found');
      const qsoIds = await sessionQsoIds(services.db, session.id, linkScope(principal));
      return { data: { ...session, qso_ids: qsoIds } };
    },
  },
  create: {
    summary: 'Create a contest session, optionally linking QSOs',
    body: { type: 'object', additionalProperties: false, properties: sessionMembers },
    response: sessionSchema,
    handler: async ({ ctx, body, principal, services }) => {
      requireClubLevel(principal, OFFICER_LEVEL);
      const fields = readNewSession(body);
      checkTimeOrder(fields);
      const settings = { ...DEFAULT_SETTINGS, ...readSettingsChanges(body) };
      const linkIds = readQsoIds(body, 'link_qso_ids');
      await requireOwnedStation(services.db, principal, fields.station_id);
      const scope = linkScope(principal);
      const { id, links } = await inQsoTransaction(services.db, [principal.userId], async (client) => {
        await refuseInvisible(client, scope, linkIds, 'link_qso_ids');
        const id = await insertSession(client, principal.userId, fields, settings);
        return { id, links: linkIds.length ? await linkQsos(client, id, fields.contest, linkIds) : null };
      });
      const session = await findSession(services.db, principal.userId, id, restrictedOperator(principal));
      return created(ctx, id, { ...session, ...links });
    },
  },
  update: {
    summary: 'Change a contest session; link_qso_ids / unlink_qso_ids manage its QSOs',
    body: { type: 'object', additionalProperties: false, properties: { ...sessionMembers, unlink_qso_ids: member('comma-separated QSO ids to unlink') } },
    response: sessionSchema,
    handler: async ({ id, body, principal, services }) => {
      requireClubLevel(principal, OFFICER_LEVEL);
      const fields = readSessionChanges(body);
      const settings = readSettingsChanges(body);
      const linkIds = readQsoIds(body, 'link_qso_ids');
      const unlinkIds = readQsoIds(body, 'unlink_qso_ids');
      const changesSession = Object.keys(fields).length > 0 || Object.keys(settings).length > 0;
      if (!changesSession && !linkIds.length && !unlinkIds.length) throw validationError('No editable fields in request body');
      if (fields.station_id !== undefined) await requireOwnedStation(services.db, principal, fields.station_id);
      const scope = linkScope(principal);

      const outcome = await inQsoTransaction(services.db, [principal.userId], async (client) => {
        const current = await lockSession(client, principal.userId, Number(id));
        if (!current) return null;
        checkTimeOrder({ time_start: fields.time_start ?? current.time_start, time_end: 'time_end' in fields ? fields.time_end ?? null : current.time_end });
        await refuseInvisible(client, scope, linkIds, 'link_qso_ids');
        await refuseInvisible(client, scope, unlinkIds, 'unlink_qso_ids');
        if (changesSession) await updateSession(client, Number(id), fields, settings);
        const links = linkIds.length ? await linkQsos(client, Number(id), fields.contest ?? current.contest, linkIds) : null;
        const unlinked = unlinkIds.length ? { unlinked: await unlinkQsos(client, Number(id), unlinkIds) } : null;
        return { ...links, ...unlinked };
      });
      if (!outcome) throw notFound('Contest session not found');
      const session = await findSession(services.db, principal.userId, Number(id), restrictedOperator(principal));
      return { data: { ...session, ...outcome } };
    },
  },
  remove: {
    summary: 'Delete a contest session; ?delete_qsos=true deletes its QSOs too (needs qso:delete)',
    query: { type: 'object', properties: { delete_qsos: { type: 'string', description: 'true | false (default)' } } },
    handler: async ({ ctx, id, query, principal, services }) => {
      requireClubLevel(principal, OFFICER_LEVEL);
      const deleteQsos = present(query.delete_qsos) ? asBoolean(query.delete_qsos) : false;
      if (deleteQsos === undefined) throw validationError('Parameter "delete_qsos" must be true or false', { field: 'delete_qsos' });
      if (deleteQsos && !principal.scopes.has('qso:delete')) {
        throw new ApiError(403, 'insufficient_scope', 'Deleting the QSOs of a session needs the scope qso:delete', { required_scope: 'qso:delete' });
      }
      const deleted = await inQsoTransaction(services.db, [principal.userId], (client) => deleteSession(client, principal.userId, Number(id), deleteQsos));
      if (!deleted) throw notFound('Contest session not found');
      ctx.status = 204;
      return undefined;
    },
  },
};
