const NEWLINE = 0x0a;

/**
 * The rows of `COPY … TO STDOUT` text output as its pieces arrive: each complete row is handed
 * to `row` as the piece it is in and its bounds (`end` at its newline; a value's own newlines are
 * escaped, so every newline ends a row); a row cut by the end of a piece waits for the next one.
 * Only such a row is copied, joined with its end: the rest of a piece is read where it lies (a
 * whole piece joined to its first row's start copied every byte once more).
 */
export class CopyRows {
  private partial: Buffer | null = null;

  constructor(private readonly row: (input: Buffer, start: number, end: number) => void) {}

  write(chunk: Buffer): void {
    let start = 0;
    if (this.partial !== null) {
      const end = chunk.indexOf(NEWLINE);
      if (end === -1) {
        this.partial = Buffer.concat([this.partial, chunk]);
        return;
      }
      const joined = Buffer.concat([this.partial, chunk.subarray(0, end + 1)]);
      this.partial = null;
      this.row(joined, 0, joined.length - 1);
      start = end + 1;
    }
    for (let end = chunk.indexOf(NEWLINE, start); end !== -1; start = end + 1, end = chunk.indexOf(NEWLINE, start)) this.row(chunk, start, end);
    if (start < chunk.length) this.partial = chunk.subarray(start);
  }

  /** After the last piece: fails when the output ended inside a row. */
  end(): void {
    if (this.partial !== null) throw new Error('COPY output ended inside a row');
  }
}
