import { createHash } from 'node:crypto';
import type pg from 'pg';
import { outsideQueryScope } from '../db/queryScope.js';
import { presentPublicLog, presentSearch } from './present.js';
import { readPublicLog, readPublishedState, searchPublicLog, type PublishedLogbook, type PublishedState } from './repository.js';

/** A ready answer: its JSON text and its ETag. */
export interface CachedAnswer {
  body: string;
  etag: string;
}

/** Longest an answer is served unchanged: the last hour's grid moves on with the clock. */
export const MAX_ANSWER_AGE_MS = 30_000;
const MAX_LOGBOOKS = 1000;
const MAX_SEARCHES_PER_LOGBOOK = 10_000;

/**
 * One generation of a logbook's answers: valid while nothing commits that `snapshot` does not
 * see. Answers are made on demand, each once (concurrent askers share the promise), in later
 * snapshots, which see at least as much: a commit after `snapshot` ends the generation anyway.
 */
interface Entry {
  /** The published settings and locations the answers are made for. */
  key: string;
  logbook: PublishedLogbook;
  snapshot: string;
  createdAt: number;
  page?: Promise<CachedAnswer>;
  searches: Map<string, Promise<CachedAnswer>>;
  /** Whether the logbook changed since `snapshot`, asked together by the requests waiting for it. */
  check: () => Promise<PublishedState | null>;
}

function answer(data: unknown): CachedAnswer {
  const body = JSON.stringify({ data });
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
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
 * published, and did a transaction the cached answer's snapshot does not see write its QSOs?),
 * so an answer is never older than the last commit before the request arrived, whichever
 * process wrote it. Unpublishing is seen by the next request.
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
    let found = entry.searches.get(call);
    if (!found) {
      if (entry.searches.size >= MAX_SEARCHES_PER_LOGBOOK) entry.searches.clear();
      found = this.once(entry, () => searchPublicLog(this.db, entry.logbook.stationIds, call).then((rows) => answer(presentSearch(entry.logbook, call, rows))));
      entry.searches.set(call, found);
      found.catch(() => entry.searches.delete(call));
    }
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
    if (entry && !state.changedSince && entry.key === JSON.stringify(state.logbook) && this.now() - entry.createdAt < MAX_ANSWER_AGE_MS) return entry;
    // The check ran after this request arrived, so its snapshot misses no commit the request must see.
    let next = this.successors.get(state);
    if (!next) {
      next = this.generation(slug, state);
      this.successors.set(state, next);
      this.entries.delete(slug);
      if (this.entries.size >= MAX_LOGBOOKS) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(slug, next);
    }
    return next;
  }

  private generation(slug: string, { logbook, snapshot }: PublishedState): Entry {
    return {
      key: JSON.stringify(logbook),
      logbook,
      snapshot,
      createdAt: this.now(),
      searches: new Map(),
      check: nextRun(() => outsideQueryScope(() => readPublishedState(this.db, slug, snapshot))),
    };
  }
}
