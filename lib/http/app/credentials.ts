import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../services.js';
import { createToken, EXPIRY_CHOICES, expiryDate, listKeptTokens, revokeKeptToken, type ExpiryChoice, type TokenKeeper } from '../../auth/tokens.js';
import { createKey, deleteKeptKey, listKeptKeys, type KeyRights } from '../../auth/keys.js';
import { grantableScopes, isScope, scopeDescription, SCOPES, type Scope } from '../../auth/scopes.js';
import { OFFICER_LEVEL } from '../../auth/principal.js';
import type { Session } from '../../auth/sessions.js';
import { ApiError, forbidden, notFound, validationError } from '../errors.js';
import { pathId, readAppBody, stringField } from './body.js';
import { requireSession } from './session.js';

/**
 * The user's v2 tokens and v1 keys, or the club's when the session acts for one: an officer
 * manages all of the club's, a member below officer level those they made.
 */
function keeperOf(session: Session): TokenKeeper {
  const acting = session.actingAs;
  if (!acting) return { ownerId: session.user.id, createdBy: null };
  return { ownerId: acting.club_id, createdBy: acting.level >= OFFICER_LEVEL ? null : session.user.id };
}

function grantable(session: Session): Scope[] {
  return grantableScopes(session.user.is_admin, session.actingAs?.level ?? null, OFFICER_LEVEL);
}

function readScopes(value: unknown, session: Session): Scope[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((scope) => typeof scope === 'string')) {
    throw validationError('scopes must be a non-empty list of scope names', { field: 'scopes' });
  }
  const scopes = [...new Set(value as string[])];
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length) throw validationError(`Unknown scope(s): ${unknown.join(', ')}`, { field: 'scopes', unknown });
  const allowed = new Set(grantable(session));
  const refused = scopes.filter((scope) => !allowed.has(scope as Scope));
  if (refused.length && session.actingAs) {
    throw new ApiError(403, 'insufficient_club_permission', `Only a club officer may give these scopes: ${refused.join(', ')}`, {
      required_level: OFFICER_LEVEL, granted_level: session.actingAs.level, scopes: refused,
    });
  }
  if (refused.length) throw forbidden(`These scopes are for administrators: ${refused.join(', ')}`, { scopes: refused });
  return scopes as Scope[];
}

function readName(body: Record<string, unknown>): string {
  const name = typeof body.name === 'string' ? body.name.trim() : '';
  if (name.length < 1 || name.length > 100) throw validationError('name must be 1 to 100 characters', { field: 'name' });
  return name;
}

function readExpiry(value: unknown): ExpiryChoice {
  if (typeof value === 'string' && (EXPIRY_CHOICES as readonly string[]).includes(value)) return value as ExpiryChoice;
  throw validationError(`expires must be one of ${EXPIRY_CHOICES.join(', ')}`, { field: 'expires', allowed: [...EXPIRY_CHOICES] });
}

/** Every route here needs the session and its CSRF header. */
function withSession(services: Services, handler: (ctx: Context, session: Session) => Promise<void>) {
  return async (ctx: Context) => handler(ctx, await requireSession(ctx, services, { csrf: true }));
}

export function credentialRoutes(router: Router, services: Services): void {
  const db = services.db;

  router.get('/scopes', withSession(services, async (ctx, session) => {
    const allowed = new Set(grantable(session));
    ctx.body = { scopes: SCOPES.map((name) => ({ name, description: scopeDescription(name), grantable: allowed.has(name) })) };
  }));

  router.get('/tokens', withSession(services, async (ctx, session) => {
    const tokens = await listKeptTokens(db, keeperOf(session));
    ctx.body = {
      tokens: tokens.map((token) => ({
        id: token.id, name: token.name, scopes: token.scopes, created_at: token.created_at, last_used_at: token.last_used_at,
        expires_at: token.expires_at, club_id: token.user_id === session.user.id ? null : token.user_id,
      })),
    };
  }));

  router.post('/tokens', withSession(services, async (ctx, session) => {
    const body = await readAppBody(ctx);
    const name = readName(body);
    const scopes = readScopes(body.scopes, session);
    const expiresAt = expiryDate(readExpiry(body.expires));
    const { id, token } = await createToken(db, { userId: keeperOf(session).ownerId, createdBy: session.user.id, name, scopes, expiresAt });
    services.logger.info('token created in the app', { user_id: session.user.id, token_id: id, club_id: session.actingAs?.club_id ?? null });
    ctx.status = 201;
    ctx.body = { id, name, scopes, expires_at: expiresAt, token };
  }));

  router.delete('/tokens/:id', withSession(services, async (ctx, session) => {
    const id = pathId(ctx.params.id);
    if (id === null || !(await revokeKeptToken(db, keeperOf(session), id))) throw notFound('No such token');
    services.logger.info('token revoked in the app', { user_id: session.user.id, token_id: id });
    ctx.status = 204;
  }));

  router.get('/keys', withSession(services, async (ctx, session) => {
    ctx.body = { keys: await listKeptKeys(db, keeperOf(session)) };
  }));

  router.post('/keys', withSession(services, async (ctx, session) => {
    const rights = stringField(await readAppBody(ctx), 'rights');
    if (rights !== 'r' && rights !== 'rw') throw validationError('rights must be "r" or "rw"', { field: 'rights', allowed: ['r', 'rw'] });
    const { id, key } = await createKey(db, keeperOf(session).ownerId, rights as KeyRights, session.user.id);
    services.logger.info('v1 key created in the app', { user_id: session.user.id, key_id: id });
    ctx.status = 201;
    ctx.body = { id, key, rights };
  }));

  router.delete('/keys/:id', withSession(services, async (ctx, session) => {
    const id = pathId(ctx.params.id);
    if (id === null || !(await deleteKeptKey(db, keeperOf(session), id))) throw notFound('No such key');
    services.logger.info('v1 key deleted in the app', { user_id: session.user.id, key_id: id });
    ctx.status = 204;
  }));
}
