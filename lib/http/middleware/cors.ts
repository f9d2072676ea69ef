import type { Middleware } from 'koa';

/** CORS headers on every response (SPEC.md convention 5): any origin, no PUT. */
export const cors: Middleware = async (ctx, next) => {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE, OPTIONS');
  ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-API-Key');
  ctx.set('Access-Control-Max-Age', '86400');
  await next();
};
