import { validationError } from '../../../errors.js';
import type { Scalar } from '../../../body.js';
import { asText, isBlank } from '../../../../input/jsonValues.js';
import { readInteger } from '../../../bodyValues.js';
import { isKnownBand } from '../../../../adif/bands.js';
import { isValidCallsign, normalizeCallsign } from '../../../../adif/callsign.js';
import { fieldInfo } from '../../../../adif/fields.js';
import { normalizeGrid } from '../../../../adif/grid.js';
import { parseFrequency } from '../../../../adif/frequency.js';

/**
 * The fields PATCH accepts as plain values (SPEC.md "Fields changeable by PATCH") and how each
 * value is checked and stored. The specially handled ones (qso_date with time_on, time_off,
 * mode, freq, freq_rx, station_profile_id) are parsed by the update handler.
 */
type PlainKind = 'text' | 'upper' | 'integer' | 'call' | 'band' | 'grid';

const PLAIN_FIELDS: Readonly<Record<string, PlainKind>> = {
  call: 'call',
  band: 'band',
  band_rx: 'band',
  rst_sent: 'text',
  rst_rcvd: 'text',
  gridsquare: 'grid',
  name: 'text',
  comment: 'text',
  notes: 'text',
  qth: 'text',
  tx_pwr: 'text',
  // prop_mode and state are upper-cased like ADIF imports store them, so the SAT band filter matches.
  prop_mode: 'upper',
  sat_name: 'upper',
  sat_mode: 'upper',
  sota_ref: 'upper',
  pota_ref: 'upper',
  wwff_ref: 'upper',
  iota: 'upper',
  sig: 'upper',
  sig_info: 'upper',
  darc_dok: 'upper',
  state: 'upper',
  cnty: 'text',
  cqz: 'integer',
  ituz: 'integer',
  qsl_via: 'text',
  srx: 'integer',
  stx: 'integer',
  srx_string: 'upper',
  stx_string: 'upper',
};

export const SPECIAL_FIELDS = ['qso_date', 'time_on', 'time_off', 'mode', 'freq', 'freq_rx', 'station_profile_id'] as const;
export type SpecialField = (typeof SPECIAL_FIELDS)[number];

/** Every field name PATCH accepts, for the schema and the documentation. */
export const EDITABLE_FIELDS: readonly string[] = [...SPECIAL_FIELDS, ...Object.keys(PLAIN_FIELDS)];

/** Confirmation bookkeeping: written by the confirmation services, never by API clients. */
const CONFIRMATION_FIELD = /^(?:qsl_(?:sent|rcvd)(?:_via)?|qsl[sr]date|lotw_|eqsl_|qrzcom_|clublog_|hrdlog_|dcl_)/;
/** Derived from the callsign (DXCC resolution). */
const DXCC_FIELDS = new Set(['dxcc', 'country', 'cont', 'pfx']);
/** Columns that must never be empty. */
const REQUIRED_COLUMNS = new Set(['call', 'band']);

export function isPlainField(name: string): boolean {
  return Object.hasOwn(PLAIN_FIELDS, name);
}

export function isSpecialField(name: string): name is SpecialField {
  return (SPECIAL_FIELDS as readonly string[]).includes(name);
}

/** 400 for a body member PATCH does not accept, saying why. */
export function rejectField(name: string): never {
  if (CONFIRMATION_FIELD.test(name)) {
    throw validationError(`Field "${name}" is confirmation bookkeeping and cannot be edited through the API`, { field: name });
  }
  if (DXCC_FIELDS.has(name)) {
    throw validationError(`Field "${name}" is derived from the callsign and cannot be edited through the API`, { field: name });
  }
  throw validationError(`Field "${name}" is not an editable QSO field`, { field: name, allowed: EDITABLE_FIELDS });
}

/** A body value as trimmed text; null for null and blank values (which clear the field). */
export function textValue(name: string, value: Scalar): string | null {
  if (isBlank(value)) return null;
  const text = asText(value);
  if (text === undefined) throw validationError(`Field "${name}" must be a string or a number`, { field: name });
  return text;
}

function invalid(name: string, expected: string): never {
  throw validationError(`Field "${name}" must be ${expected}`, { field: name });
}

/** Zones and serial numbers: integers within the ADIF field's range and the column's 32 bits. */
function integerValue(name: string, text: string): number {
  const info = fieldInfo(name)!;
  return readInteger(text, name, { min: info.minimum ?? 0, max: info.maximum ?? 2_147_483_647 })!;
}

/** The stored value of a plain field, checked and normalised; throws 400 naming the field. */
export function plainValue(name: string, value: Scalar): string | number | null {
  const text = textValue(name, value);
  if (text === null) {
    if (REQUIRED_COLUMNS.has(name)) throw validationError(`Field "${name}" cannot be empty`, { field: name });
    return null;
  }
  switch (PLAIN_FIELDS[name]!) {
    case 'text':
      return String(value);
    case 'upper':
      return text.toUpperCase();
    case 'integer':
      return integerValue(name, text);
    case 'call': {
      const call = normalizeCallsign(text);
      return isValidCallsign(call) ? call : invalid(name, 'a valid callsign');
    }
    case 'band': {
      const band = text.toLowerCase();
      return isKnownBand(band) ? band : invalid(name, 'an ADIF band such as 20m');
    }
    case 'grid':
      return normalizeGrid(text) ?? invalid(name, 'a Maidenhead locator');
  }
}

/** freq / freq_rx: Hz as a number, or a string with a unit suffix ("7.0475M"); blank or 0 clears. */
export function frequencyValue(name: string, value: Scalar): number | null {
  const text = textValue(name, value);
  if (text === null) return null;
  const hz = parseFrequency(text, 'Hz');
  if (hz === null) invalid(name, 'a frequency in Hz, or a number with a unit suffix such as 7.0475M');
  return hz === 0 ? null : hz;
}
