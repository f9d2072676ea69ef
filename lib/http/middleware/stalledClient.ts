import type { Middleware } from 'koa';
import type { Logger } from '../../log.js';

/**
 * Closes the connection of a client that has stopped reading its answer for `timeoutMs`
 * (0: never). A streamed list or export holds a database connection until its client has read
 * the last byte, and nothing else would ever end the wait: Node's HTTP server has no send
 * timeout, PostgreSQL cancels no statement blocked on a full socket, and a few such clients
 * would hold every connection of the page pool (lists) or the bulk pool (exports). The
 * socket's inactivity timer (refreshed by every write that completes and every byte read)
 * fires only after `timeoutMs` without progress; it is a stall only while output waits in the
 * socket (a server still producing the answer is not the client's fault). Closing the socket
 * ends the request as abandoned (abandonOnDisconnect): its backends are terminated and its
 * connections freed.
 */
export function dropStalledClients(timeoutMs: number, logger: Logger): Middleware {
  return async (ctx, next) => {
    await next();
    if (timeoutMs === 0) return;
    const { res } = ctx;
    const onTimeout = () => {
      const socket = res.socket;
      if (socket === null || socket.writableLength === 0) return;
      logger.info('client stopped reading its answer', { method: ctx.method, path: ctx.path, waitingBytes: socket.writableLength, timeoutMs });
      socket.destroy();
    };
    // A listener on the response keeps Node from destroying the socket on its own, and goes
    // with the response: the next request on a kept-alive connection sets its own timeout.
    res.setTimeout(timeoutMs, onTimeout);
  };
}
