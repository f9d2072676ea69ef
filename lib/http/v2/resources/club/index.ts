import { CLUB_LEVELS, parseClubLevel, removeClubMember } from '../../../../accounts/clubs.js';
import type { Config } from '../../../../config.js';
import { asInteger } from '../../../../input/jsonValues.js';
import { conflict, notFound, validationError } from '../../../errors.js';
import { created } from '../../created.js';
import type { JsonSchema, ResourceDefinition } from '../../resource.js';
import { refuseOwnMembership, resolveClub } from './access.js';
import { accountKind, findMember, insertMember, listClubs, listMembers, updateMemberLevel, type MemberRecord } from '../../../../accounts/clubMembers.js';

const ALLOWED_LEVELS = [...new Set(Object.values(CLUB_LEVELS))].sort((a, b) => a - b);
const LEVEL_NAMES = Object.keys(CLUB_LEVELS);

/** 3, 6 or 9, as a number or a string, or the names member, member_adif, officer. */
function readLevel(value: unknown): number {
  if (typeof value === 'number' || typeof value === 'string') {
    try {
      return parseClubLevel(String(value).trim().toLowerCase());
    } catch {
      // falls through to the validation error
    }
  }
  throw validationError(`permission_level must be one of ${ALLOWED_LEVELS.join(', ')} (${LEVEL_NAMES.join(', ')})`, {
    field: 'permission_level',
    allowed: [...ALLOWED_LEVELS, ...LEVEL_NAMES],
  });
}

/** The record with the fields the instance withholds removed (absent, not null). */
function disclosed(member: MemberRecord, config: Config): MemberRecord {
  const record = { ...member };
  for (const field of config.apiv2_hide_userdata) delete record[field];
  return record;
}

const level = { type: ['integer', 'string'], description: '3 (member), 6 (member_adif) or 9 (officer), or one of those names' };
const clubIdParam: JsonSchema = {
  type: 'object',
  properties: { club_id: { type: 'string', description: 'the clubstation (administrator tokens; club tokens may repeat their own)' } },
};
const memberSchema: JsonSchema = {
  type: 'object',
  required: ['user_id', 'user_callsign', 'permission_level'],
  properties: {
    user_id: { type: 'integer' },
    user_callsign: { type: 'string' },
    permission_level: { type: 'integer', enum: ALLOWED_LEVELS },
    ...Object.fromEntries(
      ['user_firstname', 'user_lastname', 'user_locator', 'user_name', 'user_email', 'user_language']
        .map((field) => [field, { type: ['string', 'null'], description: 'absent when the instance withholds it' }]),
    ),
  },
};

/** Members of a clubstation and their permission levels; officers and administrators only. */
export const clubResource: ResourceDefinition = {
  name: 'club',
  description: 'Members of a clubstation and their permission levels',
  scoped: true,
  list: {
    summary: 'The members of the club (an administrator without club_id: the clubstations)',
    query: clubIdParam,
    response: { type: 'array', items: memberSchema },
    handler: async ({ query, principal, services }) => {
      const clubId = await resolveClub(services.db, principal, query, true);
      const items = clubId === null
        ? await listClubs(services.db)
        : (await listMembers(services.db, clubId)).map((member) => disclosed(member, services.config));
      return { data: items, meta: { count: items.length } };
    },
  },
  show: {
    summary: 'One member of the club',
    query: clubIdParam,
    response: memberSchema,
    handler: async ({ id, query, principal, services }) => {
      const clubId = (await resolveClub(services.db, principal, query, false))!;
      const member = await findMember(services.db, clubId, Number(id));
      if (!member) throw notFound('User is not a member of this clubstation');
      return { data: disclosed(member, services.config) };
    },
  },
  create: {
    summary: 'Add a member',
    query: clubIdParam,
    body: {
      type: 'object',
      required: ['user_id', 'permission_level'],
      additionalProperties: false,
      properties: {
        user_id: { type: ['integer', 'string'] },
        permission_level: level,
        notify: { type: ['boolean', 'integer', 'string'], description: 'accepted and ignored: this server sends no mail' },
      },
    },
    response: memberSchema,
    handler: async ({ ctx, query, body, principal, services }) => {
      const clubId = (await resolveClub(services.db, principal, query, false))!;
      const userId = asInteger(body.user_id);
      if (userId === undefined || userId < 1) throw validationError('user_id must be a user id', { field: 'user_id' });
      const newLevel = readLevel(body.permission_level);
      refuseOwnMembership(principal, userId);
      const account = await accountKind(services.db, userId);
      if (!account) throw notFound('Unknown user');
      if (account.isClub) throw validationError('A clubstation cannot be a member of a clubstation', { field: 'user_id' });
      if (!(await insertMember(services.db, clubId, userId, newLevel))) {
        throw conflict('User is already a member of this clubstation; change the level with PATCH', { user_id: userId });
      }
      return created(ctx, userId, disclosed((await findMember(services.db, clubId, userId))!, services.config));
    },
  },
  update: {
    summary: "Change a member's permission level",
    query: clubIdParam,
    body: {
      type: 'object',
      required: ['permission_level'],
      additionalProperties: false,
      properties: { permission_level: level, notify: { type: ['boolean', 'integer', 'string'], description: 'accepted and ignored' } },
    },
    response: memberSchema,
    handler: async ({ id, query, body, principal, services }) => {
      const clubId = (await resolveClub(services.db, principal, query, false))!;
      const userId = Number(id);
      refuseOwnMembership(principal, userId);
      const newLevel = readLevel(body.permission_level);
      if (!(await updateMemberLevel(services.db, clubId, userId, newLevel))) throw notFound('User is not a member of this clubstation');
      return { data: disclosed((await findMember(services.db, clubId, userId))!, services.config) };
    },
  },
  remove: {
    summary: 'Remove a member; their club tokens then answer 403 club_access_revoked',
    query: clubIdParam,
    handler: async ({ ctx, id, query, principal, services }) => {
      const clubId = (await resolveClub(services.db, principal, query, false))!;
      const userId = Number(id);
      refuseOwnMembership(principal, userId);
      if (!(await removeClubMember(services.db, clubId, userId))) throw notFound('User is not a member of this clubstation');
      ctx.status = 204;
      return undefined;
    },
  },
};
