import { Transform, type TransformCallback } from 'node:stream';
import { AdxReader } from '../adif/adx.js';
import { AdifTokenizer } from '../adif/tokenizer.js';
import type { AdifItemReader, AdifItemSink } from '../adif/itemReader.js';
import type { RawRecord } from '../adif/normalize.js';
import { CopyRows } from './copyRows.js';
import { UnreadableInputError } from './errors.js';
import type { RecordProcessor } from './recordProcessor.js';
import type { ImportOptions } from './types.js';

/**
 * The JavaScript half of an import as one Transform each: input in, COPY text out. The reader,
 * normaliser and row formatter run inside the Transform (no object stream per record between
 * them), so the whole pipeline is input → Transform → COPY stream, with back-pressure from
 * PostgreSQL reaching the input.
 */

export type AdifFormat = 'adi' | 'adx';

type Progress = ImportOptions['onProgress'];

/** How much of the input's start is kept for an UnreadableInputError (which quotes less). */
const FIRST_BYTES = 64;

/** Most bytes read without letting the event loop run (a few milliseconds of work). */
const SLICE_BYTES = 64 * 1024;

/** Leading white space beyond this decides for .adi: an ADX document starts with its markup. */
const MAX_SNIFF_BYTES = 64 * 1024;
const BOM = [0xef, 0xbb, 0xbf];

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/**
 * The format of a document from its first bytes: ADX when it opens (after a byte-order mark and
 * white space) with `<?xml` or `<ADX`, else ADIF. null when `head` is too short to tell and more
 * may come (`complete` false).
 */
export function sniffAdifFormat(head: Buffer, complete: boolean): AdifFormat | null {
  let start = 0;
  if (BOM.every((byte, i) => head[i] === byte)) start = BOM.length;
  while (start < head.length && isSpace(head[start]!)) start++;
  const opening = head.subarray(start, start + 5).toString('latin1').toLowerCase();
  if (opening === '<?xml' || opening.startsWith('<adx')) return 'adx';
  if (!complete && head.length < MAX_SNIFF_BYTES && ('<?xml'.startsWith(opening) || '<adx'.startsWith(opening))) return null;
  return 'adi';
}

export function createItemReader(format: AdifFormat): AdifItemReader {
  return format === 'adx' ? new AdxReader() : new AdifTokenizer();
}

/**
 * Rows leave as RowChunks (strings by kind, copyRows.ts), one input chunk's worth at a time: the
 * staging writer encodes them straight into reused memory, where a byte stream would make a
 * Buffer of every chunk.
 */
const ROWS_OUT = { readableObjectMode: true, readableHighWaterMark: 1 } as const;

/**
 * ADIF or ADX bytes in, COPY rows out; the format is sniffed from the first bytes unless given.
 * An input in which the reader recognised nothing fails with UnreadableInputError.
 */
export class AdifRowsTransform extends Transform {
  private reader: AdifItemReader | null = null;
  /** COPY rows of the chunk being read, handed on at its end. */
  private readonly rows: CopyRows;
  /** The reader's sink: each item is processed as soon as it is read. */
  private readonly processItem: AdifItemSink = (item) => this.processor.processItem(item, this.rows);
  private head: Buffer[] = [];
  private bytes = 0;
  /** The input's first bytes, for the message of an UnreadableInputError. */
  private firstBytes = Buffer.alloc(0);

  constructor(
    private readonly processor: RecordProcessor,
    private readonly format: AdifFormat | undefined,
    private readonly onProgress: Progress,
  ) {
    super(ROWS_OUT);
    this.rows = new CopyRows(processor.stationId);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.readSlices(chunk, 0, callback);
  }

  /**
   * Reads `chunk` from `from` on, a slice at a time, letting the event loop run between slices:
   * a large chunk (v1's whole `string`) would otherwise hold it for as long as it takes to read.
   */
  private readSlices(chunk: Buffer, from: number, callback: TransformCallback): void {
    if (this.destroyed) {
      callback();
      return;
    }
    try {
      const to = Math.min(chunk.length, from + SLICE_BYTES);
      const slice = from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to);
      if (this.firstBytes.length < FIRST_BYTES) this.firstBytes = Buffer.concat([this.firstBytes, slice.subarray(0, FIRST_BYTES)]);
      this.bytes += slice.length;
      if (this.reader === null) this.start(slice, false);
      else this.readRows(this.reader, slice);
      this.progress();
      if (to < chunk.length) setImmediate(() => this.readSlices(chunk, to, callback));
      else callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      if (this.reader === null) this.start(Buffer.alloc(0), true);
      const reader = this.reader!;
      reader.end(this.processItem);
      if (!reader.recognized) throw new UnreadableInputError(this.firstBytes);
      this.handOnRows();
      this.progress();
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  /** Collects the first bytes until the format is known, then starts the reader on them. */
  private start(chunk: Buffer, complete: boolean): void {
    this.head.push(chunk);
    const head = Buffer.concat(this.head);
    const format = this.format ?? sniffAdifFormat(head, complete);
    if (format === null) return;
    this.head = [];
    this.reader = createItemReader(format);
    this.readRows(this.reader, head);
  }

  /** Feeds the reader one chunk and hands on the rows it made. */
  private readRows(reader: AdifItemReader, chunk: Buffer): void {
    reader.push(chunk, this.processItem);
    this.handOnRows();
  }

  private handOnRows(): void {
    for (const chunk of this.rows.take()) this.push(chunk);
  }

  private progress(): void {
    this.onProgress?.({ records: this.processor.parsed, bytes: this.bytes });
  }
}

/** Rows are handed on in pieces of about this many characters. */
const ROW_BATCH_CHARS = 64 * 1024;

/** JSON records (lower-case names) in, COPY rows out. */
export class RecordRowsTransform extends Transform {
  private readonly pending: CopyRows;

  constructor(
    private readonly processor: RecordProcessor,
    private readonly onProgress: Progress,
  ) {
    super({ ...ROWS_OUT, writableObjectMode: true });
    this.pending = new CopyRows(processor.stationId);
  }

  override _transform(record: RawRecord, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.processor.process(record, this.processor.parsed + 1, null, this.pending);
      if (this.pending.length >= ROW_BATCH_CHARS) this.pushPending();
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    this.pushPending();
    callback();
  }

  private pushPending(): void {
    for (const chunk of this.pending.take()) this.push(chunk);
    this.onProgress?.({ records: this.processor.parsed, bytes: 0 });
  }
}
