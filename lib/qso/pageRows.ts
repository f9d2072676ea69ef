import { formatCopyRow } from '../import/copyText.js';
import type { RowValues } from '../db/pageRows.js';
import { qsoFieldTexts, type CopyPage } from './copyJson.js';

/** The full object's fields (as QsoJsonFromCopy writes them), each unset one as its key and value. */
const FIELDS = qsoFieldTexts(false).map(({ key, numeric, unset }) => ({ key, numeric, unset: `${key}${unset}` }));

/**
 * A page's QSO rows (readPageRows: batches of RowValues) in, the QSO objects' JSON out: the same
 * text as QsoPageFromCopy's, JSON.stringify(presentQso(row)).
 */
export class QsoPageFromRows implements CopyPage<RowValues[]> {
  readonly objectChunks = true;
  /** QSOs written so far. */
  count = 0;

  read(batch: RowValues[]): Buffer {
    let json = '';
    for (const values of batch) {
      if (this.count++ > 0) json += ',';
      for (let index = 0; index < FIELDS.length; index++) {
        const field = FIELDS[index]!;
        const value = values[index];
        if (value === null || value === undefined) json += field.unset;
        else json += field.key + (field.numeric ? value : JSON.stringify(value));
      }
      json += '}';
    }
    return Buffer.from(json);
  }

  end(): void {}
}

/**
 * Rows of a page (readPageRows) handed, as the COPY text the same statement's COPY writes, to the
 * CopyPage that reads that text: the change feed's pages have one writer of their JSON whichever
 * way they were read. Small pages only: each value is escaped here and read back there.
 */
export class CopyTextOfRows implements CopyPage<RowValues[]> {
  readonly objectChunks = true;

  constructor(private readonly page: CopyPage) {}

  read(batch: RowValues[]): Buffer | null {
    let text = '';
    for (const values of batch) text += formatCopyRow(values);
    return this.page.read(Buffer.from(text));
  }

  end(): void {
    this.page.end();
  }
}
