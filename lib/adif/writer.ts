import { Transform, type TransformCallback } from 'node:stream';

/** ADIF 3.1 (.adi) output. */

export interface AdifHeaderOptions {
  programId: string;
  programVersion: string;
  createdAt: Date;
  adifVersion: string;
}

/** A record to write: field name → value pairs, in output order. */
export type AdifFieldPairs = Iterable<readonly [string, string]>;

/** Output is handed on in pieces of about this many characters. */
const OUTPUT_BATCH_CHARS = 64 * 1024;

/** `YYYYMMDD HHMMSS` in UTC, the ADIF timestamp form. */
export function formatAdifTimestamp(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getUTCFullYear()}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())} ` +
    `${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}`
  );
}

/** Length of a value as ADIF lengths are written here: Unicode code points. */
export function codePointLength(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** Ends every record: one record per line. */
export const ADIF_RECORD_END = '<EOR>\n';

/** `<NAME:` for each field name seen, validated once. */
const tagOpenings = new Map<string, string>();
const MAX_CACHED_NAMES = 10_000;

/** `<NAME:` for a field name; throws for a name ADIF cannot carry. */
export function adifFieldOpening(name: string): string {
  let opening = tagOpenings.get(name);
  if (opening === undefined) {
    if (name === '' || /[<>:\s]/.test(name)) throw new Error(`ADIF field name ${JSON.stringify(name)} cannot be written`);
    opening = `<${name}:`;
    if (tagOpenings.size < MAX_CACHED_NAMES) tagOpenings.set(name, opening);
  }
  return opening;
}

/** `<NAME:LEN>value`. */
export function formatAdifField(name: string, value: string): string {
  return `${adifFieldOpening(name)}${codePointLength(value)}>${value}`;
}

/** The free-text line that opens an exported header. */
export function adifHeaderComment(options: AdifHeaderOptions): string {
  return `ADIF export from ${options.programId} ${options.programVersion}`;
}

export function formatAdifHeader(options: AdifHeaderOptions): string {
  const fields: Array<[string, string]> = [
    ['ADIF_VER', options.adifVersion],
    ['PROGRAMID', options.programId],
    ['PROGRAMVERSION', options.programVersion],
    ['CREATED_TIMESTAMP', formatAdifTimestamp(options.createdAt)],
  ];
  const lines = [adifHeaderComment(options)];
  for (const [name, value] of fields) if (value !== '') lines.push(formatAdifField(name, value));
  lines.push('<EOH>', '');
  return lines.join('\n');
}

/**
 * One record on one line: `<NAME:LEN>value` separated by spaces, then `<EOR>`.
 * Empty values are left out; a record with none yields ''.
 */
export function formatAdifRecord(fields: AdifFieldPairs): string {
  let line = '';
  for (const [name, value] of fields) {
    if (value === '') continue;
    line += formatAdifField(name, value) + ' ';
  }
  return line === '' ? '' : line + ADIF_RECORD_END;
}

/** Stream of records (field pairs) in, ADIF document out, header first. */
export function createAdifWriter(header: AdifHeaderOptions): Transform {
  return createDocumentWriter(formatAdifHeader(header), formatAdifRecord, '');
}

/**
 * A Transform writing a text document: `head`, one formatted piece per record
 * written to it, then `foot`. Shared by the ADIF and ADX writers.
 */
export function createDocumentWriter(head: string, formatRecord: (fields: AdifFieldPairs) => string, foot: string): Transform {
  let pending = head;
  return new Transform({
    writableObjectMode: true,
    transform(fields: AdifFieldPairs, _encoding: BufferEncoding, callback: TransformCallback) {
      try {
        pending += formatRecord(fields);
      } catch (error) {
        callback(error as Error);
        return;
      }
      if (pending.length >= OUTPUT_BATCH_CHARS) {
        this.push(pending, 'utf8');
        pending = '';
      }
      callback();
    },
    flush(callback: TransformCallback) {
      pending += foot;
      if (pending !== '') this.push(pending, 'utf8');
      callback();
    },
  });
}
