import type { Middleware } from 'koa';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { redactPath } from '../redact.js';

/** The metrics label of requests no route claimed: one series, whatever path was asked for. */
export const UNMATCHED = 'unmatched';

/**
 * One log line and one metrics observation per request; the token or key id, never the token
 * or key (paths are redacted). Metrics are labelled by route (`ctx.state.resource`, set by
 * whatever answered, else the router's pattern), never by path, so random paths cannot add series.
 */
export function requestLog(logger: Logger, metrics: Metrics): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const api = String(ctx.state.api ?? 'other');
      // @koa/router records the pattern it matched (`/app/:file`), never the path itself.
      const pattern = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      const resource = String(ctx.state.resource ?? (api !== 'other' ? 'unknown' : typeof pattern === 'string' ? pattern : UNMATCHED));
      metrics.requests.inc({ api, resource, method: ctx.method, status: String(ctx.status) });
      metrics.latency.observe({ api, resource }, seconds);
      logger.info('request', {
        method: ctx.method,
        path: redactPath(ctx.path),
        status: ctx.status,
        ms: Math.round(seconds * 1000 * 10) / 10,
        ...(ctx.state.tokenId ? { token_id: ctx.state.tokenId } : {}),
        ...(ctx.state.keyId ? { key_id: ctx.state.keyId } : {}),
      });
    }
  };
}
