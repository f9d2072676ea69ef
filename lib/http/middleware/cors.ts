import type { Middleware } from 'koa';

/**
 * CORS headers on every response (SPEC.md convention 5): any origin, no PUT. Browser code may
 * read the headers that carry meaning beyond the body: the feed's next page, a wait after 429.
 */
export const cors: Middleware = async (ctx, next) => {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE, OPTIONS');
  ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-API-Key');
  ctx.set('Access-Control-Max-Age', '86400');
  ctx.set('Access-Control-Expose-Headers', 'Link, Retry-After');
  await next();
};
