import { Transform, type TransformCallback } from 'node:stream';
import type { AdifItemReader } from './itemReader.js';
import { AdifTokenizer, type AdifTokenizerOptions } from './tokenizer.js';

/** Bytes in, the reader's AdifItem objects out. */
export function createItemStream(reader: AdifItemReader): Transform {
  const forward = (read: () => void, callback: TransformCallback) => {
    try {
      read();
    } catch (error) {
      callback(error as Error);
      return;
    }
    callback();
  };
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      forward(() => reader.push(chunk, (item) => this.push(item)), callback);
    },
    flush(callback: TransformCallback) {
      forward(() => reader.end((item) => this.push(item)), callback);
    },
  });
}

/** ADIF bytes in, AdifItem objects out (header first, then records and problems). */
export function createAdifParser(options?: AdifTokenizerOptions): Transform {
  return createItemStream(new AdifTokenizer(options));
}
