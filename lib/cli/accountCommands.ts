import type pg from 'pg';
import { createUser, listUsers, setPassword, userExists } from '../accounts/users.js';
import { hashPassword, MAX_PASSWORD_LENGTH, passwordProblem } from '../auth/passwords.js';
import { addClubMember, parseClubLevel, removeClubMember } from '../accounts/clubs.js';
import { createStation, listStations } from '../accounts/stations.js';
import { stationPlace, type StationPlace } from '../accounts/stationDefaults.js';
import { createLogbook, PUBLIC_BANNER_LIMIT, setPublication, type Publication } from '../accounts/logbooks.js';
import { formatTable } from './table.js';
import { loadConfig } from '../config.js';
import { configuredPublisher } from '../live/configured.js';
import { publicLogTopic } from '../live/topics.js';
import { optionalInteger, optionalString, parseId, requireId, requireString, UsageError, type Command, type CommandContext, type OptionValues } from './command.js';

const json = { json: { type: 'boolean' } } as const;

/**
 * The password piped to the command (one line; its line ending dropped), hashed. Never taken
 * from an option: options show in the process list and the shell's history.
 */
async function passwordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password (ends at the line break, shown as typed): ');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_PASSWORD_LENGTH * 4 + 2) throw new UsageError(`the password on standard input may be at most ${MAX_PASSWORD_LENGTH} characters long`);
    chunks.push(chunk);
  }
  const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(`${problem} Pipe it on standard input, e.g. printf '%s' "$PASSWORD" | logbook user set-password --user ID`);
  return hashPassword(password);
}

export const userAdd: Command = {
  name: 'user add',
  usage: 'user add --username U --callsign C [--password-stdin] [--email E] [--firstname F] [--lastname L] [--locator G] [--language L] [--club] [--admin] [--json]',
  options: {
    ...json, username: { type: 'string' }, callsign: { type: 'string' }, email: { type: 'string' }, firstname: { type: 'string' },
    lastname: { type: 'string' }, locator: { type: 'string' }, language: { type: 'string' }, club: { type: 'boolean' }, admin: { type: 'boolean' },
    'password-stdin': { type: 'boolean' },
  },
  async run({ values, database, result }) {
    if (values['password-stdin'] && values.club) throw new UsageError('a clubstation account does not sign in: --password-stdin and --club exclude each other');
    const passwordHash = values['password-stdin'] ? await passwordFromStdin() : undefined;
    const db = await database();
    const id = await createUser(db.pool, {
      username: requireString(values, 'username'),
      callsign: requireString(values, 'callsign'),
      email: optionalString(values, 'email'),
      firstname: optionalString(values, 'firstname'),
      lastname: optionalString(values, 'lastname'),
      locator: optionalString(values, 'locator'),
      language: optionalString(values, 'language'),
      isClub: values.club === true,
      isAdmin: values.admin === true,
      passwordHash,
    });
    result({ id }, `user ${id} created`);
  },
};

export const userSetPassword: Command = {
  name: 'user set-password',
  usage: 'user set-password --user ID [--json]   (the password on standard input)',
  options: { ...json, user: { type: 'string' } },
  async run({ values, database, result }) {
    const userId = requireId(values, 'user');
    const passwordHash = await passwordFromStdin();
    const db = await database();
    if (!(await setPassword(db.pool, userId, passwordHash))) throw new Error(`no user with id ${userId}`);
    result({ user_id: userId, sessions_ended: true }, `password of user ${userId} set; their browser sessions are ended`);
  },
};

export const userList: Command = {
  name: 'user list',
  usage: 'user list [--json]',
  options: json,
  async run({ database, result }) {
    const db = await database();
    const users = (await listUsers(db.pool)).map((u) => ({ ...u, created_at: u.created_at.toISOString() }));
    const kind = (u: (typeof users)[number]) => [u.is_admin ? 'admin' : '', u.is_club ? 'club' : ''].filter(Boolean).join(',');
    result({ users }, users.length
      ? formatTable(['ID', 'USERNAME', 'CALLSIGN', 'EMAIL', 'KIND'], users.map((u) => [String(u.id), u.username, u.callsign, u.email ?? '', kind(u)]))
      : 'no users yet: logbook user add --username U --callsign C');
  },
};

/** Fails with one sentence when `userId` names no account (a list would otherwise just be empty). */
export async function requireUser(db: pg.Pool, userId: number): Promise<void> {
  if (!(await userExists(db, userId))) throw new Error(`no user with id ${userId}`);
}

export const clubMemberAdd: Command = {
  name: 'club member add',
  usage: 'club member add --club ID --user ID --level member|member_adif|officer [--json]',
  options: { ...json, club: { type: 'string' }, user: { type: 'string' }, level: { type: 'string' } },
  async run({ values, database, result }) {
    const clubId = requireId(values, 'club');
    const userId = requireId(values, 'user');
    let level: number;
    try {
      level = parseClubLevel(requireString(values, 'level'));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const db = await database();
    await addClubMember(db.pool, clubId, userId, level);
    result({ club_id: clubId, user_id: userId, level }, `user ${userId} is a level ${level} member of club ${clubId}`);
  },
};

export const clubMemberRemove: Command = {
  name: 'club member remove',
  usage: 'club member remove --club ID --user ID [--json]',
  options: { ...json, club: { type: 'string' }, user: { type: 'string' } },
  async run({ values, database, result }) {
    const clubId = requireId(values, 'club');
    const userId = requireId(values, 'user');
    const db = await database();
    const removed = await removeClubMember(db.pool, clubId, userId);
    if (!removed) throw new Error(`user ${userId} is not a member of club ${clubId}`);
    result({ removed: true }, `user ${userId} removed from club ${clubId}`);
  },
};

/** DXCC and zones default to the callsign's, so exports carry MY_DXCC, MY_COUNTRY and the zones. */
function placeOptions(callsign: string, values: OptionValues): StationPlace {
  const given = { dxcc: optionalInteger(values, 'dxcc', 0, 999), cq: optionalInteger(values, 'cq', 1, 40), itu: optionalInteger(values, 'itu', 1, 90) };
  try {
    return stationPlace(callsign, given);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(`--dxcc: ${error.message}`);
    throw error;
  }
}

export const stationAdd: Command = {
  name: 'station add',
  usage: 'station add --user ID --name N --callsign C [--gridsquare G] [--city C] [--dxcc N] [--cq N] [--itu N] [--active] [--json]',
  options: {
    ...json, user: { type: 'string' }, name: { type: 'string' }, callsign: { type: 'string' }, gridsquare: { type: 'string' },
    city: { type: 'string' }, dxcc: { type: 'string' }, cq: { type: 'string' }, itu: { type: 'string' }, active: { type: 'boolean' },
  },
  async run({ values, database, result }) {
    const userId = requireId(values, 'user');
    const callsign = requireString(values, 'callsign');
    const place = placeOptions(callsign, values);
    const db = await database();
    const id = await createStation(db.pool, {
      userId,
      name: requireString(values, 'name'),
      callsign,
      gridsquare: optionalString(values, 'gridsquare'),
      city: optionalString(values, 'city')?.trim(),
      ...place,
      active: values.active === true,
    });
    result({ id }, `station location ${id} created`);
  },
};

export const stationList: Command = {
  name: 'station list',
  usage: 'station list --user ID [--json]',
  options: { ...json, user: { type: 'string' } },
  async run({ values, database, result }) {
    const userId = requireId(values, 'user');
    const db = await database();
    await requireUser(db.pool, userId);
    const stations = await listStations(db.pool, userId);
    result({ stations }, stations.length
      ? formatTable(['ID', 'NAME', 'CALLSIGN', 'GRID', 'ACTIVE'], stations.map((s) => [String(s.id), s.name, s.callsign, s.gridsquare, s.active ? 'yes' : '']))
      : `user ${userId} has no station locations: logbook station add --user ${userId} --name N --callsign C`);
  },
};

export const logbookAdd: Command = {
  name: 'logbook add',
  usage: 'logbook add --user ID --name N [--slug S] --stations 1,2 [--json]',
  options: { ...json, user: { type: 'string' }, name: { type: 'string' }, slug: { type: 'string' }, stations: { type: 'string' } },
  async run({ values, database, result }) {
    const userId = requireId(values, 'user');
    const stationIds = requireString(values, 'stations').split(',').map((s) => parseId(s.trim(), '--stations'));
    const db = await database();
    const { id, slug } = await createLogbook(db.pool, { userId, name: requireString(values, 'name'), slug: optionalString(values, 'slug'), stationIds });
    result({ id, slug }, `logbook ${id} created, public slug ${slug}`);
  },
};

async function changePublication(context: CommandContext, changes: Partial<Publication>, done: string): Promise<void> {
  const id = parseId(context.positionals[0]!, 'ID');
  const db = await context.database();
  if (!(await setPublication(db.pool, id, changes))) throw new Error(`no logbook ${id}`);
  context.result({ id, ...changes }, `logbook ${id} ${done}`);
}

export const logbookPublish: Command = {
  name: 'logbook publish',
  usage: 'logbook publish ID [--show-times] [--hide-frequency] [--banner TEXT] [--json]',
  options: { ...json, 'show-times': { type: 'boolean' }, 'hide-frequency': { type: 'boolean' }, banner: { type: 'string' } },
  positionals: { min: 1, max: 1 },
  async run(context) {
    const { values } = context;
    const banner = optionalString(values, 'banner');
    if (banner !== undefined && [...banner].length > PUBLIC_BANNER_LIMIT) throw new UsageError(`--banner may be at most ${PUBLIC_BANNER_LIMIT} characters long`);
    const changes: Partial<Publication> = {
      public: true,
      public_show_times: values['show-times'] === true,
      public_show_frequency: values['hide-frequency'] !== true,
      ...(banner === undefined ? {} : { public_banner: banner }),
    };
    await changePublication(context, changes, 'published');
  },
};

export const logbookUnpublish: Command = {
  name: 'logbook unpublish',
  usage: 'logbook unpublish ID [--config FILE] [--json]',
  options: { ...json, config: { type: 'string' } },
  positionals: { min: 1, max: 1 },
  async run(context) {
    await changePublication(context, { public: false }, 'unpublished');
    // The open pages' sockets close now, not when they next reconnect (the server's config names the workers).
    const workers = configuredPublisher(loadConfig(optionalString(context.values, 'config')), context.logger);
    if (workers) {
      await workers.closeTopic(publicLogTopic(parseId(context.positionals[0]!, 'ID')));
      await workers.close();
    }
  },
};
