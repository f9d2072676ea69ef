import type pg from 'pg';
import { inTransaction } from '../db/transaction.js';

export interface NewStation {
  userId: number;
  name: string;
  callsign: string;
  gridsquare?: string;
  city?: string;
  dxcc?: number | null;
  country?: string;
  cq?: number | null;
  itu?: number | null;
  state?: string;
  cnty?: string;
  iota?: string;
  sota?: string;
  wwff?: string;
  pota?: string;
  sig?: string;
  sig_info?: string;
  power?: number | null;
  uuid?: string;
  active?: boolean;
  settings?: Record<string, unknown>;
}

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Creates a station location. The user's first location becomes active; `active: true` moves
 * the active flag to the new one.
 */
export async function createStation(db: Queryable, station: NewStation): Promise<number> {
  const { rows: existing } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM stations WHERE user_id = $1', [station.userId]);
  const active = station.active === true || existing[0]!.count === 0;
  if (active) await db.query('UPDATE stations SET active = false WHERE user_id = $1 AND active', [station.userId]);
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO stations (user_id, name, callsign, gridsquare, city, dxcc, country, cq, itu, state, cnty, iota, sota, wwff,
                           pota, sig, sig_info, power, uuid, active, settings)
     VALUES ($1, $2, upper($3), upper($4), $5, $6, $7, $8, $9, $10, $11, upper($12), upper($13), upper($14), upper($15),
             upper($16), upper($17), $18, coalesce($19::uuid, gen_random_uuid()), $20, $21)
     RETURNING id`,
    [station.userId, station.name, station.callsign, station.gridsquare ?? '', station.city ?? '', station.dxcc ?? null,
      station.country ?? '', station.cq ?? null, station.itu ?? null, station.state ?? '', station.cnty ?? '',
      station.iota ?? '', station.sota ?? '', station.wwff ?? '', station.pota ?? '', station.sig ?? '',
      station.sig_info ?? '', station.power ?? null, station.uuid ?? null, active, station.settings ?? {}],
  );
  return rows[0]!.id;
}

/** Ids among `ids` that are not station locations of `userId`. */
export async function foreignStationIds(db: Queryable, userId: number, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<{ id: number }>('SELECT id FROM stations WHERE user_id = $1 AND id = ANY($2::int[])', [userId, ids]);
  const owned = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !owned.has(id));
}

export interface StationSummary {
  id: number;
  name: string;
  callsign: string;
  gridsquare: string;
  active: boolean;
}

/** A user's station locations, oldest first. */
export async function listStations(db: Queryable, userId: number): Promise<StationSummary[]> {
  const { rows } = await db.query<StationSummary>(
    'SELECT id, name, callsign, gridsquare, active FROM stations WHERE user_id = $1 ORDER BY id',
    [userId],
  );
  return rows;
}

/** The ids of a user's active station location (none or one). */
export async function activeStationIds(db: Queryable, userId: number): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM stations WHERE user_id = $1 AND active', [userId]);
  return rows.map((r) => r.id);
}

/** One station location as v1 `station_info` shows it: every value a string (or null), as the original's driver returned them. */
export interface StationInfoRow {
  station_id: string;
  station_profile_name: string;
  station_gridsquare: string;
  station_callsign: string;
  station_active: '1' | null;
  station_uuid: string;
  station_city: string;
  station_iota: string;
  station_sota: string;
  station_wwff: string;
  station_pota: string;
  station_sig: string;
  station_sig_info: string;
  station_dxcc: string | null;
  station_cnty: string;
  station_cq: string | null;
  station_itu: string | null;
  station_state: string;
  station_country: string;
}

/** A user's station locations as v1 `station_info` rows, oldest first. */
export async function stationInfoRows(db: Queryable, userId: number): Promise<StationInfoRow[]> {
  const { rows } = await db.query<StationInfoRow>(
    `SELECT id::text AS station_id, name AS station_profile_name, gridsquare AS station_gridsquare,
            callsign AS station_callsign, CASE WHEN active THEN '1' END AS station_active,
            uuid::text AS station_uuid, city AS station_city, iota AS station_iota, sota AS station_sota,
            wwff AS station_wwff, pota AS station_pota, sig AS station_sig, sig_info AS station_sig_info,
            dxcc::text AS station_dxcc, cnty AS station_cnty, cq::text AS station_cq, itu::text AS station_itu,
            state AS station_state, country AS station_country
       FROM stations WHERE user_id = $1 ORDER BY id`,
    [userId],
  );
  return rows;
}

/** A location to import (v1 `create_station`), and whether to add it to the owner's active logbook. */
export interface StationImport {
  station: NewStation;
  linkActiveLogbook: boolean;
}

/**
 * Whether the location may not be created: the owner has one with the same references and
 * callsign, or its uuid is taken (by any owner, since uuids are unique).
 */
async function isDuplicate(client: Queryable, station: NewStation): Promise<boolean> {
  const { rowCount } = await client.query(
    `SELECT 1 FROM stations
      WHERE (user_id = $1 AND name = $2 AND callsign = upper($3) AND gridsquare = upper($4) AND city = $5
             AND iota = upper($6) AND sota = upper($7) AND state = $8 AND cnty = $9 AND dxcc IS NOT DISTINCT FROM $10
             AND wwff = upper($11) AND pota = upper($12) AND sig = upper($13) AND sig_info = upper($14))
         OR uuid = $15::uuid
      LIMIT 1`,
    [station.userId, station.name, station.callsign, station.gridsquare, station.city, station.iota, station.sota,
      station.state, station.cnty, station.dxcc, station.wwff, station.pota, station.sig, station.sig_info, station.uuid ?? null],
  );
  return (rowCount ?? 0) > 0;
}

/** Creates the locations that are not duplicates, in one transaction; returns how many were created. */
export async function importStations(db: pg.Pool, userId: number, locations: readonly StationImport[]): Promise<number> {
  return inTransaction(db, async (client) => {
    // One import per owner at a time, so two identical requests cannot both pass the duplicate check.
    await client.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
    let created = 0;
    for (const { station, linkActiveLogbook } of locations) {
      if (await isDuplicate(client, station)) continue;
      const stationId = await createStation(client, station);
      if (linkActiveLogbook) {
        await client.query(
          'INSERT INTO logbook_stations (logbook_id, station_id) SELECT id, $2 FROM logbooks WHERE user_id = $1 AND active',
          [userId, stationId],
        );
      }
      created++;
    }
    return created;
  });
}
