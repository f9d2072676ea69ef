import { enumeration } from './spec.js';
import { parseFrequency } from './frequency.js';

/** An ADIF band with its inclusive edges in whole Hz. */
export interface Band {
  readonly name: string;
  readonly lowerHz: number;
  readonly upperHz: number;
}

function edgeHz(band: string, mhz: string | undefined): number {
  const hz = mhz === undefined ? null : parseFrequency(mhz, 'MHz');
  if (hz === null) throw new Error(`ADIF Band enumeration: ${band} has an unreadable edge "${mhz}"`);
  return hz;
}

/** The ADIF Band enumeration (2190m … submm), ascending, names lower-case. */
export const BANDS: readonly Band[] = enumeration('Band')
  .map((row) => {
    const name = row['Band']!.toLowerCase();
    return { name, lowerHz: edgeHz(name, row['Lower Freq (MHz)']), upperHz: edgeHz(name, row['Upper Freq (MHz)']) };
  })
  .sort((a, b) => a.lowerHz - b.lowerHz);

const BAND_NAMES: ReadonlySet<string> = new Set(BANDS.map((band) => band.name));

/** The band whose inclusive edges contain `hz`, or null outside every band. */
export function bandFromFrequency(hz: number): string | null {
  for (const band of BANDS) {
    if (hz < band.lowerHz) return null;
    if (hz <= band.upperHz) return band.name;
  }
  return null;
}

/** Whether `name` (any case) is an ADIF band. */
export function isKnownBand(name: string): boolean {
  return BAND_NAMES.has(name.toLowerCase());
}

/**
 * A band filter of the API: "SAT" is the satellite pseudo-band (matched on the
 * propagation mode by the caller), anything else a band name, lower-cased.
 * Unknown band names are kept: they match nothing rather than failing.
 */
export type BandFilter = { readonly kind: 'sat' } | { readonly kind: 'band'; readonly band: string };

/** Parses a band filter parameter; null when it is blank. */
export function parseBandFilter(input: string): BandFilter | null {
  const band = input.trim().toLowerCase();
  if (band === '') return null;
  return band === 'sat' ? { kind: 'sat' } : { kind: 'band', band };
}
