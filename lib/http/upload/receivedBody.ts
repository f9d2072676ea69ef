import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SpoolFile } from '../spool.js';

/** A request body read to its end: `stream` reads it back, `discard` frees what holds it (call once). */
export interface ReceivedBody {
  readonly stream: Readable;
  discard(): Promise<void>;
}

/**
 * Reads a synchronous upload's body to its end before its import starts. An import holds a bulk
 * connection and its location's import lock from its first record to its commit: fed while the
 * body arrives, a client sending a record every few seconds held both for as long as it kept
 * sending. Read first, the import holds them only while it reads memory or the local disk.
 * `inMemory` (a body declared small and sent as it is, see takesUploadSlot) keeps the bytes in
 * memory; any other body goes to a spool file of the process (0600), which only a request
 * holding an upload place writes, so the disk taken is at most the places times max_body_bytes.
 */
export async function receiveBody(body: Readable, inMemory: boolean, folder: string): Promise<ReceivedBody> {
  if (inMemory) {
    const chunks: Buffer[] = [];
    for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) chunks.push(chunk);
    return { stream: Readable.from(chunks, { objectMode: false }), discard: async () => undefined };
  }
  const spool = await SpoolFile.create(folder);
  try {
    await pipeline(body, spool.file);
  } catch (error) {
    await spool.discard();
    throw error;
  }
  return { stream: spool.open(), discard: () => spool.discard() };
}
