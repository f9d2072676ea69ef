import { PassThrough, type Duplex } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { SpillBuffer } from './spillBuffer.js';
import type { Metrics } from '../metrics.js';

export interface ReadAheadOptions {
  /** Bytes of memory a page may hold (`page_read_ahead_bytes`; 0: no read-ahead). */
  perPage: number;
  /** Pages that may hold a loan at once. */
  pages: number;
  /** Where a page's bytes beyond its memory wait (the process's spool folder). */
  spoolFolder: string;
  /** Told when a page's file cannot be written (the page then holds its connection). */
  onDiskError?: (error: Error) => void;
  /** Counts the pages by where they waited. */
  metrics?: Metrics;
}

/**
 * Memory a process lends to pages read ahead of their clients: a streamed list page holds its
 * page connection (one a core for the whole instance) until its output has left the server, so a
 * client reading slowly would hold up every other list of its process. A page may instead read up
 * to `perPage` bytes ahead into memory, and up to SPILL_BYTES more into a file of the spool
 * folder, and give its connection back, while `pages` of them at most hold such a loan at once;
 * beyond that, a page holds its connection as before. Each loan is returned when its answer ends,
 * however it ends.
 */
export class ReadAheadBudget {
  readonly perPage: number;
  private left: number;
  private readonly spoolFolder: string;
  private readonly onDiskError: (error: Error) => void;
  private readonly metrics: Metrics | null;

  constructor({ perPage, pages, spoolFolder, onDiskError = () => {}, metrics }: ReadAheadOptions) {
    this.perPage = perPage;
    this.left = perPage * pages;
    this.spoolFolder = spoolFolder;
    this.onDiskError = onDiskError;
    this.metrics = metrics ?? null;
  }

  /**
   * The stream an answer to `res` is read ahead through: a SpillBuffer while the budget lasts,
   * else a plain PassThrough that holds the page's connection until its client has read it.
   */
  aheadOf(res: ServerResponse): Duplex {
    const lent = this.lend();
    if (lent === 0) {
      this.metrics?.pagesReadAhead.inc({ waited_in: 'connection' });
      return new PassThrough();
    }
    const ahead = new SpillBuffer(lent, SPILL_BYTES, this.spoolFolder, this.onDiskError);
    res.once('close', () => {
      this.giveBack(lent);
      this.metrics?.pagesReadAhead.inc({ waited_in: ahead.waitedIn });
    });
    return ahead;
  }

  /** Bytes granted to one page: perPage, or 0 when the budget is spent (or read-ahead is off). */
  lend(): number {
    if (this.perPage === 0 || this.left < this.perPage) return 0;
    this.left -= this.perPage;
    return this.perPage;
  }

  giveBack(bytes: number): void {
    this.left += bytes;
  }

  /** Bytes not lent out (what the tests watch). */
  get available(): number {
    return this.left;
  }
}

/** Pages a process reads ahead at once at most: with the default 1 MiB each, 32 MiB a process. */
export const READ_AHEAD_PAGES = 32;

/**
 * A page's bytes beyond its memory that wait on disk for a slow client at most: more than a
 * page of 5,000 QSOs as full JSON objects (2–10 MB, as long as their fields are), so that only a
 * page of unusually long fields holds its connection once this much waits. At most
 * READ_AHEAD_PAGES × 32 MiB of a process's spool folder.
 */
export const SPILL_BYTES = 32 * 1024 * 1024;
