import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError, notFound } from '../errors.js';
import { enforceRateLimit } from '../rateLimit.js';
import { clientAddress } from '../clientAddress.js';
import { PUBLIC_BUCKET } from '../../ratelimit/types.js';
import type { CachedAnswer } from '../../publicLog/cache.js';
import type { Services } from '../../services.js';

/** Seconds a browser or proxy may reuse an answer without asking (then If-None-Match makes it a 304). */
export const PUBLIC_MAX_AGE_SECONDS = 5;
const SLUG = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const CALL = /^[A-Z0-9/]{1,20}$/;

/** The one answer for an unknown, unpublished or malformed slug: nothing tells them apart. */
const notPublished = (): ApiError => notFound('No public log at this address');

/**
 * If-None-Match names this ETag (weak forms too). Not Koa's `ctx.fresh`: it answers stale to any
 * request with Cache-Control: no-cache, which fetch() adds to every conditional request it is given.
 */
function matches(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

function send(ctx: Context, answer: CachedAnswer | null): void {
  if (!answer) throw notPublished();
  ctx.status = 200;
  ctx.set('Cache-Control', `public, max-age=${PUBLIC_MAX_AGE_SECONDS}`);
  ctx.set('ETag', answer.etag);
  if (matches(ctx.get('if-none-match'), answer.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = answer.body;
}

/**
 * The public live log's JSON (docs/public-log.md): no authentication, a rate-limit bucket of
 * its own per client address, answers from the process's memory while the logbook is unchanged.
 */
export function publicLogRouter(services: Services): Router {
  const router = new Router();

  router.use('/api/public', async (ctx, next) => {
    ctx.state.api = 'public';
    await enforceRateLimit(services, PUBLIC_BUCKET, clientAddress(ctx, services.config), services.publicLimiter);
    await next();
  });

  router.get('/api/public/:slug', async (ctx) => {
    ctx.state.resource = 'public_log';
    const { slug } = ctx.params as { slug: string };
    send(ctx, SLUG.test(slug) ? await services.publicLogs.page(slug) : null);
  });

  router.get('/api/public/:slug/search', async (ctx) => {
    ctx.state.resource = 'public_log_search';
    const { slug } = ctx.params as { slug: string };
    const raw = typeof ctx.query.call === 'string' ? ctx.query.call.trim().toUpperCase() : '';
    if (!CALL.test(raw)) {
      throw new ApiError(400, 'validation_error', 'Parameter "call" must be a callsign (letters, digits and "/", at most 20)', { field: 'call' });
    }
    send(ctx, SLUG.test(slug) ? await services.publicLogs.search(slug, raw) : null);
  });

  return router;
}
