import type { NormalizedQso } from '../adif/normalize.js';
import { dxccEntity } from '../dxcc/entities.js';
import { resolveCallsign } from '../dxcc/resolver.js';
import { distanceKm, gridCentre } from '../adif/gridPosition.js';
import type { TargetStation } from '../accounts/targetStations.js';

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
  station: TargetStation,
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
function fillDistance(qso: NormalizedQso, station: TargetStation): void {
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
export function stationCallsignMismatch(qso: NormalizedQso, station: TargetStation): string | null {
  const stated = qso.fields.station_callsign;
  if (stated === undefined || stated === station.callsign) return null;
  return `STATION_CALLSIGN ${stated} differs from the station location's callsign ${station.callsign}`;
}

/**
 * The callsign a record says it was made from (STATION_CALLSIGN, else OPERATOR) when that is not
 * the location's, else null. Runs before fillStation.
 */
export function foreignCallsign(qso: NormalizedQso, station: TargetStation): string | null {
  const stated = qso.fields.station_callsign ?? qso.fields.operator;
  if (stated === undefined || stated.toUpperCase() === station.callsign.toUpperCase()) return null;
  return stated;
}
