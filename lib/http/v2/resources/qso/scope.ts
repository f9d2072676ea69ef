import { forbidden } from '../../../errors.js';
import { asInteger } from '../../../../input/jsonValues.js';
import { ownedStationIds } from '../../params.js';
import type { RequestContext } from '../../resource.js';
import { qsoScope, type QsoScope } from '../../../../qso/scope.js';

/** Every QSO the token may reach: the owner's station locations, one operator for club members below officer. */
export async function requestScope({ services, principal }: RequestContext): Promise<QsoScope> {
  return qsoScope(principal, await ownedStationIds(services.db, principal));
}

/** The numeric id of the addressed QSO (the dispatcher has checked its form). */
export function qsoId({ id }: RequestContext): number {
  return Number(id);
}

export interface OwnedStation {
  id: number;
  callsign: string;
}

/**
 * A `station_profile_id` body value naming a station location of the token owner. Anything
 * else — not a number, another user's location, no location at all — is 403 forbidden.
 */
export async function ownedStation({ services, principal }: RequestContext, value: unknown): Promise<OwnedStation> {
  const id = asInteger(value);
  const { rows } = id !== undefined && id > 0 && id <= 2_147_483_647
    ? await services.db.query<OwnedStation>('SELECT id, callsign FROM stations WHERE id = $1 AND user_id = $2', [id, principal.userId])
    : { rows: [] };
  if (!rows[0]) throw forbidden('station_profile_id does not belong to the token owner', { field: 'station_profile_id' });
  return rows[0];
}
