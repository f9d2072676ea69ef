import type { AdifItem, AdifParseResult } from './types.js';

/** Receives a reader's items one at a time, as each is completed. */
export type AdifItemSink = (item: AdifItem) => void;

/**
 * A reader fed bytes in chunks (AdifTokenizer, AdxReader). Items go to the sink as soon as they
 * are complete rather than being gathered per chunk: a chunk's records then never pile up, and
 * none lives long enough to be promoted to V8's old generation, which kept a million-record
 * import's heap from growing in bursts.
 */
export interface AdifItemReader {
  push(chunk: Buffer, sink: AdifItemSink): void;
  /** Signals the end of input (at least the header item comes out, if it has not yet). */
  end(sink: AdifItemSink): void;
  /**
   * Whether the input so far showed it is a document of the reader's format: an `<EOH>` or a
   * record (.adi), the `<ADX>` root element (ADX). A header-only document counts; an empty or
   * binary input does not.
   */
  readonly recognized: boolean;
}

/** Every item `chunks` yield, in order: for callers that want them all at once. */
export function readItems(reader: AdifItemReader, chunks: Iterable<Buffer>): AdifItem[] {
  const items: AdifItem[] = [];
  const sink: AdifItemSink = (item) => items.push(item);
  for (const chunk of chunks) reader.push(chunk, sink);
  reader.end(sink);
  return items;
}

/** Reads a whole document at once. */
export function readDocument(reader: AdifItemReader, input: string | Buffer): AdifParseResult {
  const result: AdifParseResult = { header: { comment: '', fields: {} }, records: [], problems: [] };
  const sink: AdifItemSink = (item) => {
    if (item.kind === 'header') result.header = item.header;
    else if (item.kind === 'record') result.records.push({ fields: item.fields, recordNo: item.recordNo, line: item.line });
    else result.problems.push(item.problem);
  };
  reader.push(typeof input === 'string' ? Buffer.from(input, 'utf8') : input, sink);
  reader.end(sink);
  return result;
}
