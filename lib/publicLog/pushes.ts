import type pg from 'pg';
import { outsideQueryScope } from '../db/queryScope.js';
import { publicLogTopic } from '../live/topics.js';
import type { Logger } from '../log.js';
import type { EventPublisher } from '../services.js';
import { nextRun, type PublicLogCache } from './cache.js';
import type { PublicLog } from './present.js';
import { publishedLogbook, publishedLogbooksOver, type PublishedRef } from './published.js';

/**
 * Live pushes of the public logs (docs/public-log.md, "Live pushes"). After a commit to a
 * location of a published logbook, its topic (public_log.{id}, no token) gets the page's data as
 * GET /api/public/{slug} answers it, made by the same cache and presenter, so a push never holds
 * more than the JSON: `{type: 'public_log', log}`. Only the map's worked positions are sent as
 * changes against this process's previous push (`qsos: 0` is a position gone), whole
 * (`map.complete: true`) on its first push of a logbook; a page that reconnects refetches the JSON.
 * The work runs after the request and coalesces: changes arriving meanwhile share the next push.
 */
export interface PublicLogPush {
  type: 'public_log';
  log: Omit<PublicLog, 'map'> & { map: PublicLog['map'] & { complete: boolean } };
}

/** Logbooks whose last pushed map this process remembers (then it starts over: whole maps again). */
const MAX_REMEMBERED = 1000;
/**
 * A process registers a public topic at most this often, however many pages connect: a crowd
 * reconnecting after a worker restart costs the workers a few calls. Closing it resets that.
 */
const REGISTER_EVERY_MS = 10_000;
/** How long the published logbooks over a set of locations are taken as known. */
const OVER_TTL_MS = 1000;

type Positions = Map<string, number>;
const positionKey = (p: { lat: number; lng: number }): string => `${p.lat},${p.lng}`;

/** The push of `data`, its map's worked positions as changes against `previous` (whole without one). */
export function pushOf(data: PublicLog, previous: Positions | undefined): { push: PublicLogPush; positions: Positions } {
  const positions: Positions = new Map(data.map.worked.map((p) => [positionKey(p), p.qsos]));
  let worked = data.map.worked;
  if (previous) {
    worked = data.map.worked.filter((p) => previous.get(positionKey(p)) !== p.qsos);
    for (const key of previous.keys()) {
      if (positions.has(key)) continue;
      const [lat, lng] = key.split(',').map(Number) as [number, number];
      worked.push({ lat, lng, qsos: 0 });
    }
  }
  return { push: { type: 'public_log', log: { ...data, map: { stations: data.map.stations, worked, complete: !previous } } }, positions };
}

export interface PublicLogPushDeps {
  db: pg.Pool;
  cache: PublicLogCache;
  logger: Logger;
}

/**
 * `inner` (a worker publisher) with the public logs' pushes added: `qsosChanged` and
 * `publicLogChanged` push, `openPublicTopic` registers a topic for pages, `closeTopic` forgets
 * what was pushed; everything else passes through.
 */
export function withPublicLogPushes(inner: EventPublisher, { db, cache, logger }: PublicLogPushDeps): EventPublisher {
  const runs = new Map<number, () => Promise<void>>();
  /** By topic: the map this process last pushed; none after the topic was (re)opened, so the next push is whole. */
  const pushed = new Map<string, Positions>();
  const openedAt = new Map<string, number>();

  /** Registers the topic without token requirement, at most every REGISTER_EVERY_MS (a closed one at once). */
  async function open(topic: string): Promise<void> {
    const now = Date.now();
    if (now - (openedAt.get(topic) ?? 0) < REGISTER_EVERY_MS) return;
    if (openedAt.size >= MAX_REMEMBERED) openedAt.clear();
    openedAt.set(topic, now);
    await inner.register?.(topic, false);
  }

  async function push({ id, slug }: PublishedRef): Promise<void> {
    const answer = await cache.page(slug);
    if (!answer) return; // unpublished meanwhile: its topic was closed
    const topic = publicLogTopic(id);
    await open(topic);
    const { push: payload, positions } = pushOf((JSON.parse(answer.body) as { data: PublicLog }).data, pushed.get(topic));
    pushed.delete(topic);
    if (pushed.size >= MAX_REMEMBERED) pushed.delete(pushed.keys().next().value!);
    pushed.set(topic, positions);
    inner.publish(topic, payload);
  }

  function schedule(logbook: PublishedRef): void {
    let run = runs.get(logbook.id);
    if (!run) {
      if (runs.size >= MAX_REMEMBERED) runs.clear();
      run = nextRun(() => push(logbook));
      runs.set(logbook.id, run);
    }
    run().catch((error: Error) => logger.warn('public log push failed', { logbook_id: logbook.id, error: error.message }));
  }

  /**
   * The published logbooks over these locations, asked at most every OVER_TTL_MS per set of
   * locations: a stream of small writes must not cost a statement each. A logbook unpublished
   * meanwhile is not pushed (push asks the cache, which checks); one published meanwhile starts
   * with the page's own fetch.
   */
  const overs = new Map<string, { at: number; logbooks: Promise<PublishedRef[]> }>();
  function over(stationIds: number[]): Promise<PublishedRef[]> {
    const key = stationIds.join(',');
    const now = Date.now();
    const known = overs.get(key);
    if (known && now - known.at < OVER_TTL_MS) return known.logbooks;
    if (overs.size >= MAX_REMEMBERED) overs.clear();
    const logbooks = publishedLogbooksOver(db, stationIds);
    overs.set(key, { at: now, logbooks });
    logbooks.catch(() => overs.delete(key));
    return logbooks;
  }

  /** After the request and outside its query scope (its end must not cut this short), callbacks included. */
  function later(find: () => Promise<PublishedRef[]>): void {
    outsideQueryScope(() => {
      find().then((logbooks) => logbooks.forEach(schedule), (error: Error) => {
        logger.warn('public log push failed', { error: error.message });
      });
    });
  }

  return {
    publish: (topic, payload) => inner.publish(topic, payload),
    ...(inner.revoke ? { revoke: inner.revoke.bind(inner) } : {}),
    ...(inner.register ? { register: inner.register.bind(inner) } : {}),
    ...(inner.health ? { health: inner.health.bind(inner) } : {}),
    openPublicTopic: open,
    closeTopic: async (topic) => {
      openedAt.delete(topic);
      pushed.delete(topic);
      await inner.closeTopic?.(topic);
    },
    qsosChanged: (stationIds) => later(() => over(stationIds)),
    publicLogChanged: (logbookId) => later(async () => {
      const logbook = await publishedLogbook(db, logbookId);
      return logbook ? [logbook] : [];
    }),
    close: () => inner.close(),
  };
}
