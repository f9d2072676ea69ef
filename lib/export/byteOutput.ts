const EMPTY = Buffer.alloc(0);

/**
 * A growable byte buffer for output built a few bytes at a time. `take()` hands the bytes
 * written so far to the caller and starts afresh, so what was handed on is never written to
 * again. Memory is taken only when bytes are reserved, at least `minimumCapacity` at a time:
 * a page of 50 QSOs (about 65 KB) asks for one buffer of its size, not a preallocated one
 * outgrown and a fresh one after it that is never used (each a separate allocation outside the
 * heap, which V8 answers with full collections when they pile up).
 */
export class ByteOutput {
  bytes: Buffer = EMPTY;
  /** Bytes written so far. */
  length = 0;

  constructor(private readonly minimumCapacity = 16 * 1024) {}

  /** Makes room for `more` bytes after `length`. */
  reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + more, this.minimumCapacity));
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
    this.bytes = EMPTY;
    this.length = 0;
    return taken;
  }
}
