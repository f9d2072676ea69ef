import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Request text too large for memory (an ADIF document inside a JSON body) waits on disk here
 * until the request is read. Each process spools under `<root>/<pid>`, so a process killed
 * mid-upload leaves a folder that the next start finds and removes (issue 19, item 9).
 */
export class SpoolFile {
  private constructor(private readonly dir: string, readonly path: string, readonly file: WriteStream) {}

  static async create(folder: string): Promise<SpoolFile> {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const dir = await mkdtemp(join(folder, 'body-'));
    const path = join(dir, 'text');
    return new SpoolFile(dir, path, createWriteStream(path, { mode: 0o600 }));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve, reject) => this.file.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }

  open(): Readable {
    return createReadStream(this.path);
  }

  discard(): Promise<void> {
    // Writes still queued fail once the stream is destroyed; nobody waits for them any more.
    this.file.on('error', () => undefined);
    this.file.destroy();
    return rm(this.dir, { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * This process's spool folder under `root`, after removing the folders of processes that no
 * longer run (interrupted uploads of an earlier start). Folders of live processes (other
 * workers serving the same data folder) are left alone.
 */
export async function prepareSpoolFolder(root: string): Promise<string> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  for (const entry of await readdir(root)) {
    const pid = Number(entry);
    if (!/^\d+$/.test(entry) || (pid !== process.pid && !isRunning(pid))) await rm(join(root, entry), { recursive: true, force: true });
  }
  return join(root, String(process.pid));
}
