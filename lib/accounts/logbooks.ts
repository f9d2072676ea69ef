import type pg from 'pg';
import { randomHex } from '../auth/secrets.js';
import { foreignStationIds } from './stations.js';
import { begin } from '../db/transaction.js';
import { named } from '../db/connectionSetup.js';

export interface NewLogbook {
  userId: number;
  name: string;
  slug?: string;
  stationIds: number[];
  active?: boolean;
  publication?: Partial<Publication>;
}

/** What a logbook's owner publishes of it (docs/public-log.md); the defaults are the columns'. */
export interface Publication {
  public: boolean;
  public_show_times: boolean;
  public_show_frequency: boolean;
  public_banner: string;
}

export const PUBLIC_BANNER_LIMIT = 500;
const PUBLICATION_FIELDS = ['public', 'public_show_times', 'public_show_frequency', 'public_banner'] as const;

/**
 * Sets the given publication fields of a logbook (by id, whoever owns it: callers scope it);
 * false when there is no such logbook. Bound parameters only: the column names come from the
 * fixed list above, never from the caller.
 */
export async function setPublication(db: Pick<pg.PoolClient, 'query'>, logbookId: number, changes: Partial<Publication>): Promise<boolean> {
  const fields = PUBLICATION_FIELDS.filter((field) => changes[field] !== undefined);
  if (fields.length === 0) {
    const { rowCount } = await db.query('SELECT 1 FROM logbooks WHERE id = $1', [logbookId]);
    return rowCount === 1;
  }
  const assignments = fields.map((field, i) => `${field} = $${i + 2}`).join(', ');
  const { rowCount } = await db.query(`UPDATE logbooks SET ${assignments} WHERE id = $1`, [logbookId, ...fields.map((field) => changes[field])]);
  return rowCount === 1;
}

export class LogbookError extends Error {}

/** A URL-safe public slug: the given one, or the name's letters and digits plus a random tail. */
export function makeSlug(name: string): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'logbook';
  return `${base}-${randomHex(3)}`;
}

export async function createLogbook(db: pg.Pool, logbook: NewLogbook): Promise<{ id: number; slug: string }> {
  const foreign = await foreignStationIds(db, logbook.userId, logbook.stationIds);
  if (foreign.length) throw new LogbookError(`station(s) ${foreign.join(', ')} do not belong to user ${logbook.userId}`);
  const slug = logbook.slug ?? makeSlug(logbook.name);
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(slug)) throw new LogbookError('slug may hold letters, digits, "-" and "_" (1–64 characters)');
  const client = await db.connect();
  try {
    await begin(client);
    const { rows: count } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM logbooks WHERE user_id = $1', [logbook.userId]);
    const active = logbook.active === true || count[0]!.n === 0;
    if (active) await client.query('UPDATE logbooks SET active = false WHERE user_id = $1 AND active', [logbook.userId]);
    const { rows } = await client.query<{ id: number }>(
      'INSERT INTO logbooks (user_id, name, slug, active) VALUES ($1, $2, $3, $4) RETURNING id',
      [logbook.userId, logbook.name, slug, active],
    );
    const id = rows[0]!.id;
    if (logbook.publication) await setPublication(client, id, logbook.publication);
    await client.query('INSERT INTO logbook_stations (logbook_id, station_id) SELECT $1, unnest($2::int[])', [id, logbook.stationIds]);
    await client.query('COMMIT');
    return { id, slug };
  } catch (error) {
    await client.query('ROLLBACK');
    if ((error as { code?: string }).code === '23505') throw new LogbookError(`a logbook with that name or slug already exists`);
    throw error;
  } finally {
    client.release();
  }
}

/** The station locations of the logbook published under `slug` (none for a logbook without any); null when there is no such logbook. */
export async function stationIdsBySlug(db: pg.Pool, slug: string): Promise<number[] | null> {
  const { rows } = await db.query<{ station_ids: number[] }>({
    ...named(db, {
      name: 'logbook-stations-by-slug',
      text: `SELECT array_remove(array_agg(ls.station_id), NULL) AS station_ids
               FROM logbooks l LEFT JOIN logbook_stations ls ON ls.logbook_id = l.id
              WHERE l.slug = $1 GROUP BY l.id`,
    }),
    values: [slug],
  });
  return rows[0]?.station_ids ?? null;
}
