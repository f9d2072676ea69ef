import { Transform, type TransformCallback } from 'node:stream';
import { AdifTokenizer, type AdifTokenizerOptions } from './tokenizer.js';
import type { AdifItem } from './types.js';

/** ADIF bytes in, AdifItem objects out (header first, then records and problems). */
export function createAdifParser(options?: AdifTokenizerOptions): Transform {
  const tokenizer = new AdifTokenizer(options);
  const pushAll = (stream: Transform, items: AdifItem[]) => {
    for (const item of items) stream.push(item);
  };
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      pushAll(this, tokenizer.push(chunk));
      callback();
    },
    flush(callback: TransformCallback) {
      pushAll(this, tokenizer.end());
      callback();
    },
  });
}
