import { Transform, type TransformCallback } from 'node:stream';

/** Output is handed on in pieces of about this many characters, not one write per row. */
const OUTPUT_BATCH_CHARS = 16 * 1024;

/**
 * Rows in (object mode), each rendered as JSON text by `render`, the v2 list envelope out as
 * text: `{"data":[…],"meta":{…}}`. Rows are
 * written as they arrive, so a page is never held as one array; `meta` is built after the last
 * row, when the number of rows on the page is known.
 */
export function jsonListEnvelope<Row>(render: (row: Row) => string, meta: (count: number) => unknown): Transform {
  let count = 0;
  let pending = '{"data":[';
  return new Transform({
    writableObjectMode: true,
    transform(row: Row, _encoding: BufferEncoding, callback: TransformCallback) {
      try {
        pending += (count === 0 ? '' : ',') + render(row);
      } catch (error) {
        callback(error as Error);
        return;
      }
      count++;
      if (pending.length >= OUTPUT_BATCH_CHARS) {
        this.push(pending, 'utf8');
        pending = '';
      }
      callback();
    },
    flush(callback: TransformCallback) {
      this.push(`${pending}],"meta":${JSON.stringify(meta(count))}}`, 'utf8');
      callback();
    },
  });
}
