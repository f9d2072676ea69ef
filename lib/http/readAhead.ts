/**
 * Memory a process lends to pages read ahead of their clients: a streamed list page holds its
 * page connection (one a core for the whole instance) until its output has left the server, so a
 * client reading slowly would hold up every other list of its process. A page may instead read up
 * to `perPage` bytes ahead into memory and give its connection back, while `pages` of them at
 * most hold such memory at once; beyond that, a page holds its connection as before. Each loan is
 * returned when its answer ends, however it ends.
 */
export class ReadAheadBudget {
  private left: number;

  constructor(readonly perPage: number, pages: number) {
    this.left = perPage * pages;
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
