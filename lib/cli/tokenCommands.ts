import { createToken, EXPIRY_CHOICES, expiryDate, listTokens, revokeToken, type ExpiryChoice } from '../auth/tokens.js';
import { createKey } from '../auth/keys.js';
import { parseScopes } from '../auth/scopes.js';
import { clubLevel } from '../accounts/clubs.js';
import { requireUser } from './accountCommands.js';
import { optionalString, parseId, requireId, requireString, UsageError, type Command } from './command.js';

const json = { json: { type: 'boolean' } } as const;

function tokenExpiry(expires: string | undefined, expiresAt: string | undefined): Date | null {
  if (expiresAt !== undefined) {
    const date = new Date(expiresAt);
    if (Number.isNaN(date.getTime())) throw new UsageError(`--expires-at must be an ISO 8601 date-time (got "${expiresAt}")`);
    return date;
  }
  const choice = expires ?? 'never';
  if (!(EXPIRY_CHOICES as readonly string[]).includes(choice)) throw new UsageError(`--expires must be one of ${EXPIRY_CHOICES.join(', ')}`);
  return expiryDate(choice as ExpiryChoice);
}

export const tokenCreate: Command = {
  name: 'token create',
  usage: 'token create --user ID --name N --scopes a:b,c:d [--expires 30|90|365|never] [--expires-at ISO8601] [--club ID] [--json]',
  options: { ...json, user: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, expires: { type: 'string' }, 'expires-at': { type: 'string' }, club: { type: 'string' } },
  async run({ values, database, result }) {
    const userId = requireId(values, 'user');
    const name = requireString(values, 'name').trim();
    if (name.length > 100) throw new UsageError('--name may be at most 100 characters');
    let scopes;
    try {
      scopes = parseScopes(requireString(values, 'scopes'));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const expiresAt = tokenExpiry(optionalString(values, 'expires'), optionalString(values, 'expires-at'));
    const clubId = values.club === undefined ? null : requireId(values, 'club');
    const db = await database();
    if (clubId !== null && (await clubLevel(db.pool, clubId, userId)) === null) {
      throw new Error(`user ${userId} is not a member of club ${clubId}`);
    }
    const { id, token } = await createToken(db.pool, { userId: clubId ?? userId, createdBy: userId, name, scopes, expiresAt });
    result({ id, token }, `token ${id}: ${token}\n(shown once; only its hash is stored)`);
  },
};

export const tokenRevoke: Command = {
  name: 'token revoke',
  usage: 'token revoke ID [--json]',
  options: json,
  positionals: { min: 1, max: 1 },
  async run({ positionals, database, result }) {
    const id = parseId(positionals[0]!, 'ID');
    const db = await database();
    if (!(await revokeToken(db.pool, id))) throw new Error(`no active token ${id}`);
    result({ revoked: true }, `token ${id} revoked`);
  },
};

export const tokenList: Command = {
  name: 'token list',
  usage: 'token list --user ID [--json]',
  options: { ...json, user: { type: 'string' } },
  async run({ values, database, result }) {
    const userId = requireId(values, 'user');
    const db = await database();
    await requireUser(db.pool, userId);
    const tokens = (await listTokens(db.pool, userId)).map((t) => ({
      id: t.id,
      name: t.name,
      user_id: t.user_id,
      created_by: t.created_by,
      scopes: t.scopes,
      expires_at: t.expires_at?.toISOString() ?? null,
      revoked_at: t.revoked_at?.toISOString() ?? null,
      created_at: t.created_at.toISOString(),
      last_used_at: t.last_used_at?.toISOString() ?? null,
    }));
    result({ tokens }, tokens.map((t) => `${t.id}\t${t.name}\t${t.scopes.join(',')}\t${t.revoked_at ? 'revoked' : t.expires_at ?? 'no expiry'}`).join('\n') || 'no tokens');
  },
};

export const keyCreate: Command = {
  name: 'key create',
  usage: 'key create --user ID [--rw|--ro] [--json]',
  options: { ...json, user: { type: 'string' }, rw: { type: 'boolean' }, ro: { type: 'boolean' } },
  async run({ values, database, result }) {
    if (values.rw && values.ro) throw new UsageError('--rw and --ro exclude each other');
    const db = await database();
    const { key } = await createKey(db.pool, requireId(values, 'user'), values.ro ? 'r' : 'rw');
    result({ key }, `v1 key: ${key}\n(shown once; only its hash is stored)`);
  },
};
