import type pg from 'pg';
import { createLogbook, setPublication, type Publication } from './logbooks.js';
import { inOwnerTransaction } from '../db/transaction.js';

/** The logbook object of the v2 API. */
export interface Logbook extends Publication {
  id: number;
  name: string;
  active: boolean;
  station_ids: number[];
  /** Public slug that addresses the logbook in the v1 check calls; null when it has none. */
  slug: string | null;
}

type Queryable = Pick<pg.PoolClient, 'query'>;

const SELECT = `SELECT l.id, l.name, l.active,
         coalesce(array_agg(ls.station_id ORDER BY ls.station_id) FILTER (WHERE ls.station_id IS NOT NULL), '{}') AS station_ids,
         l.slug, l.public, l.public_show_times, l.public_show_frequency, l.public_banner
    FROM logbooks l LEFT JOIN logbook_stations ls ON ls.logbook_id = l.id`;

export async function listLogbooks(db: pg.Pool, userId: number): Promise<Logbook[]> {
  const { rows } = await db.query<Logbook>(`${SELECT} WHERE l.user_id = $1 GROUP BY l.id ORDER BY l.id`, [userId]);
  return rows;
}

export async function findLogbook(db: Queryable, userId: number, id: number): Promise<Logbook | null> {
  const { rows } = await db.query<Logbook>(`${SELECT} WHERE l.user_id = $1 AND l.id = $2 GROUP BY l.id`, [userId, id]);
  return rows[0] ?? null;
}

/** Id of the owner's logbook with this name, other than `exceptId`. */
export async function logbookNamed(db: Queryable, userId: number, name: string, exceptId: number | null = null): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>(
    'SELECT id FROM logbooks WHERE user_id = $1 AND name = $2 AND id IS DISTINCT FROM $3::int',
    [userId, name, exceptId],
  );
  return rows[0]?.id ?? null;
}

/** Creates a logbook (the owner's first becomes active) with a generated public slug. */
export async function insertLogbook(db: pg.Pool, userId: number, name: string, stationIds: number[], publication: Partial<Publication>): Promise<Logbook> {
  const { id } = await createLogbook(db, { userId, name, stationIds, publication });
  return (await findLogbook(db, userId, id))!;
}

export interface LogbookChanges {
  name?: string;
  stationIds?: number[];
  activate: boolean;
  publication: Partial<Publication>;
}

export type LogbookUpdate = { logbook: Logbook } | { nameTakenBy: number } | null;

/** Renames, replaces the station list, changes what is published and/or activates; null when the logbook is not the owner's. */
export async function updateLogbook(db: pg.Pool, userId: number, id: number, changes: LogbookChanges): Promise<LogbookUpdate> {
  return inOwnerTransaction(db, userId, async (client) => {
    const current = await findLogbook(client, userId, id);
    if (!current) return null;
    if (changes.name !== undefined) {
      const nameTakenBy = await logbookNamed(client, userId, changes.name, id);
      if (nameTakenBy !== null) return { nameTakenBy };
      await client.query('UPDATE logbooks SET name = $1 WHERE id = $2', [changes.name, id]);
    }
    if (changes.stationIds !== undefined) {
      await client.query('DELETE FROM logbook_stations WHERE logbook_id = $1', [id]);
      await client.query('INSERT INTO logbook_stations (logbook_id, station_id) SELECT $1, unnest($2::int[])', [id, changes.stationIds]);
    }
    await setPublication(client, id, changes.publication);
    if (changes.activate && !current.active) {
      // Two statements: the one-active-per-user index is checked row by row.
      await client.query('UPDATE logbooks SET active = false WHERE user_id = $1 AND active', [userId]);
      await client.query('UPDATE logbooks SET active = true WHERE id = $1', [id]);
    }
    return { logbook: (await findLogbook(client, userId, id))! };
  });
}

/** Deletes a logbook that is not the active one (its station links go with it; the locations stay). */
export async function deleteLogbook(db: pg.Pool, userId: number, id: number): Promise<'deleted' | 'active' | 'not_found'> {
  return inOwnerTransaction(db, userId, async (client) => {
    const logbook = await findLogbook(client, userId, id);
    if (!logbook) return 'not_found';
    if (logbook.active) return 'active';
    await client.query('DELETE FROM logbooks WHERE id = $1', [id]);
    return 'deleted';
  });
}
