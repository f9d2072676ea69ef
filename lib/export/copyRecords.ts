import { ExportRecordFormatter } from './adifRecord.js';
import { ByteOutput } from './byteOutput.js';

/** ADIF records formatted from one piece of COPY output. */
export interface RecordBatch {
  /** The records, each ending "<EOR>\n". */
  bytes: Buffer;
  /** Per record: its QSO's id, and where it ends in `bytes`. */
  ids: number[];
  ends: number[];
}

const NEWLINE = 0x0a;

/**
 * The export's COPY output (`COPY (SELECT EXPORT_SELECT_LIST …) TO STDOUT WITH (NULL '')`), in
 * pieces as the connection delivers them, turned into ADIF records: a row cut by the end of a
 * piece waits for the next one.
 */
export class CopyRecordReader {
  private readonly formatter = new ExportRecordFormatter();
  private readonly out = new ByteOutput();
  private partial: Buffer | null = null;

  /** The records of the rows `chunk` completes; null when it completes none. */
  read(chunk: Buffer): RecordBatch | null {
    const input: Buffer = this.partial === null ? chunk : Buffer.concat([this.partial, chunk]);
    const ids: number[] = [];
    const ends: number[] = [];
    let start = 0;
    for (let end = input.indexOf(NEWLINE); end !== -1; end = input.indexOf(NEWLINE, start)) {
      this.formatter.format(input, start, end, this.out);
      ids.push(this.formatter.id);
      ends.push(this.out.length);
      start = end + 1;
    }
    this.partial = start < input.length ? input.subarray(start) : null;
    return ids.length > 0 ? { bytes: this.out.take(), ids, ends } : null;
  }

  /** After the last piece: fails when the output ended inside a row. */
  end(): void {
    if (this.partial !== null) throw new Error('COPY output ended inside a row');
  }
}
