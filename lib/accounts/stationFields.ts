import { dxccEntity } from '../dxcc/entities.js';

/** The writable fields of a station location, in the object's order. */
export const STATION_FIELDS = [
  'name', 'callsign', 'gridsquare', 'city', 'dxcc', 'cq', 'itu', 'state', 'cnty',
  'iota', 'sota', 'wwff', 'pota', 'sig', 'sig_info', 'power',
] as const;

export type StationField = (typeof STATION_FIELDS)[number];

export interface StationFields {
  name: string;
  callsign: string;
  gridsquare: string;
  city: string;
  dxcc: number | null;
  cq: number | null;
  itu: number | null;
  state: string;
  cnty: string;
  iota: string;
  sota: string;
  wwff: string;
  pota: string;
  sig: string;
  sig_info: string;
  power: number | null;
}

/** A location cannot exist without these: they identify it and go into every QSO logged from it. */
export const REQUIRED_STATION_FIELDS: readonly StationField[] = ['name', 'callsign', 'dxcc', 'cq', 'itu'];

/** Fields of the object that are not writable; ignored in bodies so a GET result can be sent back. */
export const READ_ONLY_STATION_FIELDS = ['id', 'uuid', 'country', 'active'] as const;

/** The entity name stored beside the code, so the object carries the country without a lookup. */
export function countryOf(dxcc: number | null): string {
  return dxcc ? dxccEntity(dxcc)?.countryName ?? '' : '';
}
