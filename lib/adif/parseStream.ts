import { Transform, type TransformCallback } from 'node:stream';
import { AdifTokenizer, type AdifTokenizerOptions } from './tokenizer.js';
import type { AdifItem } from './types.js';

/** A reader fed bytes in chunks that returns the items each chunk completed (AdifTokenizer, AdxReader). */
export interface AdifItemReader {
  push(chunk: Buffer): AdifItem[];
  end(): AdifItem[];
}

/** Bytes in, the reader's AdifItem objects out. */
export function createItemStream(reader: AdifItemReader): Transform {
  const forward = (stream: Transform, read: () => AdifItem[], callback: TransformCallback) => {
    let items: AdifItem[];
    try {
      items = read();
    } catch (error) {
      callback(error as Error);
      return;
    }
    for (const item of items) stream.push(item);
    callback();
  };
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      forward(this, () => reader.push(chunk), callback);
    },
    flush(callback: TransformCallback) {
      forward(this, () => reader.end(), callback);
    },
  });
}

/** ADIF bytes in, AdifItem objects out (header first, then records and problems). */
export function createAdifParser(options?: AdifTokenizerOptions): Transform {
  return createItemStream(new AdifTokenizer(options));
}
