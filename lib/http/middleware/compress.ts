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
  const gzip = createGzip({ flush: body instanceof Readable ? constants.Z_SYNC_FLUSH : constants.Z_NO_FLUSH });
  if (body instanceof Readable) pipeline(body, gzip, () => undefined);
  else gzip.end(body as string | Buffer);
  ctx.body = gzip;
  ctx.type = type;
  ctx.set('Content-Encoding', 'gzip');
  ctx.remove('Content-Length');
};
