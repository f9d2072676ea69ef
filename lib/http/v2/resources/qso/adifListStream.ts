import { Transform, type TransformCallback } from 'node:stream';
import { CopyRecordReader } from '../../../../export/copyRecords.js';
import type { ExportLocations } from '../../../../export/adifRecord.js';

/** Output is handed on in pieces of about this many bytes, not one write per COPY piece. */
const OUTPUT_BATCH_BYTES = 64 * 1024;

export interface AdifPageSummary {
  exported: number;
  lastFetchedId: number;
}

/**
 * COPY output of the export's rows in, the v2 ADIF list envelope out:
 * `{"data":{"adif":"<header><records>","exported":N,"lastfetchedid":ID},"meta":{…}}`, records
 * JSON-escaped as they are formatted and written, so a page is never held whole. `adif` is null
 * when no row came; `exported`, `lastfetchedid` and `meta` follow the document, when they are
 * known.
 */
export function adifListEnvelope(header: string, locations: ExportLocations, sinceId: number, meta: (summary: AdifPageSummary) => unknown): Transform {
  const reader = new CopyRecordReader(locations, { inJson: true });
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
          hold(batch.bytes);
          summary.exported += batch.ids.length;
          for (const id of batch.ids) if (id > summary.lastFetchedId) summary.lastFetchedId = id;
        }
      } catch (error) {
        callback(error as Error);
        return;
      }
      if (pendingBytes >= OUTPUT_BATCH_BYTES) {
        this.push(pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes));
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
