import type { Context } from 'koa';

/** The client's address; behind a trusted reverse proxy, the first X-Forwarded-For entry. */
export function clientAddress(ctx: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = ctx.get('x-forwarded-for').split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  return ctx.req.socket.remoteAddress ?? 'unknown';
}
