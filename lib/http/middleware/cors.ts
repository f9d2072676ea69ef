import type { Middleware } from 'koa';
import { APP_PREFIX } from '../app/session.js';

/**
 * CORS headers on every response (SPEC.md convention 5): any origin, no PUT. Browser code may
 * read the headers that carry meaning beyond the body: the feed's next page, a wait after 429.
 * Never on the browser app's own session endpoints (`/app/`): no other origin may read them.
 */
export const cors: Middleware = async (ctx, next) => {
  if (ctx.path.startsWith(APP_PREFIX)) return next();
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE, OPTIONS');
  ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-API-Key');
  ctx.set('Access-Control-Max-Age', '86400');
  ctx.set('Access-Control-Expose-Headers', 'Link, Retry-After');
  await next();
};
