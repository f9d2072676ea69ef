import type pg from 'pg';
import { createStation } from './stations.js';
import { inOwnerTransaction } from '../db/transaction.js';
import { beginQsoWrite } from '../qso/writeLock.js';
import { SqlParams } from '../db/sqlParams.js';
import { countryOf, STATION_FIELDS, type StationFields } from './stationFields.js';

/** The station object of the v2 API: its columns, read as they are. */
export interface Station extends StationFields {
  id: number;
  uuid: string;
  country: string;
  active: boolean;
}

const COLUMNS = 'id, uuid, name, callsign, gridsquare, city, dxcc, country, cq, itu, state, cnty, iota, sota, wwff, pota, sig, sig_info, power, active';

type Queryable = Pick<pg.PoolClient, 'query'>;

export async function listStations(db: pg.Pool, userId: number): Promise<Station[]> {
  const { rows } = await db.query<Station>(`SELECT ${COLUMNS} FROM stations WHERE user_id = $1 ORDER BY id`, [userId]);
  return rows;
}

export async function findStation(db: Queryable, userId: number, id: number): Promise<Station | null> {
  const { rows } = await db.query<Station>(`SELECT ${COLUMNS} FROM stations WHERE id = $1 AND user_id = $2`, [id, userId]);
  return rows[0] ?? null;
}

/**
 * Another location of the owner whose every writable field equals `fields`: the same place
 * entered twice. A different name is a different location (that is how one clones a location).
 */
async function identicalStation(db: Queryable, userId: number, fields: StationFields, exceptId: number | null): Promise<number | null> {
  const params = new SqlParams();
  const same = STATION_FIELDS.map((field) => `${field} IS NOT DISTINCT FROM ${params.add(fields[field])}`);
  const { rows } = await db.query<{ id: number }>(
    `SELECT id FROM stations WHERE user_id = ${params.add(userId)} AND id IS DISTINCT FROM ${params.add(exceptId)}::int
        AND ${same.join(' AND ')} ORDER BY id LIMIT 1`,
    params.values,
  );
  return rows[0]?.id ?? null;
}

export type StationWrite = { station: Station } | { identicalTo: number };

/** Creates a location unless an identical one exists; the owner's first location becomes active. */
export async function insertStation(db: pg.Pool, userId: number, fields: StationFields): Promise<StationWrite> {
  return inOwnerTransaction(db, userId, async (client) => {
    const identicalTo = await identicalStation(client, userId, fields, null);
    if (identicalTo !== null) return { identicalTo };
    const id = await createStation(client, { userId, ...fields, country: countryOf(fields.dxcc) });
    return { station: (await findStation(client, userId, id))! };
  });
}

/**
 * Applies `changes` (and moves the active flag here when `activate`); null when the location is
 * not the owner's, `identicalTo` when the result would duplicate another location.
 */
export async function updateStation(
  db: pg.Pool, userId: number, id: number, changes: Partial<StationFields>, activate: boolean,
): Promise<StationWrite | null> {
  return inOwnerTransaction(db, userId, async (client) => {
    const current = await findStation(client, userId, id);
    if (!current) return null;
    const next = { ...current, ...changes };
    const identicalTo = await identicalStation(client, userId, next, id);
    if (identicalTo !== null) return { identicalTo };

    const params = new SqlParams();
    const assignments = STATION_FIELDS.filter((field) => field in changes).map((field) => `${field} = ${params.add(next[field])}`);
    if ('dxcc' in changes) assignments.push(`country = ${params.add(countryOf(next.dxcc))}`);
    if (assignments.length) {
      await client.query(`UPDATE stations SET ${assignments.join(', ')} WHERE id = ${params.add(id)}`, params.values);
    }
    if (activate && !current.active) {
      // Two statements: the one-active-per-user index is checked row by row.
      await client.query('UPDATE stations SET active = false WHERE user_id = $1 AND active', [userId]);
      await client.query('UPDATE stations SET active = true WHERE id = $1', [id]);
    }
    return { station: (await findStation(client, userId, id))! };
  });
}

export type StationDeletion = 'deleted' | 'active' | 'not_found';

/**
 * Deletes a location that is not the active one, and its QSOs (each a deletion in the change
 * feed); their QSL images, OQRS requests and contest links, the location's contest sessions and
 * logbook links go with them through the foreign-key cascades.
 */
export async function deleteStation(db: pg.Pool, userId: number, id: number): Promise<StationDeletion> {
  return inOwnerTransaction(db, userId, async (client) => {
    const station = await findStation(client, userId, id);
    if (!station) return 'not_found';
    if (station.active) return 'active';
    // The QSOs first, while the location still names its owner: their tombstones then reach the
    // owner's change feed (a cascade from the location's row could not say whose they were).
    await client.query('DELETE FROM qso WHERE station_id = $1', [id]);
    await client.query('DELETE FROM stations WHERE id = $1', [id]);
    return 'deleted';
  }, (client) => beginQsoWrite(client, [userId]));
}
