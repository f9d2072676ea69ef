import type pg from 'pg';
import type { NormalizedQso } from '../adif/normalize.js';
import { dxccEntity } from '../dxcc/entities.js';
import { resolveCallsign } from '../dxcc/resolver.js';
import { distanceKm, gridCentre } from '../adif/gridPosition.js';

/** What an import needs to know about its target station location. */
export interface ImportStation {
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
export async function loadImportStation(db: Queryable, stationId: number, lockForImport = false): Promise<ImportStation> {
  const { rows } = await db.query<ImportStation>(
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

export function ownedStationsFrom(json: OwnedStationsJson, userId: number): ImportStation[] {
  return json.map(([id, callsign, gridsquare]) => ({ id, userId, callsign, gridsquare }));
}

/**
 * DXCC, COUNTRY, CONT, CQZ and ITUZ the record lacks, from its callsign. A DXCC the record
 * states wins: zones and continent are then only filled when the callsign resolves to that
 * same entity, and COUNTRY comes from the entity list.
 */
export function fillDxcc(qso: NormalizedQso): void {
  const fields = qso.fields;
  if (fields.dxcc !== undefined && fields.country !== undefined && fields.cont !== undefined && fields.cqz !== undefined && fields.ituz !== undefined) {
    return;
  }
  const match = resolveCallsign(qso.call);
  if (fields.dxcc === undefined) {
    if (match === null) return;
    fields.dxcc = String(match.adif);
  }
  const dxcc = Number(fields.dxcc);
  if (fields.country === undefined && dxcc !== 0) {
    const entity = dxccEntity(dxcc);
    if (entity !== undefined) fields.country = entity.countryName;
  }
  if (match !== null && match.adif === dxcc) {
    fields.cont ??= match.continent;
    fields.cqz ??= String(match.cqz);
    fields.ituz ??= String(match.ituz);
  }
}

/**
 * What the location and the caller impose: STATION_CALLSIGN from the location when the record
 * has none, the forced OPERATOR of a club member below officer level, the default OPERATOR
 * where the record names none or only the station itself, and the DISTANCE.
 */
export function fillStation(
  qso: NormalizedQso,
  station: ImportStation,
  operator: string | null | undefined,
  defaultOperator: string | null = null,
): void {
  qso.fields.station_callsign ??= station.callsign;
  if (operator) qso.fields.operator = operator;
  else if (defaultOperator && (!qso.fields.operator || qso.fields.operator === station.callsign)) qso.fields.operator = defaultOperator;
  fillDistance(qso, station);
}

/**
 * DISTANCE (whole km) the record lacks, between the centres of its GRIDSQUARE and its
 * MY_GRIDSQUARE or else the location's (first) locator, the long way round for ANT_PATH L: the
 * original stores it so, and exports and sync clients read it.
 */
function fillDistance(qso: NormalizedQso, station: ImportStation): void {
  const { fields } = qso;
  if (fields.distance !== undefined || fields.gridsquare === undefined) return;
  const theirs = gridCentre(fields.gridsquare);
  const mine = gridCentre(fields.my_gridsquare ?? station.gridsquare.split(',')[0]!);
  if (theirs === null || mine === null) return;
  fields.distance = String(Math.round(distanceKm(mine, theirs, fields.ant_path === 'L')));
}

/**
 * The v1 station check: a record naming another STATION_CALLSIGN than the location's is not
 * stored. Returns the reason, or null when the record passes. Runs before fillStation.
 */
export function stationCallsignMismatch(qso: NormalizedQso, station: ImportStation): string | null {
  const stated = qso.fields.station_callsign;
  if (stated === undefined || stated === station.callsign) return null;
  return `STATION_CALLSIGN ${stated} differs from the station location's callsign ${station.callsign}`;
}
