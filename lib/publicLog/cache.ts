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

interface Entry {
  /** The published settings and locations the answers were made for. */
  key: string;
  logbook: PublishedLogbook;
  snapshot: string;
  builtAt: number;
  page: CachedAnswer;
  searches: Map<string, CachedAnswer>;
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
  private readonly builds = new Map<string, { startedAt: number; done: Promise<Entry | null> }>();
  private tick = 0;

  constructor(private readonly db: pg.Pool, private readonly now: () => number = Date.now) {}

  /** The page's JSON; null when the slug is not a published logbook. */
  async page(slug: string): Promise<CachedAnswer | null> {
    return (await this.fresh(slug))?.page ?? null;
  }

  /** Where `call` (upper case, validated) is in the log; null when the slug is not published. */
  async search(slug: string, call: string): Promise<CachedAnswer | null> {
    const entry = await this.fresh(slug);
    if (!entry) return null;
    const cached = entry.searches.get(call);
    if (cached) return cached;
    const rows = await outsideQueryScope(() => searchPublicLog(this.db, entry.logbook.stationIds, call));
    const found = answer(presentSearch(entry.logbook, call, rows));
    if (entry.searches.size >= MAX_SEARCHES_PER_LOGBOOK) entry.searches.clear();
    entry.searches.set(call, found);
    return found;
  }

  /** Forgets a logbook's answers (unpublished: its memory goes at once). */
  forget(slug: string): void {
    this.entries.delete(slug);
  }

  private async fresh(slug: string): Promise<Entry | null> {
    const asked = ++this.tick;
    const entry = this.entries.get(slug);
    // An unknown or unpublished slug costs the same statement as a published one's check.
    const state = entry ? await entry.check() : await readPublishedState(this.db, slug, null);
    if (!state) {
      this.entries.delete(slug);
      return null;
    }
    const current = this.entries.get(slug);
    if (current && this.usable(current, state) && current === entry) return current;
    return this.rebuild(slug, asked);
  }

  private usable(entry: Entry, state: PublishedState): boolean {
    return !state.changedSince && entry.key === JSON.stringify(state.logbook) && this.now() - entry.builtAt < MAX_ANSWER_AGE_MS;
  }

  /** A build that started after the request arrived is shared; an older one could miss a commit the request must see. */
  private rebuild(slug: string, asked: number): Promise<Entry | null> {
    const running = this.builds.get(slug);
    if (running && running.startedAt > asked) return running.done;
    const startedAt = ++this.tick;
    const done = outsideQueryScope(() => this.build(slug)).finally(() => {
      if (this.builds.get(slug)?.done === done) this.builds.delete(slug);
    });
    this.builds.set(slug, { startedAt, done });
    return done;
  }

  private async build(slug: string): Promise<Entry | null> {
    const builtAt = this.now();
    const state = await readPublishedState(this.db, slug, null);
    if (!state) {
      this.entries.delete(slug);
      return null;
    }
    const { logbook } = state;
    const rows = await readPublicLog(this.db, logbook.stationIds);
    const entry: Entry = {
      key: JSON.stringify(logbook),
      logbook,
      snapshot: rows.snapshot,
      builtAt,
      page: answer(presentPublicLog(logbook, rows)),
      searches: new Map(),
      check: nextRun(() => outsideQueryScope(() => readPublishedState(this.db, slug, rows.snapshot))),
    };
    this.entries.delete(slug);
    if (this.entries.size >= MAX_LOGBOOKS) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(slug, entry);
    return entry;
  }
}
