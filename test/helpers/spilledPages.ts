import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The sizes of the page files waiting in a spool folder (lib/http/spillBuffer.ts); none when it does not exist. */
export function spilledPages(folder: string): number[] {
  try {
    return readdirSync(folder).filter((name) => name.startsWith('page-')).map((name) => statSync(join(folder, name)).size);
  } catch {
    return [];
  }
}
