import { pipeline, Readable } from 'node:stream';
import { createGzip, constants, gzipSync } from 'node:zlib';
import type { Middleware } from 'koa';

/** Below this many bytes gzip saves too little to be worth the CPU. */
const MIN_BYTES = 1024;
/**
 * Answers in memory up to this size are compressed in one call (about a tenth of a millisecond
 * for a QSO object) instead of through a gzip stream, whose set-up cost more than the
 * compression itself.
 */
const IN_ONE_CALL_BYTES = 64 * 1024;
const COMPRESSIBLE = /^(?:text\/|application\/(?:json|xml|javascript|x-adif)|[^;]*\+(?:json|xml))/i;

/**
 * `Accept-Encoding: gzip` honoured on answers worth it: streamed exports and lists (a stream
 * body) and any text body of at least MIN_BYTES. Streams stay streams (gzip with back-pressure);
 * nothing is compressed twice or when the client did not ask.
 */
export const compress: Middleware = async (ctx, next) => {
  await next();
  ctx.vary('Accept-Encoding');
  if (ctx.method === 'HEAD' || ctx.status === 204 || ctx.status === 304 || ctx.body == null) return;
  if (ctx.response.get('Content-Encoding') || !COMPRESSIBLE.test(ctx.response.type)) return;
  if (ctx.acceptsEncodings('gzip', 'identity') !== 'gzip') return;
  let body: unknown = ctx.body;
  const type = ctx.response.type;
  if (!(body instanceof Readable)) {
    if (typeof body !== 'string' && !Buffer.isBuffer(body)) body = JSON.stringify(body);
    const bytes = Buffer.byteLength(body as string | Buffer);
    if (bytes < MIN_BYTES) return;
    if (bytes <= IN_ONE_CALL_BYTES) {
      ctx.body = gzipSync(body as string | Buffer);
      ctx.type = type;
      ctx.set('Content-Encoding', 'gzip');
      return;
    }
  }
  // A flush per write keeps a slow export's pieces moving instead of waiting for a full block.
  // Streams (pages of up to 5000 QSOs, whole exports) at the fastest level: the server's core is
  // what a client copying a log waits for, and level 1 takes 40 % of the default's CPU for half
  // again as many bytes, still a thirtieth of the text (a 6.7 MB feed page: 20 → 8 ms, 141 →
  // 214 kB; benchmarks/RESULTS.md, "Change feed").
  const streamed = body instanceof Readable;
  const gzip = createGzip({
    flush: streamed ? constants.Z_SYNC_FLUSH : constants.Z_NO_FLUSH,
    level: streamed ? constants.Z_BEST_SPEED : constants.Z_DEFAULT_COMPRESSION,
  });
  if (streamed) pipeline(body as Readable, gzip, () => undefined);
  else gzip.end(body as string | Buffer);
  ctx.body = gzip;
  ctx.type = type;
  ctx.set('Content-Encoding', 'gzip');
  ctx.remove('Content-Length');
};
