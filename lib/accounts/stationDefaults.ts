import { dxccEntity } from '../dxcc/entities.js';
import { resolveCallsign } from '../dxcc/resolver.js';

/** Where a location is, as its MY_* export fields state it. */
export interface StationPlace {
  dxcc: number | null;
  /** The entity's name as the original stores a country; '' without an entity. */
  country: string;
  cq: number | null;
  itu: number | null;
}

/**
 * A location's DXCC entity and zones: what the operator gave, the rest from the callsign's
 * prefix. Zones come from the callsign only when it resolves to the entity in use (a DL call
 * given DXCC 291 gets no German zones). Throws a RangeError for a DXCC code the ADIF list does
 * not have or lists as deleted.
 */
export function stationPlace(callsign: string, given: { dxcc?: number; cq?: number; itu?: number }): StationPlace {
  const match = resolveCallsign(callsign);
  const dxcc = given.dxcc ?? match?.adif ?? null;
  const entity = dxcc === null ? undefined : dxccEntity(dxcc);
  if (dxcc !== null && entity === undefined) throw new RangeError(`unknown DXCC entity ${dxcc}`);
  // A location is somewhere that counts today.
  if (entity?.deleted) throw new RangeError(`DXCC entity ${dxcc} (${entity.adifName}) is deleted`);
  const sameEntity = match !== null && match.adif === dxcc;
  return {
    dxcc,
    country: entity?.countryName ?? '',
    cq: given.cq ?? (sameEntity ? match.cqz : null),
    itu: given.itu ?? (sameEntity && match.ituz > 0 ? match.ituz : null),
  };
}
