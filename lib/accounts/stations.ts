import type pg from 'pg';

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
