/**
 * Memory for COPY text that is reused instead of allocated per chunk. Text is encoded into
 * fixed-size slabs and handed out as pieces (views of a slab); a slab goes back to the pool
 * when every piece cut from it has been released.
 *
 * Why: a Buffer per chunk of rows lives from the parser until PostgreSQL has read it, across
 * many young-generation collections, so V8 promotes it and frees it only in an occasional full
 * collection: a million-QSO import carried up to 60 MB of dead Buffers, and its peak RSS grew
 * with the file. Slabs are allocated once and recycled, so memory stays at what the queue and
 * the batch in flight hold.
 */

interface Slab {
  readonly bytes: Buffer;
  /** Pieces not yet released, plus one while the slab is being filled. */
  holds: number;
}

export interface TextPiece {
  readonly bytes: Buffer;
  readonly slab: Slab;
}

export class TextSlabs {
  private readonly free: Buffer[] = [];
  private filling: Slab | null = null;
  private used = 0;
  private readonly encoder = new TextEncoder();

  constructor(private readonly slabBytes: number) {}

  /** Copies `text` (UTF-8 for strings) into slabs, appends its pieces to `into` in order, and returns its length in bytes. */
  put(text: string | Buffer, into: TextPiece[]): number {
    return typeof text === 'string' ? this.putString(text, into) : this.putBytes(text, into);
  }

  /** The piece's bytes are no longer needed: its slab may be reused once all its pieces are. */
  release(piece: TextPiece): void {
    this.drop(piece.slab);
  }

  private putString(text: string, into: TextPiece[]): number {
    let total = 0;
    let rest = text;
    while (rest !== '') {
      const slab = this.slab();
      // encodeInto never splits a character: what does not fit goes into the next slab.
      const { read, written } = this.encoder.encodeInto(rest, slab.bytes.subarray(this.used));
      if (written === 0 && this.used === 0) throw new Error(`a character does not fit into a ${this.slabBytes}-byte slab`);
      if (written > 0) into.push(this.cut(slab, written));
      total += written;
      if (read === rest.length) break;
      rest = rest.slice(read);
      this.retire();
    }
    return total;
  }

  private putBytes(bytes: Buffer, into: TextPiece[]): number {
    for (let from = 0; from < bytes.length; ) {
      const slab = this.slab();
      const length = Math.min(bytes.length - from, slab.bytes.length - this.used);
      bytes.copy(slab.bytes, this.used, from, from + length);
      into.push(this.cut(slab, length));
      from += length;
    }
    return bytes.length;
  }

  private slab(): Slab {
    if (this.filling === null) {
      this.filling = { bytes: this.free.pop() ?? Buffer.allocUnsafeSlow(this.slabBytes), holds: 1 };
      this.used = 0;
    }
    return this.filling;
  }

  /** The next `length` bytes of the slab being filled, as a piece. */
  private cut(slab: Slab, length: number): TextPiece {
    const piece = { bytes: slab.bytes.subarray(this.used, this.used + length), slab };
    slab.holds++;
    this.used += length;
    if (this.used === slab.bytes.length) this.retire();
    return piece;
  }

  /** Stops filling the current slab (it is full, or the next character does not fit). */
  private retire(): void {
    if (this.filling === null) return;
    this.drop(this.filling);
    this.filling = null;
  }

  private drop(slab: Slab): void {
    slab.holds--;
    if (slab.holds === 0) this.free.push(slab.bytes);
  }
}
