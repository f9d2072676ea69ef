import { ExportRecordFormatter, type ExportLocations } from './adifRecord.js';
import { ByteOutput } from './byteOutput.js';
import { CopyRows } from '../db/copyRows.js';

/** Slack beyond twice a piece's bytes: the last rows' reservations (each what its record could take) rarely grow the output. */
const RECORD_ROOM_BYTES = 8 * 1024;

/** ADIF records formatted from one piece of COPY output. */
export interface RecordBatch {
  /** The records, each ending "<EOR>\n" (inside JSON: "<EOR>\\n"). */
  bytes: Buffer;
  /** Per record: its QSO's id, and where it ends in `bytes`. */
  ids: number[];
  ends: number[];
}

/**
 * The export's COPY output (`COPY (SELECT EXPORT_SELECT_LIST …) TO STDOUT WITH (NULL '')`), in
 * pieces as the connection delivers them, turned into ADIF records.
 */
export class CopyRecordReader {
  private readonly formatter: ExportRecordFormatter;
  private readonly out = new ByteOutput();
  private ids: number[] = [];
  private ends: number[] = [];
  private readonly rows = new CopyRows((input, start, end) => {
    this.formatter.format(input, start, end, this.out);
    this.ids.push(this.formatter.id);
    this.ends.push(this.out.length);
  });

  /** `locations`: the export's (readExportLocations); `inJson`: the records as the inside of a JSON string (ExportRecordFormatter). */
  constructor(locations: ExportLocations, options: { inJson?: boolean } = {}) {
    this.formatter = new ExportRecordFormatter(locations, options);
  }

  /** The records of the rows `chunk` completes; null when it completes none. */
  read(chunk: Buffer): RecordBatch | null {
    // The records of a piece take about 1.8 times its bytes: room for them at once, not a chain
    // of doublings from ByteOutput's least size (a tenth of a page's formatting CPU, probe).
    this.out.reserve(2 * chunk.length + RECORD_ROOM_BYTES);
    this.rows.write(chunk);
    if (this.ids.length === 0) return null;
    const batch = { bytes: this.out.take(), ids: this.ids, ends: this.ends };
    this.ids = [];
    this.ends = [];
    return batch;
  }

  /** After the last piece: fails when the output ended inside a row. */
  end(): void {
    this.rows.end();
  }
}
