import type pg from 'pg';
import { randomHex } from '../auth/secrets.js';
import { foreignStationIds } from './stations.js';
import { begin } from '../db/transaction.js';

export interface NewLogbook {
  userId: number;
  name: string;
  slug?: string;
  stationIds: number[];
  active?: boolean;
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
