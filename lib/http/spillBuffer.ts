import { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes read back from the file at a time. */
const READ_BACK_BYTES = 64 * 1024;

/**
 * An answer's bytes held between the database and a client slower than it: the first
 * `memoryBytes` in memory, what follows in a file of `folder`, read back in order. The writable
 * side takes everything in as fast as it comes until the file holds `diskBytes` not yet read
 * back; only then does it wait for the reader. Once a byte went to the file, every later one
 * does too, so the order is memory, then the file. The file is removed when the stream ends or
 * is destroyed (its client gone). Where the disk fails (full, or the folder unusable), the rest
 * goes through memory a chunk at a time, each write waiting for the reader as a PassThrough's
 * would: the answer is still whole, only its connection is held as without read-ahead.
 */
export class SpillBuffer extends Duplex {
  private readonly memory: Buffer[] = [];
  private memoryHeld = 0;
  private file: { handle: FileHandle; path: string } | null = null;
  /** Bytes written to the file, and read back from it. */
  private written = 0;
  private readBack = 0;
  private readingFile = false;
  private inputEnded = false;
  private readerWaiting = false;
  /** A write held until the reader has taken enough of the file, or all of the tail. */
  private resumeWriter: (() => void) | null = null;
  /** What came after the disk failed, served after the file. */
  private readonly tail: Buffer[] = [];
  private diskFailed = false;
  private endPushed = false;

  constructor(
    private readonly memoryBytes: number,
    private readonly diskBytes: number,
    private readonly folder: string,
    private readonly onDiskError: (error: Error) => void = () => {},
  ) {
    super();
  }

  /**
   * Where the answer waited for its client, what /metrics counts: memory, its file, or its
   * connection (the disk failed, and each write then waited for the reader).
   */
  get waitedIn(): 'memory' | 'disk' | 'connection' {
    if (this.diskFailed) return 'connection';
    return this.file === null ? 'memory' : 'disk';
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.file === null && !this.diskFailed && this.memoryHeld + chunk.length <= this.memoryBytes) {
      this.memory.push(chunk);
      this.memoryHeld += chunk.length;
      this.pump();
      callback();
      return;
    }
    if (this.diskFailed) {
      this.toTail(chunk).then(() => callback());
      return;
    }
    this.toFile(chunk).then(() => callback(), (error: Error) => {
      // A write cut short by the stream's own end (its file closed under it) is no disk failure.
      if (this.destroyed) {
        callback();
        return;
      }
      this.diskFailed = true;
      this.onDiskError(error);
      this.toTail(chunk).then(() => callback());
    });
  }

  private async toTail(chunk: Buffer): Promise<void> {
    this.tail.push(chunk);
    this.pump();
    await this.readerCaughtUp();
  }

  /** Resolves once the file holds no more than diskBytes unread and the tail is empty. */
  private readerCaughtUp(): Promise<void> {
    if (this.destroyed || (this.written - this.readBack <= this.diskBytes && this.tail.length === 0)) return Promise.resolve();
    return new Promise<void>((resolve) => (this.resumeWriter = resolve));
  }

  private releaseWriter(): void {
    if (this.resumeWriter === null || this.written - this.readBack > this.diskBytes || this.tail.length > 0) return;
    const resume = this.resumeWriter;
    this.resumeWriter = null;
    resume();
  }

  private async toFile(chunk: Buffer): Promise<void> {
    if (this.file === null) {
      await mkdir(this.folder, { recursive: true, mode: 0o700 });
      const path = join(this.folder, `page-${randomUUID()}`);
      const handle = await open(path, 'wx+', 0o600);
      // Destroyed while the file was opened (its client gone): _destroy found no file to remove.
      if (this.destroyed) {
        await handle.close();
        await rm(path, { force: true });
        return;
      }
      this.file = { handle, path };
    }
    await this.file.handle.write(chunk, 0, chunk.length, this.written);
    this.written += chunk.length;
    this.pump();
    await this.readerCaughtUp();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.inputEnded = true;
    this.pump();
    callback();
  }

  override _read(): void {
    this.readerWaiting = true;
    this.pump();
  }

  /** Hands the reader what it waits for: memory first, then the file, then the tail, then the end. */
  private pump(): void {
    while (this.readerWaiting && this.memory.length > 0) {
      const chunk = this.memory.shift()!;
      this.memoryHeld -= chunk.length;
      this.readerWaiting = this.push(chunk);
    }
    if (!this.readerWaiting || this.readingFile || this.destroyed || this.memory.length > 0) return;
    if (this.readBack < this.written) {
      this.readFile(this.file!.handle);
      return;
    }
    while (this.readerWaiting && this.tail.length > 0) this.readerWaiting = this.push(this.tail.shift()!);
    this.releaseWriter();
    if (this.readerWaiting && this.inputEnded && this.tail.length === 0 && !this.endPushed) {
      this.endPushed = true;
      this.push(null);
    }
  }

  private readFile(handle: FileHandle): void {
    this.readingFile = true;
    const buffer = Buffer.allocUnsafe(Math.min(READ_BACK_BYTES, this.written - this.readBack));
    handle.read(buffer, 0, buffer.length, this.readBack).then(({ bytesRead }) => {
      this.readingFile = false;
      if (this.destroyed) return;
      this.readBack += bytesRead;
      this.releaseWriter();
      this.readerWaiting = this.push(buffer.subarray(0, bytesRead));
      this.pump();
    }, (error: Error) => {
      this.readingFile = false;
      if (!this.destroyed) this.destroy(error);
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.memory.length = 0;
    this.memoryHeld = 0;
    this.tail.length = 0;
    const file = this.file;
    if (file === null) {
      callback(error);
      return;
    }
    const removed = file.handle.close().catch(() => undefined).then(() => rm(file.path, { force: true }));
    removed.then(() => callback(error), (removeError: Error) => callback(error ?? removeError));
  }
}
