import type pg from 'pg';
import { named } from '../db/connectionSetup.js';

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Where a page of a log's changes, or of its QSOs by ascending id, must stop so that nothing can
 * later commit below it (sql/007_change_feed.sql, docs/change-feed.md). Ask on a connection that
 * is not inside a transaction, and only then take the page's snapshot: the cut is only safe for
 * a snapshot taken after it was computed.
 */
export interface ChangeBounds {
  /** Changes of transactions below this one (xid8, as decimal text) are all committed or gone. */
  xidBound: string;
  /** Every QSO id below this one that will ever be stored in these locations is stored. */
  idBound: number;
}

/**
 * Every list and feed page asks it first: named, each connection parses and plans it once (sent
 * unnamed, that was about half of its 0.2 ms of the database's CPU).
 */
const CHANGE_BOUNDS = {
  name: 'change-bounds',
  text: `SELECT xid_bound::text, id_bound::text
           FROM qso_change_bounds(ARRAY(SELECT DISTINCT user_id FROM stations WHERE id = ANY($1::int[])))`,
};

/** The cut for these station locations: the running QSO writers of their owners decide it. */
export async function changeBounds(db: Queryable, stationIds: readonly number[]): Promise<ChangeBounds> {
  const { rows } = await db.query<{ xid_bound: string; id_bound: string }>({ ...named(db, CHANGE_BOUNDS), values: [stationIds] });
  return { xidBound: rows[0]!.xid_bound, idBound: Number(rows[0]!.id_bound) };
}

/** The id below which a since_id page may read (ids are drawn from the sequence before commit). */
export async function sinceIdBound(db: Queryable, stationIds: readonly number[]): Promise<number> {
  return (await changeBounds(db, stationIds)).idBound;
}
