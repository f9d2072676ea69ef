import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError, notFound } from '../errors.js';
import { metaFor, sendData } from '../envelope.js';
import { APP_CSP, securityHeaders } from '../webApp/router.js';
import { workerUrls } from '../../config.js';
import { publicLogTopic } from '../../live/topics.js';
import { projectRoot } from '../../paths.js';
import { enforceRateLimit } from '../rateLimit.js';
import { clientAddress } from '../clientAddress.js';
import { PUBLIC_BUCKET } from '../../ratelimit/types.js';
import type { CachedAnswer } from '../../publicLog/cache.js';
import type { Services } from '../../services.js';

/** Seconds a browser or proxy may reuse an answer without asking (then If-None-Match makes it a 304). */
export const PUBLIC_MAX_AGE_SECONDS = 5;
const SLUG = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const CALL = /^[A-Z0-9/]{1,20}$/;

/** The page for every published slug (it reads its slug from the address), and the one for every other. */
const PAGE = readFileSync(join(projectRoot, 'web', 'public.html'), 'utf8');
const NO_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>No public log</title></head>
<body><h1>No public log at this address</h1><p>The logbook is not published here (or no longer).</p></body></html>`;

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

  const limit = async (ctx: Context, next: () => Promise<unknown>): Promise<void> => {
    ctx.state.api = 'public';
    await enforceRateLimit(services, PUBLIC_BUCKET, clientAddress(ctx, services.config), services.publicLimiter);
    await next();
  };
  router.use('/api/public', limit);
  router.use('/public', limit);

  // The HTML page: the same 404 page, after the same statement, for an unknown or unpublished slug.
  router.get('/public/:slug', async (ctx) => {
    ctx.state.resource = 'public_log_page';
    const { slug } = ctx.params as { slug: string };
    const published = SLUG.test(slug) ? await services.publicLogs.logbook(slug) : null;
    securityHeaders(ctx, APP_CSP);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'html';
    ctx.status = published ? 200 : 404;
    ctx.body = published ? PAGE : NO_PAGE;
  });

  /**
   * Where the page's socket goes: the worker's public URL and the topic, registered without token
   * requirement (throttled per process: lib/publicLog/pushes.ts). 409 when live updates are not
   * configured: the page then polls the JSON.
   */
  router.get('/api/public/:slug/live', async (ctx) => {
    ctx.state.resource = 'public_log_live';
    const { slug } = ctx.params as { slug: string };
    const logbook = SLUG.test(slug) ? await services.publicLogs.logbook(slug) : null;
    if (!logbook) throw notPublished();
    const { secret, public_url: publicUrl } = services.config.worker;
    if (!secret || !publicUrl || workerUrls(services.config.worker).length === 0 || !services.events.openPublicTopic) {
      throw new ApiError(409, 'conflict', 'Live updates are not configured on this server: poll this log\'s JSON');
    }
    const topic = publicLogTopic(logbook.id);
    await services.events.openPublicTopic(topic);
    ctx.set('Cache-Control', 'no-store');
    sendData(ctx, { topic, ws_url: `${publicUrl.replace(/\/+$/, '')}/ws?topic=${encodeURIComponent(topic)}` }, metaFor('public_log_live', 'GET'));
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
