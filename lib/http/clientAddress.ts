import type { Context } from 'koa';
import type { Config } from '../config.js';

/** Reverse proxies trusted in front of the server: `trust_proxy` true means one, false none. */
export function trustedProxies(setting: Config['trust_proxy']): number {
  return setting === true ? 1 : setting === false ? 0 : setting;
}

/**
 * The client's address. Each trusted proxy appends the address it received the request from
 * to X-Forwarded-For, so with N trusted proxies the client is the N-th entry from the right;
 * entries further left were written by the client itself and are never believed. With fewer
 * entries than proxies, the left-most one (Koa's `maxIpsCount` rule).
 */
export function clientAddress(ctx: Context, config: Pick<Config, 'trust_proxy'>): string {
  const hops = trustedProxies(config.trust_proxy);
  if (hops > 0) {
    const entries = ctx.get('x-forwarded-for').split(',').map((entry) => entry.trim()).filter(Boolean);
    const client = entries.slice(-hops)[0];
    if (client) return client;
  }
  return ctx.req.socket.remoteAddress ?? 'unknown';
}
