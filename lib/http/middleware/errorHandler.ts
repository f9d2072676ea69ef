import type { Middleware } from 'koa';
import { ApiError } from '../errors.js';
import { sendError } from '../envelope.js';
import type { Logger } from '../../log.js';
import { redactPath } from '../redact.js';

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
