import type { Middleware } from 'koa';
import { QueryScope, runInQueryScope } from '../../db/queryScope.js';
import type { Services } from '../../services.js';

/**
 * Runs each request in a QueryScope of its own; when the client goes away before the answer is
 * complete, the backends the request holds are terminated (a list or export nobody waits for
 * stops at once) and its further check-outs fail. `ctx.state.abandoned` tells the error handler.
 */
export function abandonOnDisconnect(services: Services): Middleware {
  return async (ctx, next) => {
    const scope = new QueryScope();
    ctx.res.once('close', () => {
      if (ctx.res.writableFinished) return;
      ctx.state.abandoned = true;
      Promise.all([services.db, services.bulkDb, services.pageDb].map((pool) => pool.abandon(scope))).catch((error: Error) =>
        services.logger.error('terminating an abandoned request\'s queries failed', { error: error.message }));
    });
    await runInQueryScope(scope, next);
  };
}
