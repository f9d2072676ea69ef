import { claimOwner } from '../../db/queryScope.js';
import type { Context, Middleware } from 'koa';
import { ApiError, notFound } from '../errors.js';
import { metaFor, sendData } from '../envelope.js';
import { parseJson, readRawBody, requireScalarObject } from '../body.js';
import { validateAgainst } from '../validation.js';
import { clientAddress } from '../clientAddress.js';
import { enforceRateLimit } from '../rateLimit.js';
import { PRE_AUTH_BUCKET } from '../../ratelimit/types.js';
import type { Services } from '../../services.js';
import { authenticate, presentedToken } from './principal.js';
import { requiredScope, supportedVerbs, type Operation, type ResourceDefinition, type Verb } from './resource.js';

const PREFIX = /^(?:\/index\.php)?\/api\/v2(?=\/|$)/;

function methodNotAllowed(verbs: Verb[], method: string): ApiError {
  return new ApiError(405, 'method_not_allowed', `Method ${method} is not allowed on this resource`, { allowed: verbs }, {
    Allow: verbs.join(', '),
  });
}

/** The query string, one value per name (the last of a repeated one). */
export function singleValuedQuery(ctx: Context): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.query)) {
    if (value !== undefined) query[name] = Array.isArray(value) ? value[value.length - 1]! : value;
  }
  return query;
}

/** Picks the operation for verb + id, with the original product's answers for misplaced verbs. */
function operationFor(resource: ResourceDefinition, method: Verb, id: string | null, verbs: Verb[]): Operation {
  switch (method) {
    case 'GET': {
      const operation = id === null ? resource.list : resource.show;
      if (!operation) throw notFound(id === null ? 'This resource has no list' : 'Unknown resource item');
      return operation;
    }
    case 'POST':
      if (id !== null) throw methodNotAllowed(verbs.filter((v) => v !== 'POST'), method);
      return resource.create!;
    case 'PATCH':
    case 'DELETE':
      if (id === null) throw notFound('Missing resource id');
      return (method === 'PATCH' ? resource.update : resource.remove)!;
  }
}

async function readBody(ctx: Context, operation: Operation, services: Services): Promise<Record<string, unknown>> {
  const mode = operation.bodyMode ?? 'scalar';
  if (mode === 'stream') return {};
  const parsed = parseJson(await readRawBody(ctx, services.config.max_json_body_bytes));
  if (mode === 'scalar') return requireScalarObject(parsed);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError(400, 'validation_error', 'Request body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/**
 * The v2 URL space: `/api/v2/<resource>[/<id>]` (optionally after `/index.php`). Order of checks:
 * path → resource → verb (405 before any authentication) → `api_v2_auth` bucket per client
 * address → token → `api_v2_<resource>` bucket per token → scope → body → handler.
 */
export function v2Dispatcher(resources: ResourceDefinition[], services: Services): Middleware {
  const byName = new Map(resources.map((r) => [r.name, r]));
  return async (ctx, next) => {
    const prefix = PREFIX.exec(ctx.path);
    if (!prefix) return next();
    ctx.state.api = 'v2';
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    const segments = ctx.path.slice(prefix[0].length).split('/').filter(Boolean);
    if (segments.length > 2) throw notFound('Unknown resource path');
    const [name = '', id = null] = segments;
    const method = ctx.method.toUpperCase();

    if (name === '' || name === 'status') {
      ctx.state.resource = 'status';
      if (id !== null) throw notFound('Unknown resource path');
      if (method !== 'GET') throw methodNotAllowed(['GET'], method);
      // `status` says the API answers (SPEC); `live_updates` what its workers say ('off': none configured).
      const liveUpdates = services.events.health ? await services.events.health() : 'off';
      sendData(ctx, { name: 'Logbook API', status: 'ok', version: services.version, live_updates: liveUpdates }, metaFor('status', 'GET'));
      return;
    }

    const resource = byName.get(name);
    if (!resource) throw notFound(`Unknown resource "${name}"`);
    ctx.state.resource = resource.name;
    const view = id !== null && Object.hasOwn(resource.views ?? {}, id) ? resource.views![id]! : null;
    const verbs: Verb[] = view ? ['GET'] : supportedVerbs(resource);
    if (!verbs.includes(method as Verb)) throw methodNotAllowed(verbs, method);
    const verb = method as Verb;

    await enforceRateLimit(services, PRE_AUTH_BUCKET, clientAddress(ctx, services.config));
    const principal = await authenticate(services.credentials.tokens, presentedToken(ctx.get('authorization'), ctx.get('x-api-key')));
    ctx.state.tokenId = principal.tokenId;
    claimOwner(principal.userId);
    await enforceRateLimit(services, `api_v2_${resource.name}`, `token_${principal.tokenId}`);
    if (resource.scoped) {
      const required = requiredScope(resource, verb);
      if (!principal.scopes.has(required)) {
        throw new ApiError(403, 'insufficient_scope', `This request needs the scope ${required}`, { required_scope: required });
      }
    }

    if (id !== null && view === null && !/^[1-9]\d{0,17}$/.test(id)) throw notFound('Unknown resource item');
    const operation = view ?? operationFor(resource, verb, id, verbs);
    const query = singleValuedQuery(ctx);
    if (operation.query) validateAgainst(operation.query, query, 'query');
    const body = verb === 'POST' || verb === 'PATCH' ? await readBody(ctx, operation, services) : {};
    if (operation.body && operation.bodyMode !== 'stream') validateAgainst(operation.body, body, 'body');

    const meta = metaFor(resource.name, verb);
    const result = await operation.handler({ ctx, resource: resource.name, method: verb, id, query, body, principal, services, meta });
    if (!result) return;
    for (const [header, value] of Object.entries(result.headers ?? {})) ctx.set(header, value);
    sendData(ctx, result.data, { ...meta, ...result.meta }, result.status ?? 200);
  };
}
