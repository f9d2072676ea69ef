import type { Writable } from 'node:stream';

/**
 * Writes `chunk` and, when `out` asks to slow down, waits for 'drain'. Fails instead of
 * waiting forever when `out` errors or closes first (a client that went away).
 */
export async function writeWithBackPressure(out: Writable, chunk: string): Promise<void> {
  if (out.destroyed || out.writableEnded) throw new Error('export destination is closed');
  if (out.write(chunk)) return;
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
