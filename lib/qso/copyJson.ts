import { QSO_COLUMNS as TABLE_COLUMNS } from '../db/qsoColumns.js';
import { ByteOutput } from '../export/byteOutput.js';
import { CopyRows } from '../db/copyRows.js';
import { QSO_JSON_FIELDS } from './present.js';

/**
 * The QSO object's JSON (present.ts) written straight from the text `COPY (SELECT
 * qsoSelectList() …) TO STDOUT` gives, byte by byte, without a string per value: pages of
 * thousands of QSOs (the change feed) spend most of their time decoding and re-encoding values
 * otherwise. The text is exactly JSON.stringify(presentQso(row)) for the same row (a test holds
 * them together).
 *
 * COPY's text format: values separated by tabs, the row ended by a newline, NULL as `\N`, and
 * inside a value backslash, backspace, form feed, newline, carriage return, tab and vertical tab
 * written as `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, `\v`; every other byte as it is. JSON needs
 * the quote and the other control characters escaped too, and `\v` as `\u000b`.
 */

const TAB = 0x09;
const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LETTER_N = 0x4e;

/** The JSON text (after its backslash) of each COPY escape, by the escaped letter. */
const JSON_ESCAPES = new Map<number, Buffer>(
  Object.entries({ '\\': '\\', b: 'b', f: 'f', n: 'n', r: 'r', t: 't', v: 'u000b' }).map(([letter, json]) => [letter.charCodeAt(0), Buffer.from(json)]),
);
const HEX = Buffer.from('0123456789abcdef');

/** Most bytes one input byte can become: a raw control character as `\u00XX`. */
const MAX_GROWTH = 6;

const NUMERIC_COLUMNS = new Set(TABLE_COLUMNS.filter((column) => column.kind === 'int' || column.kind === 'bigint').map((column) => column.name));

/** How the QSO object writes a field, as text (QsoPageFromRows) or as bytes (Field, here). */
export interface FieldText<Text = string> {
  /** `{"name":` / `,"name":` (every field) or `"name":` (set fields only: the separator varies). */
  readonly key: Text;
  /** Written as it stands (a number) rather than as a JSON string. */
  readonly numeric: boolean;
  /** What stands for NULL in the full object: `""` or `null`. */
  readonly unset: Text;
}

type Field = FieldText<Buffer>;

/** The QSO object's fields in output order, as text. */
export function qsoFieldTexts(setOnly: boolean): Array<FieldText> {
  return QSO_JSON_FIELDS.map(([field, column, kind], index) => ({
    key: `${setOnly ? '' : index === 0 ? '{' : ','}${JSON.stringify(field)}:`,
    numeric: NUMERIC_COLUMNS.has(column),
    unset: kind === 'text' ? '""' : 'null',
  }));
}

function fields(setOnly: boolean): Field[] {
  return qsoFieldTexts(setOnly).map(({ key, numeric, unset }) => ({ key: Buffer.from(key), numeric, unset: Buffer.from(unset) }));
}

/** Bytes a row adds beyond its values: every key and unset value. */
function fixedBytes(list: readonly Field[]): number {
  return list.reduce((sum, field) => sum + field.key.length + field.unset.length + 1, 2);
}

/**
 * Copies a few bytes (a key, an escape; `source` from `from` to `to`) into `bytes` at `at` and
 * returns where they end. A loop, because Buffer#copy's call costs more than copying a dozen
 * bytes (in a profile the key copies took more time than the values themselves).
 */
export function put(source: Buffer, bytes: Buffer, at: number, from = 0, to = source.length): number {
  for (let index = from; index < to; index++) bytes[at++] = source[index]!;
  return at;
}

/**
 * Every field's key and unset value one after the other, and where each field's part starts:
 * a run of NULL columns from field i up to field j is the bytes from starts[i] to starts[j],
 * one copy instead of a key and a value per field (most of a full object's fields are unset).
 */
interface UnsetRuns {
  readonly bytes: Buffer;
  readonly starts: readonly number[];
}

function unsetRuns(list: readonly Field[]): UnsetRuns {
  const parts = list.map((field) => Buffer.concat([field.key, field.unset]));
  const starts = [0];
  for (const part of parts) starts.push(starts.at(-1)! + part.length);
  return { bytes: Buffer.concat(parts), starts };
}

/**
 * Writes QSO objects from COPY rows. It holds no state between rows: take the process's one
 * writer of each form from qsoJsonWriter (building one costs about 150 small buffers, which
 * per page was a tenth of a 50-QSO list request's CPU).
 */
export class QsoJsonFromCopy {
  private readonly fields: Field[];
  private readonly fixed: number;
  private readonly unset: UnsetRuns;

  /** `setOnly`: without the unset fields ('' or NULL), for clients that read a missing field as unset (omit_empty). */
  constructor(private readonly setOnly: boolean) {
    this.fields = fields(setOnly);
    this.fixed = fixedBytes(this.fields);
    this.unset = unsetRuns(this.fields);
  }

  /**
   * Writes the QSO whose columns start at `start` in `input` (a COPY row, QSO_COLUMNS in
   * present.ts order, ending at `rowEnd`, its newline) and returns where its last value ends.
   */
  write(input: Buffer, start: number, rowEnd: number, out: ByteOutput): number {
    out.reserve(this.fixed + MAX_GROWTH * (rowEnd - start));
    const bytes = out.bytes;
    let at = out.length;
    let pos = start;
    let written = 0;
    for (let index = 0; index < this.fields.length; index++) {
      if (index > 0) {
        if (input[pos] !== TAB) throw new Error('COPY row has fewer columns than a QSO');
        pos++;
      }
      const field = this.fields[index]!;
      const isNull = input[pos] === BACKSLASH && input[pos + 1] === LETTER_N;
      const isEmpty = !isNull && (input[pos] === TAB || input[pos] === NEWLINE);
      if (this.setOnly) {
        if (isNull) {
          pos += 2;
          continue;
        }
        if (isEmpty) continue;
        bytes[at++] = written === 0 ? 0x7b /* { */ : 0x2c /* , */;
      } else if (isNull) {
        // This NULL and the NULLs right after it, written as one run.
        const first = index;
        pos += 2;
        while (index + 1 < this.fields.length && input[pos] === TAB && input[pos + 1] === BACKSLASH && input[pos + 2] === LETTER_N) {
          index++;
          pos += 3;
        }
        const { bytes: runs, starts } = this.unset;
        at += runs.copy(bytes, at, starts[first]!, starts[index + 1]!);
        continue;
      }
      written++;
      at = put(field.key, bytes, at);
      if (field.numeric) {
        for (let byte = input[pos]!; byte !== TAB && byte !== NEWLINE; byte = input[++pos]!) bytes[at++] = byte;
        continue;
      }
      bytes[at++] = QUOTE;
      for (let byte = input[pos]!; byte !== TAB && byte !== NEWLINE; byte = input[++pos]!) {
        if (byte === BACKSLASH) {
          const escape = JSON_ESCAPES.get(input[++pos]!);
          if (escape === undefined) throw new Error(`COPY row has an unknown escape \\${String.fromCharCode(input[pos]!)}`);
          bytes[at++] = BACKSLASH;
          at = put(escape, bytes, at);
        } else if (byte === QUOTE) {
          bytes[at++] = BACKSLASH;
          bytes[at++] = QUOTE;
        } else if (byte < 0x20) {
          at += bytes.write('\\u00', at, 'latin1');
          bytes[at++] = HEX[byte >> 4]!;
          bytes[at++] = HEX[byte & 15]!;
        } else {
          bytes[at++] = byte;
        }
      }
      bytes[at++] = QUOTE;
    }
    if (this.setOnly && written === 0) bytes[at++] = 0x7b;
    bytes[at++] = 0x7d /* } */;
    out.length = at;
    return pos;
  }
}

const FULL_OBJECTS = new QsoJsonFromCopy(false);
const SET_FIELDS = new QsoJsonFromCopy(true);

/**
 * Makes room in `out` for the JSON of the QSOs of a piece of COPY output before they are
 * written: a full QSO object takes about 4.7 times its COPY row (fewer with omit_empty), and
 * growing the output by doubling from ByteOutput's least size cost a 1,000-QSO page a fifth of
 * its writing CPU (probe, benchmarks/RESULTS.md).
 */
export function reserveForObjects(out: ByteOutput, piece: Buffer): void {
  out.reserve(5 * piece.length + 16 * 1024);
}

/** The process's writer of full QSO objects, or of their set fields only (`setOnly`, omit_empty). */
export function qsoJsonWriter(setOnly: boolean): QsoJsonFromCopy {
  return setOnly ? SET_FIELDS : FULL_OBJECTS;
}

/** A page's COPY output (or its rows, one a chunk) in, its items' JSON text out (comma-separated, no brackets). */
export interface CopyPage<Chunk = Buffer> {
  /** Whether its pieces are objects (rows) rather than bytes, which the stream feeding it must know; typed so that it cannot disagree with `Chunk`. */
  readonly objectChunks: Chunk extends Buffer ? false : true;
  /** The JSON of the items the piece completes; null when it completes none. */
  read(chunk: Chunk): Buffer | null;
  /** After the last piece: fails when the output ended inside a row. */
  end(): void;
}

/** A QSO list page's COPY output (qsoSelectList's columns) as the QSO objects' JSON. */
export class QsoPageFromCopy implements CopyPage {
  readonly objectChunks = false;
  /** QSOs written so far. */
  count = 0;
  private readonly qso = qsoJsonWriter(false);
  private readonly out = new ByteOutput();
  private readonly rows = new CopyRows((input, start, end) => {
    if (this.count++ > 0) {
      this.out.reserve(1);
      this.out.bytes[this.out.length++] = 0x2c /* , */;
    }
    this.qso.write(input, start, end, this.out);
  });

  read(chunk: Buffer): Buffer | null {
    reserveForObjects(this.out, chunk);
    this.rows.write(chunk);
    return this.out.length > 0 ? this.out.take() : null;
  }

  end(): void {
    this.rows.end();
  }
}
