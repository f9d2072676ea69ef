import type { Middleware } from 'koa';
import type { ServerResponse } from 'node:http';
import type { Logger } from '../../log.js';

export interface ReaderLimits {
  /** A client that reads none of its waiting answer for this long is dropped (0: never). */
  stallTimeoutMs: number;
  /** A client that reads less than this per second, averaged over `windowMs` of waiting output, is dropped (0: never). */
  minBytesPerSecond: number;
  windowMs: number;
}

interface Sample { at: number; sent: number; waiting: boolean }

/**
 * Closes the connection of a client that has stopped reading its answer, or reads it slower
 * than a minimum rate. A streamed list or export holds a database connection until its client
 * has read the last byte, and nothing else would ever end the wait: Node's HTTP server has no
 * send timeout and PostgreSQL cancels no statement blocked on a full socket, so a few silent or
 * trickling clients would hold every connection of the page or bulk pool. Only time while output
 * waits in the socket counts (a server still producing the answer is not the client's fault).
 * Progress is sampled, a tenth of the shorter limit apart (50 ms – 1 s), so a client is dropped
 * within that much of its limit. Closing the socket ends the request as abandoned
 * (abandonOnDisconnect): its backends are terminated and its connections freed.
 */
export function dropSlowClients(limits: ReaderLimits, logger: Logger): Middleware {
  const shortest = Math.min(limits.stallTimeoutMs || Infinity, limits.minBytesPerSecond > 0 ? limits.windowMs : Infinity);
  return async (ctx, next) => {
    await next();
    if (shortest === Infinity) return;
    watch(ctx.res, limits, Math.max(50, Math.min(1000, Math.floor(shortest / 10))), (reason, detail) => {
      logger.info(reason, { method: ctx.method, path: ctx.path, ...detail });
    });
  };
}

function watch(res: ServerResponse, limits: ReaderLimits, tickMs: number, log: (reason: string, detail: Record<string, number>) => void): void {
  const samples: Sample[] = [];
  let lastProgressAt = Date.now();
  let lastSent = -1;
  const timer = setInterval(() => {
    const socket = res.socket;
    if (socket === null || socket.destroyed) return stop();
    const now = Date.now();
    // Bytes the kernel has taken: the client's reading frees room for them.
    const sent = socket.bytesWritten - socket.writableLength;
    const waiting = res.writableLength > 0;
    if (sent !== lastSent || !waiting) {
      lastSent = sent;
      lastProgressAt = now;
    }
    if (limits.stallTimeoutMs > 0 && now - lastProgressAt >= limits.stallTimeoutMs) {
      log('client stopped reading its answer', { waitingBytes: res.writableLength, timeoutMs: limits.stallTimeoutMs });
      return drop(socket);
    }
    if (limits.minBytesPerSecond === 0) return;
    samples.push({ at: now, sent, waiting });
    while (samples.length > 1 && now - samples[1]!.at >= limits.windowMs) samples.shift();
    const oldest = samples[0]!;
    if (now - oldest.at < limits.windowMs || !samples.every((sample) => sample.waiting)) return;
    const rate = ((sent - oldest.sent) * 1000) / (now - oldest.at);
    if (rate < limits.minBytesPerSecond) {
      log('client reads its answer too slowly', { bytesPerSecond: Math.round(rate), minBytesPerSecond: limits.minBytesPerSecond, windowMs: limits.windowMs });
      drop(socket);
    }
  }, tickMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  const drop = (socket: NonNullable<ServerResponse['socket']>) => {
    stop();
    socket.destroy();
  };
  res.once('finish', stop);
  res.once('close', stop);
}
