import { Transform, type TransformCallback } from 'node:stream';
import { CopyRecordReader } from '../../../../export/copyRecords.js';

/** Output is handed on in pieces of about this many bytes, not one write per COPY piece. */
const OUTPUT_BATCH_BYTES = 64 * 1024;

/** What each byte becomes inside a JSON string: itself (null), or its escape. */
const JSON_ESCAPES: ReadonlyArray<Buffer | null> = Array.from({ length: 256 }, (_, byte) => {
  if (byte === 0x22) return Buffer.from('\\"');
  if (byte === 0x5c) return Buffer.from('\\\\');
  if (byte === 0x0a) return Buffer.from('\\n');
  if (byte === 0x0d) return Buffer.from('\\r');
  if (byte === 0x09) return Buffer.from('\\t');
  if (byte < 0x20) return Buffer.from(`\\u${byte.toString(16).padStart(4, '0')}`);
  return null;
});

/**
 * UTF-8 bytes as the inside of a JSON string: runs without anything to escape are copied as
 * they are (UTF-8 sequences never contain a byte below 0x80), escapes put in between.
 */
export function jsonStringBytes(input: Buffer): Buffer {
  const pieces: Buffer[] = [];
  let runStart = 0;
  for (let i = 0; i < input.length; i++) {
    const escape = JSON_ESCAPES[input[i]!]!;
    if (escape === null) continue;
    if (i > runStart) pieces.push(input.subarray(runStart, i));
    pieces.push(escape);
    runStart = i + 1;
  }
  if (runStart === 0) return input;
  if (runStart < input.length) pieces.push(input.subarray(runStart));
  return Buffer.concat(pieces);
}

export interface AdifPageSummary {
  exported: number;
  lastFetchedId: number;
}

/**
 * COPY output of the export's rows in, the v2 ADIF list envelope out:
 * `{"data":{"adif":"<header><records>","exported":N,"lastfetchedid":ID},"meta":{…}}`, records
 * JSON-escaped and written as they are formatted, so a page is never held whole. `adif` is null
 * when no row came; `exported`, `lastfetchedid` and `meta` follow the document, when they are
 * known.
 */
export function adifListEnvelope(header: string, sinceId: number, meta: (summary: AdifPageSummary) => unknown): Transform {
  const reader = new CopyRecordReader();
  const summary: AdifPageSummary = { exported: 0, lastFetchedId: sinceId };
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  const hold = (piece: Buffer) => {
    pending.push(piece);
    pendingBytes += piece.length;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      try {
        const batch = reader.read(chunk);
        if (batch !== null) {
          if (summary.exported === 0) hold(Buffer.from(`{"data":{"adif":${JSON.stringify(header).slice(0, -1)}`));
          hold(jsonStringBytes(batch.bytes));
          summary.exported += batch.ids.length;
          for (const id of batch.ids) if (id > summary.lastFetchedId) summary.lastFetchedId = id;
        }
      } catch (error) {
        callback(error as Error);
        return;
      }
      if (pendingBytes >= OUTPUT_BATCH_BYTES) {
        this.push(Buffer.concat(pending, pendingBytes));
        pending.length = 0;
        pendingBytes = 0;
      }
      callback();
    },
    flush(callback: TransformCallback) {
      try {
        reader.end();
      } catch (error) {
        callback(error as Error);
        return;
      }
      const opening = summary.exported === 0 ? '{"data":{"adif":null' : '"';
      const closing = `${opening},"exported":${summary.exported},"lastfetchedid":${summary.lastFetchedId}},"meta":${JSON.stringify(meta(summary))}}`;
      this.push(Buffer.concat([...pending, Buffer.from(closing)]));
      callback();
    },
  });
}
