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
/**
 * Every answer at the fastest level: the server's core is what a client waits for, and level 1
 * takes 40 % of the default's CPU for a few more bytes, still a sixth to a thirtieth of the text
 * (a 6.7 MB feed page: 20 → 8 ms, 141 → 214 kB; a confirmation page of 17 kB: 144 → 54 µs,
 * 2.2 → 2.6 kB; benchmarks/RESULTS.md, "Change feed").
 */
const LEVEL = constants.Z_BEST_SPEED;
const COMPRESSIBLE = /^(?:text\/|application\/(?:json|xml|javascript|x-adif)|[^;]*\+(?:json|xml))/i;

/**
 * `Accept-Encoding: gzip` honoured on answers worth it: streamed exports and lists (a stream
 * body) and any text body of at least MIN_BYTES. Streams longer than IN_ONE_CALL_BYTES stay
 * streams (gzip with back-pressure); nothing is compressed twice or when the client did not ask.
 * Inside the error handler: a stream that fails before its first IN_ONE_CALL_BYTES are out is
 * answered with the error envelope.
 */
export const compress: Middleware = async (ctx, next) => {
  await next();
  ctx.vary('Accept-Encoding');
  if (ctx.method === 'HEAD' || ctx.status === 204 || ctx.status === 304 || ctx.body == null) return;
  if (ctx.response.get('Content-Encoding') || !COMPRESSIBLE.test(ctx.response.type)) return;
  if (ctx.acceptsEncodings('gzip', 'identity') !== 'gzip') return;
  const type = ctx.response.type;
  const answer = (body: Buffer | Readable) => {
    ctx.body = body;
    ctx.type = type;
    ctx.set('Content-Encoding', 'gzip');
    if (body instanceof Readable) ctx.remove('Content-Length');
  };
  let body: string | Buffer;
  if (ctx.body instanceof Readable) {
    // A stream that ends within IN_ONE_CALL_BYTES (a page of 50 QSOs) is answered as a body in
    // memory; a longer one goes on through a gzip stream.
    const stream = ctx.body;
    const head = await readHead(stream, IN_ONE_CALL_BYTES);
    if (!head.ended) {
      // A flush per write keeps a slow export's pieces moving instead of waiting for a full block.
      const gzip = createGzip({ flush: constants.Z_SYNC_FLUSH, level: LEVEL });
      for (const chunk of head.chunks) gzip.write(chunk);
      pipeline(stream, gzip, () => undefined);
      answer(gzip);
      return;
    }
    body = Buffer.concat(head.chunks);
    ctx.body = body;
  } else {
    body = typeof ctx.body === 'string' || Buffer.isBuffer(ctx.body) ? ctx.body : JSON.stringify(ctx.body);
  }
  const bytes = Buffer.byteLength(body);
  if (bytes < MIN_BYTES) return;
  if (bytes <= IN_ONE_CALL_BYTES) {
    answer(gzipSync(body, { level: LEVEL }));
    return;
  }
  const gzip = createGzip({ level: LEVEL });
  gzip.end(body);
  answer(gzip);
};

/**
 * A stream's first pieces, until more than `limit` bytes have come (the stream is then paused,
 * its pieces so far returned) or it has ended. Its error, or its closing before its end, rejects
 * before any answer is sent.
 */
function readHead(stream: Readable, limit: number): Promise<{ chunks: Buffer[]; ended: boolean }> {
  if (stream.readableEnded) return Promise.resolve({ chunks: [], ended: true });
  if (stream.destroyed) return Promise.reject(stream.errored ?? new Error('the answer\'s stream was destroyed before it was sent'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const settle = (ended: boolean, error?: Error) => {
      stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (error) reject(error);
      else resolve({ chunks, ended });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes <= limit) return;
      stream.pause();
      settle(false);
    };
    const onEnd = () => settle(true);
    const onError = (error: Error) => settle(false, error);
    const onClose = () => settle(false, new Error('the answer\'s stream closed before its end'));
    stream.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
