import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/**
 * `input` decompressed when it starts with the gzip magic bytes (a .gz file, or `gzip -c log.adi |
 * logbook import -`), else unchanged; the bytes read to decide are put back.
 */
export async function gunzipIfCompressed(input: Readable): Promise<{ input: Readable; compressed: boolean }> {
  const seen: Buffer[] = [];
  let length = 0;
  for await (const chunk of input.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    seen.push(chunk);
    length += chunk.length;
    if (length >= 2) break;
  }
  const head = Buffer.concat(seen);
  if (head.length) input.unshift(head);
  if (head.length < 2 || head[0] !== 0x1f || head[1] !== 0x8b) return { input, compressed: false };
  const gunzip = createGunzip();
  input.on('error', (error) => gunzip.destroy(error));
  return { input: input.pipe(gunzip), compressed: true };
}
