import type { IncomingMessage } from 'node:http';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ApiError } from '../errors.js';
import { payloadTooLarge } from '../body.js';

/**
 * A request body as a stream of its decoded bytes: `Content-Encoding: gzip` is undone on the
 * fly, and `limit` applies to the decoded bytes, so a small compressed body that expands
 * beyond it (a decompression bomb) fails with 413 after at most `limit` bytes, never holding
 * more than a chunk in memory. Errors (413, 400 for a broken gzip stream) surface on the
 * returned stream; the rest of the request is then read and dropped so that the answer can
 * still go out on this connection.
 */
export function decodedBody(req: IncomingMessage, limit: number): Readable {
  const declared = Number(req.headers['content-length'] ?? 0);
  const encoding = contentEncoding(req);
  if (encoding === 'identity' && declared > limit) throw payloadTooLarge(limit);
  const counter = new ByteLimit(limit);
  const drain = () => stopReading(req);
  counter.once('error', drain);
  // pipe() passes no error on: a client gone mid-upload ('aborted') must end the reading, and
  // roll back an import fed from it, instead of leaving it waiting with its transaction open.
  req.once('error', (error) => counter.destroy(error));
  if (encoding === 'identity') return req.pipe(counter);
  const gunzip = createGunzip();
  gunzip.once('error', (error) => {
    drain();
    counter.destroy(new ApiError(400, 'validation_error', `Request body is not valid gzip: ${error.message}`));
  });
  // However the body ends (read, failed, or dropped by its reader), the decoder stops with it.
  counter.once('close', () => gunzip.destroy());
  // gunzip's writable side stops the request when the decoder falls behind, and the counter's
  // the decoder: back-pressure from whoever reads the body reaches the socket.
  return req.pipe(gunzip).pipe(counter);
}

/** Reads the rest of the request and drops it, so that an early error answer still goes out on this connection. */
export function stopReading(req: IncomingMessage): void {
  req.unpipe();
  req.resume();
}

/** `identity` or `gzip`; 415 for any other coding, named in the error. */
export function contentEncoding(req: IncomingMessage): 'identity' | 'gzip' {
  const value = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (value === '' || value === 'identity') return 'identity';
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  throw new ApiError(415, 'validation_error', `Content-Encoding "${value}" is not supported; send identity or gzip`, { supported: ['identity', 'gzip'] });
}

/** Passes bytes through and fails with 413 once more than `limit` have passed. */
export class ByteLimit extends Transform {
  /** Bytes passed so far. */
  seen = 0;

  constructor(private readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) callback(payloadTooLarge(this.limit));
    else callback(null, chunk);
  }
}
