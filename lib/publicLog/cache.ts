import { createHash } from 'node:crypto';
import type pg from 'pg';
import { outsideQueryScope } from '../db/queryScope.js';
import { presentPublicLog, presentSearch } from './present.js';
import { readPublicLog, readPublishedState, searchPublicLog, type LogChanges, type PublishedLogbook, type PublishedState } from './repository.js';

/** A ready answer: its JSON text and its ETag. */
export interface CachedAnswer {
  body: string;
  etag: string;
}

/**
 * A search's answer and what can change it: the base call its search matched on (the search's
 * own rule, so `G4ABC/P` and `EA8/G4ABC` record `G4ABC`) and the QSOs it counted.
 */
interface SearchAnswer extends CachedAnswer {
  base: string;
  ids: number[];
}

/** Longest an answer is served unchanged: the last hour's grid moves on with the clock. */
export const MAX_ANSWER_AGE_MS = 30_000;
const MAX_LOGBOOKS = 1000;
const MAX_SEARCHES_PER_LOGBOOK = 10_000;

/**
 * One generation of a logbook's answers: valid while nothing commits that `snapshot` does not
 * see. Answers are made on demand, each once (concurrent askers share the promise), in later
 * snapshots, which see at least as much: a commit after `snapshot` ends the generation anyway.
 * The next generation keeps the ready search answers no change since `snapshot` touched.
 */
interface Entry {
  /** The published settings and locations the answers are made for. */
  key: string;
  logbook: PublishedLogbook;
  snapshot: string;
  createdAt: number;
  page?: Promise<CachedAnswer>;
  /** By call: the answer once ready (what a next generation may keep), its promise before. */
  searches: Map<string, SearchAnswer | Promise<SearchAnswer>>;
  /** What changed since `snapshot`, asked together by the requests waiting for it. */
  check: () => Promise<PublishedState | null>;
}

function answer(data: unknown): CachedAnswer {
  const body = JSON.stringify({ data });
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
}

/**
 * The ready search answers of `previous` that `changes` (everything committed since its
 * snapshot) cannot have altered: none of the written QSOs has the answer's base call (a QSO
 * logged, or edited to the call), and none of the QSOs it counted was rewritten or deleted (an
 * edit away from the call, a move to another location). A ready answer of a generation is what a
 * read at its snapshot, or a later one, gives (read then, or kept by this rule), so a kept one is
 * what a read at the next generation's snapshot gives.
 */
function untouched(previous: Entry, changes: LogChanges): Map<string, SearchAnswer> {
  const bases = new Set(changes.written.map((qso) => qso.base));
  const ids = new Set([...changes.written.map((qso) => qso.id), ...changes.deleted]);
  const kept = new Map<string, SearchAnswer>();
  for (const [call, found] of previous.searches) {
    if (found instanceof Promise || bases.has(found.base) || found.ids.some((id) => ids.has(id))) continue;
    kept.set(call, found);
  }
  return kept;
}

/**
 * `work` run for every caller that arrives while it is not running; callers arriving while it
 * runs share the next run, which starts when this one ends. So no caller gets a result read
 * before it asked, and a crowd of callers costs one run at a time.
 */
export function nextRun<T>(work: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const run = work();
    running = run;
    const done = (): void => {
      if (running === run) running = undefined;
    };
    run.then(done, done);
    return run;
  };
  return () => {
    if (queued) return queued;
    if (!running) return start();
    queued = running.then(() => undefined, () => undefined).then(() => {
      queued = undefined;
      return start();
    });
    return queued;
  };
}

/**
 * The public log's answers, kept in this process's memory while the logbook has not changed.
 * Every request asks the database one cheap question first (readPublishedState: is it still
 * published, and which QSOs did transactions the cached answers' snapshot does not see write
 * or delete?), so an answer is never older than the last commit before the request arrived,
 * whichever process wrote it. Unpublishing is seen by the next request. Any change remakes the
 * page; a search answer is kept unless a change touched its call or its QSOs.
 */
export class PublicLogCache {
  private readonly entries = new Map<string, Entry>();
  /** The generation made from a (shared) check's answer: the requests that shared it share this too. */
  private readonly successors = new WeakMap<PublishedState, Entry>();

  constructor(private readonly db: pg.Pool, private readonly now: () => number = Date.now) {}

  /** The page's JSON; null when the slug is not a published logbook. */
  async page(slug: string): Promise<CachedAnswer | null> {
    const entry = await this.fresh(slug);
    if (!entry) return null;
    entry.page ??= this.once(entry, () => readPublicLog(this.db, entry.logbook.stationIds).then((rows) => answer(presentPublicLog(entry.logbook, rows))));
    return entry.page;
  }

  /** The published logbook behind `slug` (its id names its live topic); null when it is not published. */
  async logbook(slug: string): Promise<PublishedLogbook | null> {
    return (await this.fresh(slug))?.logbook ?? null;
  }

  /** Where `call` (upper case, validated) is in the log; null when the slug is not published. */
  async search(slug: string, call: string): Promise<CachedAnswer | null> {
    const entry = await this.fresh(slug);
    if (!entry) return null;
    const known = entry.searches.get(call);
    if (known) return known;
    if (entry.searches.size >= MAX_SEARCHES_PER_LOGBOOK) entry.searches.clear();
    const found = outsideQueryScope(() => searchPublicLog(this.db, entry.logbook.stationIds, call))
      .then(({ base, ids, slots }): SearchAnswer => ({ ...answer(presentSearch(entry.logbook, call, slots)), base, ids }));
    entry.searches.set(call, found);
    const settle = (ready?: SearchAnswer): void => {
      if (entry.searches.get(call) !== found) return;
      if (ready) entry.searches.set(call, ready);
      else entry.searches.delete(call);
    };
    found.then(settle, () => settle());
    return found;
  }

  /** Work shared by the requests of a generation, outside any one request's query scope; a failure is not kept. */
  private once(entry: Entry, work: () => Promise<CachedAnswer>): Promise<CachedAnswer> {
    const made = outsideQueryScope(work);
    made.catch(() => {
      if (entry.page === made) entry.page = undefined;
    });
    return made;
  }

  private async fresh(slug: string): Promise<Entry | null> {
    const entry = this.entries.get(slug);
    // An unknown or unpublished slug costs the same statement as a published one's check.
    const state = entry ? await entry.check() : await readPublishedState(this.db, slug, null);
    if (!state) {
      this.entries.delete(slug);
      return null;
    }
    const unchanged = state.changes !== null && state.changes.written.length === 0 && state.changes.deleted.length === 0;
    if (entry && unchanged && entry.key === JSON.stringify(state.logbook) && this.now() - entry.createdAt < MAX_ANSWER_AGE_MS) return entry;
    // The check ran after this request arrived, so its snapshot misses no commit the request must see.
    let next = this.successors.get(state);
    if (!next) {
      next = this.generation(slug, state, entry);
      this.successors.set(state, next);
      this.entries.delete(slug);
      if (this.entries.size >= MAX_LOGBOOKS) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(slug, next);
    }
    return next;
  }

  /**
   * The generation at `state`'s snapshot. `previous` is the generation whose check gave `state`
   * (its changes are counted from `previous.snapshot`): its untouched search answers carry over
   * when the settings and locations are the same and the changes could be listed.
   */
  private generation(slug: string, state: PublishedState, previous: Entry | undefined): Entry {
    const { logbook, snapshot, changes } = state;
    const key = JSON.stringify(logbook);
    return {
      key,
      logbook,
      snapshot,
      createdAt: this.now(),
      searches: previous && changes && previous.key === key ? untouched(previous, changes) : new Map(),
      check: nextRun(() => outsideQueryScope(() => readPublishedState(this.db, slug, snapshot))),
    };
  }
}
