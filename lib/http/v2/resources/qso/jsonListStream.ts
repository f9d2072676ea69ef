import { Transform, type TransformCallback } from 'node:stream';
import type { CopyPage } from '../../../../qso/copyJson.js';

/**
 * A page's COPY output (or its rows, in object mode when the page says its pieces are objects)
 * in, the v2 list envelope out: `{"data":[` the items `],"meta":{…}}`. The items are written as
 * their rows arrive, so a page is never held whole; `meta` is built after the last row, when
 * what the page held is known (its count, the feed's cursor).
 */
export class CopyPageEnvelope<Chunk = Buffer> extends Transform {
  private opened = false;

  constructor(private readonly page: CopyPage<Chunk>, private readonly meta: () => unknown) {
    super({ writableObjectMode: page.objectChunks });
  }

  override _transform(chunk: Chunk, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.open();
    let items: Buffer | null;
    try {
      items = this.page.read(chunk);
    } catch (error) {
      callback(error as Error);
      return;
    }
    callback(null, items ?? undefined);
  }

  override _flush(callback: TransformCallback): void {
    try {
      this.page.end();
    } catch (error) {
      callback(error as Error);
      return;
    }
    this.open();
    callback(null, `],"meta":${JSON.stringify(this.meta())}}`);
  }

  private open(): void {
    if (this.opened) return;
    this.opened = true;
    this.push('{"data":[');
  }
}
