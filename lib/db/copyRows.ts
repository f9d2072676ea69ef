const NEWLINE = 0x0a;

/**
 * The rows of `COPY … TO STDOUT` text output as its pieces arrive: each complete row is handed
 * to `row` as the piece it is in and its bounds (`end` at its newline; a value's own newlines are
 * escaped, so every newline ends a row); a row cut by the end of a piece waits for the next one.
 */
export class CopyRows {
  private partial: Buffer | null = null;

  constructor(private readonly row: (input: Buffer, start: number, end: number) => void) {}

  write(chunk: Buffer): void {
    const input = this.partial === null ? chunk : Buffer.concat([this.partial, chunk]);
    let start = 0;
    for (let end = input.indexOf(NEWLINE); end !== -1; start = end + 1, end = input.indexOf(NEWLINE, start)) this.row(input, start, end);
    this.partial = start < input.length ? input.subarray(start) : null;
  }

  /** After the last piece: fails when the output ended inside a row. */
  end(): void {
    if (this.partial !== null) throw new Error('COPY output ended inside a row');
  }
}
