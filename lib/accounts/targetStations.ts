import type pg from 'pg';

/**
 * The station locations QSOs are written into: what fills and checks a QSO (callsign, locator,
 * owner), read for an import's target, or for all of a requester's locations in the statement
 * that authenticates the request (lib/auth).
 */

/** What a write of QSOs (an import, a create) needs to know about the station location it writes into. */
export interface TargetStation {
  id: number;
  /** The location's owner (the club account for club locations). */
  userId: number;
  /** Upper-case, as stored. */
  callsign: string;
  /** The location's locator ('' when unset; several, comma-separated, for a VUCC location). */
  gridsquare: string;
}

type Queryable = Pick<pg.Pool, 'query'>;

const STATION_COLUMNS = 'id, user_id AS "userId", callsign, gridsquare';

/**
 * The target location. Inside an import's transaction `lockForImport` takes FOR KEY SHARE on
 * its row, so the location cannot be deleted under a running import (renaming it still can).
 */
export async function loadTargetStation(db: Queryable, stationId: number, lockForImport = false): Promise<TargetStation> {
  const { rows } = await db.query<TargetStation>(
    `SELECT ${STATION_COLUMNS} FROM stations WHERE id = $1${lockForImport ? ' FOR KEY SHARE' : ''}`,
    [stationId],
  );
  if (rows.length === 0) throw new Error(`station location ${stationId} does not exist`);
  return rows[0]!;
}

/**
 * The owner's locations with what a write into one needs, as one JSON value, for the statement
 * that authenticates a request (the owner at `ownerColumn`): a create then checks ownership and
 * fills its QSO without a round trip of its own. Ascending ids; read with ownedStationsFrom.
 */
export function ownedStationsSql(ownerColumn: string): string {
  return `(SELECT coalesce(json_agg(json_build_array(s.id, s.callsign, s.gridsquare) ORDER BY s.id), '[]')
     FROM stations s WHERE s.user_id = ${ownerColumn})`;
}

export type OwnedStationsJson = Array<[id: number, callsign: string, gridsquare: string]>;

export function ownedStationsFrom(json: OwnedStationsJson, userId: number): TargetStation[] {
  return json.map(([id, callsign, gridsquare]) => ({ id, userId, callsign, gridsquare }));
}
