/**
 * A growable byte buffer for output built a few bytes at a time. `take()` hands the bytes
 * written so far to the caller and starts a fresh buffer, so what was handed on is never
 * written to again.
 */
export class ByteOutput {
  bytes: Buffer;
  /** Bytes written so far. */
  length = 0;

  constructor(private readonly initialCapacity = 64 * 1024) {
    this.bytes = Buffer.allocUnsafe(initialCapacity);
  }

  /** Makes room for `more` bytes after `length`. */
  reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + more));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }

  /** Appends a string as UTF-8. */
  writeText(text: string): void {
    this.reserve(Buffer.byteLength(text));
    this.length += this.bytes.write(text, this.length, 'utf8');
  }

  take(): Buffer {
    const taken = this.bytes.subarray(0, this.length);
    this.bytes = Buffer.allocUnsafe(Math.max(this.initialCapacity, this.length));
    this.length = 0;
    return taken;
  }
}
