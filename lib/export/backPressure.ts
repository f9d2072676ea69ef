import type { Writable } from 'node:stream';

/**
 * Bytes `out` may hold beyond its own high-water mark (16 KiB for files) before the export
 * waits: waiting for every 64 KiB piece would leave the database idle while a file write runs.
 */
const MAX_QUEUED_BYTES = 1024 * 1024;

/**
 * Writes `chunk` and, once `out` holds more than MAX_QUEUED_BYTES, waits for 'drain'. Fails
 * instead of waiting forever when `out` errors or closes first (a client that went away).
 */
export async function writeWithBackPressure(out: Writable, chunk: string | Buffer): Promise<void> {
  if (out.destroyed || out.writableEnded) throw new Error('export destination is closed');
  if (out.write(chunk) || out.writableLength < MAX_QUEUED_BYTES) return;
  await new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      out.off('drain', onDrain);
      out.off('error', onError);
      out.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => settle();
    const onError = (error: Error) => settle(error);
    const onClose = () => settle(new Error('export destination closed before the export ended'));
    out.on('drain', onDrain);
    out.on('error', onError);
    out.on('close', onClose);
  });
}
