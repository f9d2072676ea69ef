import type pg from 'pg';
import { inTransaction } from '../db/transaction.js';

type Queryable = Pick<pg.PoolClient, 'query'>;

/** A published logbook as the public log reads it: never its owner's name, address or operators. */
export interface PublishedLogbook {
  id: number;
  userId: number;
  stationIds: number[];
  showTimes: boolean;
  showFrequency: boolean;
  banner: string;
  /** The logbook's locations as the page shows them (callsign, locator, DXCC entity). */
  stations: Array<{ callsign: string; gridsquare: string; dxcc: number | null }>;
}

/** A QSO row written by a transaction a snapshot does not see: its id and its base call (the search's rule). */
export interface WrittenQso {
  id: number;
  base: string;
}

/** What committed since a snapshot, on the logbook's locations (written) and its owner's tombstones (deleted). */
export interface LogChanges {
  written: WrittenQso[];
  deleted: number[];
}

export interface PublishedState {
  logbook: PublishedLogbook;
  /**
   * The QSOs written or deleted by transactions `snapshot` (the argument) does not see; null
   * when there was no snapshot or more than CHANGES_LISTED of them: anything may have changed.
   */
  changes: LogChanges | null;
  /** The snapshot (pg_snapshot text) of the statement the state is complete up to: answers read after it are at least this fresh. */
  snapshot: string;
}

/** Changed rows listed at most (written and deleted together); beyond, a check answers "everything". */
export const CHANGES_LISTED = 500;

/** readPublishedState's statement: $1 the slug, $2 the snapshot (pg_snapshot text) or null. */
export const PUBLISHED_STATE_SQL = `SELECT json_build_object(
              'id', l.id, 'userId', l.user_id, 'showTimes', l.public_show_times, 'showFrequency', l.public_show_frequency,
              'banner', l.public_banner, 'stationIds', coalesce(st.ids, '{}'), 'stations', coalesce(st.list, '[]')) AS logbook,
            $2::pg_snapshot IS NULL
              OR EXISTS (SELECT 1 FROM unnest(st.ids) AS sid
                           CROSS JOIN LATERAL (SELECT 1 FROM qso q
                                                WHERE q.station_id = sid AND q.txid >= pg_snapshot_xmin($2::pg_snapshot)
                                                  AND NOT pg_visible_in_snapshot(q.txid, $2::pg_snapshot)
                                                ORDER BY q.txid DESC LIMIT 1) AS unseen)
              OR EXISTS (SELECT 1 FROM (SELECT 1 FROM qso_deletions d
                                         WHERE d.user_id = l.user_id AND d.txid >= pg_snapshot_xmin($2::pg_snapshot)
                                           AND NOT pg_visible_in_snapshot(d.txid, $2::pg_snapshot)
                                         ORDER BY d.txid DESC LIMIT 1) AS unseen) AS changed,
            pg_current_snapshot()::text AS snapshot
       FROM logbooks l
       LEFT JOIN LATERAL (
         SELECT array_agg(s.id ORDER BY s.id) AS ids,
                json_agg(json_build_object('callsign', s.callsign, 'gridsquare', s.gridsquare, 'dxcc', s.dxcc) ORDER BY s.id) AS list
           FROM logbook_stations ls JOIN stations s ON s.id = ls.station_id
          WHERE ls.logbook_id = l.id) st ON true
      WHERE l.slug = $1 AND l.public`;

/**
 * What committed after the snapshot $3: the QSOs of the locations $1 written since (id, base
 * call) and the tombstones of owner $2's QSOs deleted since, at most CHANGES_LISTED + 1 of each
 * (per location), and the statement's own snapshot, up to which the lists are complete.
 */
const CHANGES_SQL = `SELECT coalesce(wr.list, '[]') AS written, coalesce(dl.list, '[]') AS deleted, pg_current_snapshot()::text AS snapshot
       FROM (SELECT json_agg(json_build_object('id', w.id, 'base', public_log_base_call(w.call))) AS list
               FROM unnest($1::int[]) AS sid
              CROSS JOIN LATERAL (SELECT q.id, q.call FROM qso q
                                   WHERE q.station_id = sid AND q.txid >= pg_snapshot_xmin($3::pg_snapshot)
                                     AND NOT pg_visible_in_snapshot(q.txid, $3::pg_snapshot)
                                   ORDER BY q.txid DESC LIMIT ${CHANGES_LISTED + 1}) AS w) AS wr,
            (SELECT json_agg(d.qso_id) AS list
               FROM (SELECT d.qso_id FROM qso_deletions d
                      WHERE d.user_id = $2 AND d.txid >= pg_snapshot_xmin($3::pg_snapshot)
                        AND NOT pg_visible_in_snapshot(d.txid, $3::pg_snapshot)
                      ORDER BY d.txid DESC LIMIT ${CHANGES_LISTED + 1}) AS d) AS dl`;

/**
 * One statement a request: the published logbook behind `slug` (null for an unknown or
 * unpublished one: the same index probe either way) and whether a commit after `snapshot` wrote
 * or deleted its QSOs; only then a second one lists what (CHANGES_SQL), in its own later snapshot.
 * Rows and tombstones carry their transaction's txid (sql/007), so "not visible in the snapshot"
 * is exact in any commit order. The first is named and its generic plan must stay index walks
 * (per station or owner, newest txid first, LIMIT 1 in a subquery of its own): a plain EXISTS
 * plans a scan of qso (test/public/publicLog.test.ts; RESULTS.md, "Public log search").
 */
export async function readPublishedState(db: Queryable, slug: string, snapshot: string | null): Promise<PublishedState | null> {
  const { rows } = await db.query<{ logbook: PublishedLogbook; changed: boolean; snapshot: string }>({
    name: 'public_log_state',
    text: PUBLISHED_STATE_SQL,
    values: [slug, snapshot],
  });
  const row = rows[0];
  if (!row) return null;
  if (snapshot === null) return { logbook: row.logbook, changes: null, snapshot: row.snapshot };
  if (!row.changed) return { logbook: row.logbook, changes: { written: [], deleted: [] }, snapshot: row.snapshot };
  const listed = (await db.query<{ written: WrittenQso[]; deleted: number[]; snapshot: string }>(CHANGES_SQL, [row.logbook.stationIds, row.logbook.userId, snapshot])).rows[0]!;
  const complete = listed.written.length + listed.deleted.length <= CHANGES_LISTED;
  return { logbook: row.logbook, changes: complete ? { written: listed.written, deleted: listed.deleted } : null, snapshot: listed.snapshot };
}

export interface RecentQsoRow {
  call: string;
  band: string;
  mode: string;
  time_on: string;
  freq: string | null;
}

export interface PublicLogRows {
  count: number;
  recent: RecentQsoRow[];
  lastHour: Array<{ band: string; mode: string; qsos: number }>;
  worked: Array<{ grid: string; dxcc: number | null; qsos: number }>;
}

/** A QSO's mode as the public log shows it: the submode when it has one (FT4, not MFSK). */
const MODE = `coalesce(nullif(submode, ''), mode)`;
export const RECENT_QSOS = 30;
/** The map shows where the latest QSOs went, so that a rebuild costs the same whatever the log's size. */
export const MAPPED_QSOS = 1000;

/** Everything the page shows, in one snapshot (repeatable read). */
export async function readPublicLog(pool: pg.Pool, stationIds: number[]): Promise<PublicLogRows> {
  return inTransaction(pool, async (client) => {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const count = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = ANY ($1)', [stationIds])).rows[0]!.n;
    const recent = await client.query<RecentQsoRow>(
      `SELECT call, band, ${MODE} AS mode, to_char(time_on, 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS time_on, freq::text AS freq
         FROM qso WHERE station_id = ANY ($1) ORDER BY time_on DESC, id DESC LIMIT ${RECENT_QSOS}`,
      [stationIds],
    );
    const lastHour = await client.query<{ band: string; mode: string; qsos: number }>(
      `SELECT band, ${MODE} AS mode, count(*)::int AS qsos FROM qso
        WHERE station_id = ANY ($1) AND time_on >= (now() AT TIME ZONE 'UTC') - interval '1 hour'
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [stationIds],
    );
    const worked = await client.query<{ grid: string; dxcc: number | null; qsos: number }>(
      `SELECT upper(left(coalesce(gridsquare, ''), 4)) AS grid, CASE WHEN coalesce(gridsquare, '') = '' THEN dxcc END AS dxcc, count(*)::int AS qsos
         FROM (SELECT gridsquare, dxcc FROM qso WHERE station_id = ANY ($1) ORDER BY time_on DESC, id DESC LIMIT ${MAPPED_QSOS}) latest
        GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2`,
      [stationIds],
    );
    return { count, recent: recent.rows, lastHour: lastHour.rows, worked: worked.rows };
  });
}

export interface SearchSlotRow {
  band: string;
  mode: string;
  confirmed: boolean;
  qsos: number;
  times: string[];
}

/** A search's rows and what they were read from: the base call matched on and the QSOs counted. */
export interface SearchRows {
  base: string;
  ids: number[];
  slots: SearchSlotRow[];
}

/** Times listed per slot at most (the latest). */
export const SEARCH_TIMES = 20;

/**
 * The band and mode slots where `call` (upper case) is in the log. A call with a '/' matches
 * only itself; one without matches every QSO whose public_log_base_call (sql/046) it is.
 * Both seek qso_dupe_key, which leads with (station_id, public_log_base_call(call)) (sql/054).
 * `base` and `ids` say which changes can alter the answer (lib/publicLog/cache.ts): a QSO
 * written with that base, or one of those QSOs rewritten or deleted.
 */
export async function searchPublicLog(db: Queryable, stationIds: number[], call: string): Promise<SearchRows> {
  const exact = call.includes('/');
  const { rows } = await db.query<SearchRows>({
    name: 'public_log_search',
    text: `WITH hit AS (
             SELECT id, band, ${MODE} AS mode, qsl_rcvd = 'Y' OR lotw_qsl_rcvd = 'Y' AS confirmed, time_on FROM qso
              WHERE station_id = ANY ($1) AND public_log_base_call(call) = public_log_base_call($2) AND ($3 = false OR upper(call) = $2))
           SELECT public_log_base_call($2) AS base,
                  coalesce((SELECT json_agg(id ORDER BY id) FROM hit), '[]') AS ids,
                  coalesce((SELECT json_agg(s ORDER BY s.band, s.mode)
                              FROM (SELECT band, mode, bool_or(confirmed) AS confirmed, count(*)::int AS qsos,
                                           (array_agg(to_char(time_on, 'YYYY-MM-DD"T"HH24:MI:SS"Z"') ORDER BY time_on DESC))[1:${SEARCH_TIMES}] AS times
                                      FROM hit GROUP BY 1, 2) AS s), '[]') AS slots`,
    values: [stationIds, call, exact],
  });
  return rows[0]!;
}
