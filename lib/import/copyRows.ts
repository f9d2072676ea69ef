import { formatCopyRow } from './copyText.js';
import { INSERT_COLUMNS, isMarkedForMatch } from './rowValues.js';

/**
 * An import's COPY rows, sorted by what becomes of them: a row to insert goes straight into
 * `qso` (its text: the location, then INSERT_COLUMNS, the columns `COPY qso` names), a row to
 * match with stored QSOs into the staging table (INSERT_COLUMNS, then MATCH_COLUMNS). The two
 * kinds travel in separate chunks; within a kind the rows keep the order they were read in.
 */

export type RowKind = 'insert' | 'match';

export interface RowChunk {
  readonly kind: RowKind;
  readonly text: string;
}

/** The rows read from one piece of input, by kind, until taken. */
export class CopyRows {
  private insert = '';
  private match = '';
  private readonly prefix: string;

  constructor(stationId: number) {
    this.prefix = `${stationId.toFixed(0)}\t`;
  }

  /** A row (INSERT_COLUMNS, then MATCH_COLUMNS): to match when markForMatch marked it, else to insert. */
  add(values: ReadonlyArray<string | null>): void {
    if (!isMarkedForMatch(values)) this.insert += this.prefix + formatCopyRow(values, INSERT_COLUMNS.length);
    else this.match += formatCopyRow(values);
  }

  /** Characters held. */
  get length(): number {
    return this.insert.length + this.match.length;
  }

  /** The rows held, as chunks (rows to insert first: a batch stores them before it matches), and forgets them. */
  take(): RowChunk[] {
    const chunks: RowChunk[] = [];
    if (this.insert !== '') chunks.push({ kind: 'insert', text: this.insert });
    if (this.match !== '') chunks.push({ kind: 'match', text: this.match });
    this.insert = '';
    this.match = '';
    return chunks;
  }
}
