/**
 * One uWS HTTP request/response pair made safe for async handlers: uWS
 * responses must not be touched after the client aborts, must be corked when
 * written outside the request callback, and request bodies arrive as chunks
 * that are only valid during their callback.
 */
import type { HttpResponse } from 'uWebSockets.js';

export type BodyResult = { kind: 'body'; body: Buffer } | { kind: 'too_large' } | { kind: 'aborted' };

export interface HttpExchange {
  /** Sends a complete response once; later calls and calls after an abort do nothing. */
  send(status: string, body?: string, contentType?: string, closeConnection?: boolean): void;
  /** Collects the body, giving up (and no longer buffering) as soon as it exceeds `limit` bytes. */
  readBody(limit: number): Promise<BodyResult>;
}

/** Must be called synchronously inside the uWS request handler; `headers` go on every response. */
export function createHttpExchange(res: HttpResponse, headers: Readonly<Record<string, string>> = {}): HttpExchange {
  let aborted = false;
  let answered = false;
  let onAbort: (() => void) | undefined;
  res.onAborted(() => {
    aborted = true;
    onAbort?.();
  });

  return {
    send(status, body = '', contentType, closeConnection = false) {
      if (aborted || answered) return;
      answered = true;
      res.cork(() => {
        res.writeStatus(status);
        for (const [name, value] of Object.entries(headers)) res.writeHeader(name, value);
        if (contentType) res.writeHeader('Content-Type', contentType);
        res.end(body, closeConnection);
      });
    },
    readBody(limit) {
      return new Promise((resolve) => {
        if (aborted) return resolve({ kind: 'aborted' });
        onAbort = () => resolve({ kind: 'aborted' });
        const chunks: Buffer[] = [];
        let received = 0;
        let finished = false;
        res.onData((chunk, isLast) => {
          if (finished) return;
          received += chunk.byteLength;
          if (received > limit) {
            finished = true;
            chunks.length = 0;
            return resolve({ kind: 'too_large' });
          }
          // uWS reuses the chunk's memory after this callback returns: copy it.
          chunks.push(Buffer.from(new Uint8Array(chunk)));
          if (isLast) {
            finished = true;
            resolve({ kind: 'body', body: Buffer.concat(chunks, received) });
          }
        });
      });
    },
  };
}
