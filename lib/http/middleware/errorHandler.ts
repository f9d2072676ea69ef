import type { Context, Middleware } from 'koa';
import { ApiError } from '../errors.js';
import { sendError } from '../envelope.js';
import type { Logger } from '../../log.js';
import { redactPath } from '../redact.js';
import { OwnerShareBusyError } from '../../db/ownerShare.js';

/**
 * Turns thrown errors into the error envelope. Anything that is not an ApiError is logged with
 * its stack and answered 500 `internal_error` without internals in the body.
 */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof ApiError) {
        sendError(ctx, error);
        return;
      }
      if (error instanceof OwnerShareBusyError) {
        sendError(ctx, new ApiError(429, 'rate_limited', `${error.message}; try again in ${error.retryAfterSeconds} seconds`, {
          retry_after: error.retryAfterSeconds,
        }, { 'Retry-After': String(error.retryAfterSeconds) }));
        return;
      }
      // The client went away and its queries were terminated: nothing is wrong, nobody is listening.
      if (ctx.state.abandoned === true) {
        logger.info('request abandoned by its client', { method: ctx.method, path: redactPath(ctx.path), error: (error as Error).message });
        return;
      }
      logger.error('unhandled error', {
        method: ctx.method,
        path: redactPath(ctx.path),
        error: (error as Error).message,
        stack: (error as Error).stack,
      });
      sendError(ctx, new ApiError(500, 'internal_error', 'Internal server error'));
    }
  };
}

/** Socket errors that only say the client went away (Node's HTTP parser reports a body cut short at EOF as "Parse Error"). */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'HPE_INVALID_EOF_STATE']);

/**
 * Koa's `error` event: errors of the connection rather than of the handler, seen after the
 * handler (e.g. the socket ending while the request body was still due). Without a listener Koa
 * prints them to stderr; a client that went away mid-upload is an ordinary event, logged at info.
 */
export function connectionErrorLogger(logger: Logger): (error: Error & { code?: string }, ctx?: Context) => void {
  return (error, ctx) => {
    const fields = { method: ctx?.method, path: ctx ? redactPath(ctx.path) : undefined, error: error.message };
    if (CLIENT_GONE.has(error.code ?? '') || error.message === 'aborted' || ctx?.req.complete === false) {
      logger.info('request aborted by its client (connection closed)', fields);
      return;
    }
    logger.error('connection error', { ...fields, stack: error.stack });
  };
}
