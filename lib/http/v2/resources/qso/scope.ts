import { forbidden } from '../../../errors.js';
import { asInteger } from '../../../../input/jsonValues.js';
import type { RequestContext } from '../../resource.js';
import { qsoScope, type QsoScope } from '../../../../qso/scope.js';
import type { TargetStation } from '../../../../accounts/targetStations.js';

/** Every QSO the token may reach: the owner's station locations, one operator for club members below officer. */
export function requestScope({ principal }: RequestContext): QsoScope {
  return qsoScope(principal, principal.stationIds);
}

/** The numeric id of the addressed QSO (the dispatcher has checked its form). */
export function qsoId({ id }: RequestContext): number {
  return Number(id);
}

export type OwnedStation = TargetStation;

/**
 * A `station_profile_id` body value naming a station location of the token owner (read with the
 * token: no round trip). Anything else — not a number, another user's location, no location at
 * all — is 403 forbidden.
 */
export function ownedStation({ principal }: RequestContext, value: unknown): OwnedStation {
  const id = asInteger(value);
  const station = id === undefined ? undefined : principal.stations.find((owned) => owned.id === id);
  if (station === undefined) throw forbidden('station_profile_id does not belong to the token owner', { field: 'station_profile_id' });
  return station;
}
