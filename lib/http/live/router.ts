import Router from '@koa/router';
import { ApiError, notFound } from '../errors.js';
import { metaFor, sendData } from '../envelope.js';
import { authenticate, presentedToken } from '../v2/principal.js';
import { createBrowserToken } from '../../worker/browserToken.js';
import { browserTokenKey } from '../../worker/workerKeys.js';
import { DEFAULT_BROWSER_TOKEN_TTL_SECONDS, workerUrls } from '../../config.js';
import type { Services } from '../../services.js';
import { mayWatchTopic } from './topicAccess.js';
import { liveCsp, livePage } from './page.js';
import { enforceRateLimit } from '../rateLimit.js';
import { clientAddress } from '../clientAddress.js';
import { PRE_AUTH_BUCKET } from '../../ratelimit/types.js';

/**
 * The browser side of live updates: `/live` (a plain page) and `/live/token?topic=…`, which
 * trades a v2 token for a short-lived browser token bound to one topic (the worker checks its
 * HMAC without calling back), after registering the topic with the worker.
 */
export function liveRouter(services: Services): Router {
  const router = new Router();

  router.get('/live', (ctx) => {
    ctx.state.resource = 'live_page';
    ctx.type = 'text/html; charset=utf-8';
    // Never framed by another site (clickjacking): frame-ancestors, and X-Frame-Options for older browsers.
    ctx.set('Content-Security-Policy', liveCsp);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.body = livePage;
  });

  router.get('/live/token', async (ctx) => {
    ctx.state.api = 'live';
    ctx.state.resource = 'live_token';
    await enforceRateLimit(services, PRE_AUTH_BUCKET, clientAddress(ctx, services.config));
    const principal = await authenticate(services.credentials.tokens, presentedToken(ctx.get('authorization'), ctx.get('x-api-key')));
    ctx.state.tokenId = principal.tokenId;
    const topic = typeof ctx.query.topic === 'string' ? ctx.query.topic : '';
    if (!topic) throw new ApiError(400, 'validation_error', 'Parameter "topic" is required', { field: 'topic' });
    const { secret, derived_keys: derivedKeys = false, public_url: publicUrl, token_ttl_seconds: ttl } = services.config.worker;
    if (!secret || !publicUrl || workerUrls(services.config.worker).length === 0) {
      throw new ApiError(409, 'conflict', 'Live updates are not configured on this server (worker.url, worker.secret, worker.public_url)');
    }
    const access = await mayWatchTopic(services.db, principal, topic);
    if (!access.ok) {
      if (access.scope) throw new ApiError(403, 'insufficient_scope', `Watching ${topic} needs the scope ${access.scope}`, { required_scope: access.scope });
      throw notFound('Unknown topic');
    }
    await services.events.register?.(topic);
    const ttlSeconds = ttl ?? DEFAULT_BROWSER_TOKEN_TTL_SECONDS;
    const token = createBrowserToken(browserTokenKey(secret, derivedKeys), { userId: principal.actingUserId, topic, ttlSeconds, tokenId: principal.tokenId });
    sendData(ctx, {
      token,
      topic,
      expires_at: new Date(Date.now() + ttlSeconds * 1000).toISOString(),
      ws_url: `${publicUrl.replace(/\/+$/, '')}/ws?topic=${encodeURIComponent(topic)}`,
    }, metaFor('live_token', 'GET'));
  });

  return router;
}
