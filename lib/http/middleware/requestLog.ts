import type { Middleware } from 'koa';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';

/** One log line and one metrics observation per request; the token id, never the token. */
export function requestLog(logger: Logger, metrics: Metrics): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const api = String(ctx.state.api ?? 'other');
      const resource = String(ctx.state.resource ?? (api === 'other' ? ctx.path : 'unknown'));
      metrics.requests.inc({ api, resource, method: ctx.method, status: String(ctx.status) });
      metrics.latency.observe({ api, resource }, seconds);
      logger.info('request', {
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Math.round(seconds * 1000 * 10) / 10,
        ...(ctx.state.tokenId ? { token_id: ctx.state.tokenId } : {}),
        ...(ctx.state.keyId ? { key_id: ctx.state.keyId } : {}),
      });
    }
  };
}
