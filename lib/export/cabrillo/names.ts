/**
 * What Cabrillo 3.0 calls things that ADIF names otherwise: the CONTEST tag, the QSO line's mode
 * and frequency field, the CATEGORY-BAND and CATEGORY-MODE values. docs/cabrillo.md shows the
 * tables; a change here changes what sponsors' robots receive.
 */

/** ADIF Contest_IDs whose Cabrillo CONTEST name differs; every other id is written as it is, spaces as hyphens. */
const CONTEST_NAMES: Readonly<Record<string, string>> = {
  'ARRL-FIELD-DAY': 'ARRL-FD',
  'ARRL-RR-SSB': 'ARRL-RR-PH',
  'ARRL-RR-RTTY': 'ARRL-RR-DIG',
};

export function cabrilloContestName(adifContestId: string): string {
  const id = adifContestId.toUpperCase();
  return CONTEST_NAMES[id] ?? id.replace(/\s+/g, '-');
}

export type CabrilloMode = 'CW' | 'PH' | 'FM' | 'RY' | 'DG';

/** ADIF main modes by Cabrillo mode; every other mode is data (DG) except the image modes below. */
const MODE_CLASSES: Readonly<Record<Exclude<CabrilloMode, 'DG'>, readonly string[]>> = {
  CW: ['CW'],
  PH: ['SSB', 'AM', 'DIGITALVOICE'],
  FM: ['FM'],
  RY: ['RTTY'],
};

/** Modes a Cabrillo log cannot express (pictures, not contacts a contest counts). */
export const INEXPRESSIBLE_MODES: readonly string[] = ['ATV', 'SSTV', 'FAX'];

/** The Cabrillo mode of an ADIF main mode, or null when Cabrillo has none. */
export function cabrilloMode(adifMode: string): CabrilloMode | null {
  const mode = adifMode.toUpperCase();
  if (INEXPRESSIBLE_MODES.includes(mode)) return null;
  for (const [cabrillo, modes] of Object.entries(MODE_CLASSES)) if (modes.includes(mode)) return cabrillo as CabrilloMode;
  return 'DG';
}

/** The ADIF modes of each Cabrillo mode but DG, for a statement that classes modes as cabrilloMode does. */
export const MODE_CLASS_LISTS = MODE_CLASSES;

/** CATEGORY-MODE of a log holding only this Cabrillo mode. */
export const CATEGORY_MODE_OF: Readonly<Record<CabrilloMode, string>> = { CW: 'CW', PH: 'SSB', FM: 'FM', RY: 'RTTY', DG: 'DIGI' };

/** The frequency field above 30 MHz: the band's designator (ADIF band → Cabrillo). */
const BAND_DESIGNATORS: Readonly<Record<string, string>> = {
  '6m': '50', '4m': '70', '2m': '144', '1.25m': '222', '70cm': '432', '33cm': '902', '23cm': '1.2G', '13cm': '2.3G',
  '9cm': '3.4G', '6cm': '5.7G', '3cm': '10G', '1.25cm': '24G', '6mm': '47G', '4mm': '75G', '2.5mm': '122G',
  '2mm': '134G', '1mm': '241G', submm: 'LIGHT',
};

/** HF bands by their lower edge in kHz, for a QSO whose frequency is not known. */
const HF_BAND_EDGES_KHZ: Readonly<Record<string, number>> = {
  '2190m': 135, '630m': 472, '160m': 1800, '80m': 3500, '60m': 5060, '40m': 7000, '30m': 10100, '20m': 14000,
  '17m': 18068, '15m': 21000, '12m': 24890, '10m': 28000,
};

/**
 * The QSO line's frequency field: kHz below 30 MHz (the band's lower edge when the frequency is
 * not known), the band designator above; null when neither can be written (8m, 5m, no band).
 */
export function frequencyField(band: string, freqHz: number | null): string | null {
  const designator = BAND_DESIGNATORS[band.toLowerCase()];
  if (designator !== undefined) return designator;
  if (freqHz !== null && freqHz > 0 && freqHz < 30_000_000) return String(Math.floor(freqHz / 1000));
  const edge = HF_BAND_EDGES_KHZ[band.toLowerCase()];
  return edge === undefined ? null : String(edge);
}

/** CATEGORY-BAND of a log on this one band, or null when Cabrillo has no category for it. */
export function categoryBandOf(band: string): string | null {
  const name = band.toLowerCase();
  if (['160m', '80m', '40m', '20m', '15m', '10m', '6m', '4m', '2m'].includes(name)) return name.toUpperCase();
  const designator = BAND_DESIGNATORS[name];
  if (designator === undefined || ['50', '70', '144'].includes(designator)) return null;
  return designator === 'LIGHT' ? 'LIGHT' : designator;
}
