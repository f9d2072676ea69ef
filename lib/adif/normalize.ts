import { bandFromFrequency, isKnownBand } from './bands.js';
import { isValidCallsign, normalizeCallsign } from './callsign.js';
import { combineDateTime, parseAdifDate, parseAdifTime, parseDateTime, timeOffFor } from './datetime.js';
import { allFields, isApplicationField, isHeaderField, type FieldInfo } from './fields.js';
import { formatMhz, parseFrequency, type FrequencyUnit } from './frequency.js';
import { normalizeGrid, normalizeGridExtension, normalizeGridList } from './grid.js';
import { splitMode } from './modes.js';

/**
 * One QSO record, from an ADIF file (UPPER-case names, MHz frequencies) or a JSON
 * create (lower-case names, Hz frequencies), brought into the form the database
 * stores. Runs once per record on million-record imports: every per-field decision
 * is precomputed into RULES at module load.
 */

export interface NormalizedQso {
  call: string;
  /** 'YYYY-MM-DD HH:MM:SS' UTC, from QSO_DATE + TIME_ON. */
  timeOn: string;
  /** Same form, from QSO_DATE_OFF / TIME_OFF; defaults to timeOn, rolls over midnight. */
  timeOff: string;
  /** Lower-case; BAND, else derived from FREQ; '' when neither. */
  band: string;
  /** BAND_RX, else derived from FREQ_RX. */
  bandRx: string | null;
  /** Main mode after submode splitting; '' when none. */
  mode: string;
  submode: string | null;
  /** Hz. */
  freq: number | null;
  freqRx: number | null;
  /** Every other field: lower-case ADIF name → normalised value. */
  fields: Record<string, string>;
}

export interface NormalizeOptions {
  /** Unit of FREQ / FREQ_RX values without a unit suffix: MHz for ADIF, Hz for JSON. */
  frequencyUnit: FrequencyUnit;
}

export interface NormalizeResult {
  /** null when the record cannot be stored; messages then say why. */
  qso: NormalizedQso | null;
  /** Plain sentences about this record, without a record number. */
  messages: string[];
  /** Upper-case names of fields outside the ADIF catalogue (kept in `fields` all the same). */
  unknownFields: string[];
}

export type RawRecord = Readonly<Record<string, string | number | boolean | null>>;

/**
 * The trimmed raw values of the fields that become NormalizedQso properties rather
 * than entries of `fields`. A class, so that every record's values share one shape.
 */
class CoreValues {
  CALL: string | undefined = undefined;
  QSO_DATE: string | undefined = undefined;
  TIME_ON: string | undefined = undefined;
  QSO_DATE_OFF: string | undefined = undefined;
  TIME_OFF: string | undefined = undefined;
  BAND: string | undefined = undefined;
  BAND_RX: string | undefined = undefined;
  MODE: string | undefined = undefined;
  SUBMODE: string | undefined = undefined;
  FREQ: string | undefined = undefined;
  FREQ_RX: string | undefined = undefined;
}
type CoreField = keyof CoreValues;

/** Checks and normalises one value; null means it is invalid and gets dropped. */
type ValueNormalizer = (text: string) => string | null;

interface ValueRule {
  readonly kind: 'value';
  /** ADIF name, for messages. */
  readonly name: string;
  /** Key in NormalizedQso.fields. */
  readonly key: string;
  /** null: kept verbatim. Otherwise receives the trimmed value. */
  readonly normalize: ValueNormalizer | null;
  /** Completes the sentence `<NAME> "<value>" is not …`. */
  readonly expected: string;
}

/** The part of a ValueRule that depends on the field's name and data type. */
type ValueHandling = Pick<ValueRule, 'normalize' | 'expected'>;

type FieldRule = ValueRule | { readonly kind: 'core'; readonly name: CoreField } | { readonly kind: 'header' };

/** Fields holding a callsign, normalised like CALL. */
const CALLSIGN_FIELDS = new Set(['OPERATOR', 'STATION_CALLSIGN', 'OWNER_CALLSIGN', 'CONTACTED_OP', 'EQ_CALL', 'GUEST_OP']);

/**
 * String fields the original product upper-cases. References typed SOTARef, WWFFRef,
 * IOTARefNo, POTARefList and Enumeration fields (DARC_DOK, QSL_RCVD, …) are upper-cased
 * by their data type below.
 */
const UPPER_CASE_FIELDS = new Set(['SAT_NAME', 'SIG', 'SIG_INFO', 'SRX_STRING', 'STX_STRING']);
const UPPER_CASE_TYPES = new Set(['Enumeration', 'IOTARefNo', 'SOTARef', 'WWFFRef', 'POTARef', 'POTARefList']);

/** Enumerations whose codes contain names in mixed case ("MA,Middlesex"): kept verbatim. */
const MIXED_CASE_ENUMERATION_FIELDS = new Set(['CNTY', 'MY_CNTY']);

/** DXCC entity codes are an enumeration of integers; 0 means "no DXCC entity". */
const DXCC_FIELDS = new Set(['DXCC', 'MY_DXCC']);

/** Integer values must fit the database's 32-bit integer columns. */
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

const INTEGER = /^-?\d+$/;
/** A leading decimal number; what follows (a unit such as "W") is ignored. */
const LEADING_NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)/;

/**
 * Digits as String(Number(text)) would give them back: no leading zero, no "-0". Such text is
 * kept as it is, because String(number) stores each result in V8's number-string cache, which
 * keeps it alive into the old generation (see hertzText in lib/import/rowValues.ts).
 */
function isCanonicalInteger(text: string): boolean {
  const first = text.charCodeAt(0) === 0x2d ? 1 : 0;
  return text.charCodeAt(first) !== 0x30 || (first === 0 && text.length === 1);
}

function integerNormalizer(minimum: number | null, maximum: number | null): ValueHandling {
  const low = Math.max(minimum ?? INT32_MIN, INT32_MIN);
  const high = Math.min(maximum ?? INT32_MAX, INT32_MAX);
  return {
    normalize: (text) => {
      if (!INTEGER.test(text)) return null;
      const value = Number(text);
      if (value < low || value > high) return null;
      return isCanonicalInteger(text) ? text : String(value);
    },
    expected: `an integer from ${low} to ${high}`,
  };
}

function numberNormalizer(minimum: number | null, maximum: number | null): ValueHandling {
  const low = minimum ?? -Infinity;
  const high = maximum ?? Infinity;
  let expected = 'a number';
  if (minimum !== null && maximum !== null) expected = `a number from ${minimum} to ${maximum}`;
  else if (minimum !== null) expected = `a number of at least ${minimum}`;
  return {
    normalize: (text) => {
      const match = LEADING_NUMBER.exec(text);
      if (match === null) return null;
      const number = match[0].endsWith('.') ? match[0].slice(0, -1) : match[0];
      const value = Number(number);
      return value >= low && value <= high ? number : null;
    },
    expected,
  };
}

/** These two never reject a value, so they need no `expected`. */
const UPPER_CASE: ValueHandling = { normalize: (text) => text.toUpperCase(), expected: '' };
const VERBATIM: ValueHandling = { normalize: null, expected: '' };

/** How the value of a catalogue field is normalised, by its name first, then its data type. */
function valueNormalizer(field: FieldInfo): ValueHandling {
  if (CALLSIGN_FIELDS.has(field.name)) {
    return {
      normalize: (text) => {
        const call = normalizeCallsign(text);
        return isValidCallsign(call) ? call : null;
      },
      expected: 'a callsign',
    };
  }
  if (UPPER_CASE_FIELDS.has(field.name)) return UPPER_CASE;
  if (MIXED_CASE_ENUMERATION_FIELDS.has(field.name)) return VERBATIM;
  if (DXCC_FIELDS.has(field.name)) return integerNormalizer(0, null);
  switch (field.dataType) {
    case 'Date':
      return { normalize: parseAdifDate, expected: 'a valid date' };
    case 'Integer':
      return integerNormalizer(field.minimum, field.maximum);
    case 'PositiveInteger':
      return integerNormalizer(Math.max(field.minimum ?? 1, 1), field.maximum);
    case 'Number':
      return numberNormalizer(field.minimum, field.maximum);
    case 'Boolean':
      return {
        normalize: (text) => {
          const flag = text.toUpperCase();
          return flag === 'Y' || flag === 'N' ? flag : null;
        },
        expected: 'Y or N',
      };
    case 'GridSquare':
      return { normalize: normalizeGrid, expected: 'a Maidenhead locator' };
    case 'GridSquareExt':
      return { normalize: normalizeGridExtension, expected: 'a locator extension (2 or 4 characters)' };
    case 'GridSquareList':
      return { normalize: normalizeGridList, expected: 'a list of 4- or 6-character locators' };
    default:
      return UPPER_CASE_TYPES.has(field.dataType) ? UPPER_CASE : VERBATIM;
  }
}

const CORE_FIELD_NAMES: ReadonlySet<string> = new Set(Object.keys(new CoreValues()));

function isCoreField(name: string): name is CoreField {
  return CORE_FIELD_NAMES.has(name);
}

const HEADER_RULE: FieldRule = { kind: 'header' };

function ruleFor(field: FieldInfo): FieldRule {
  if (field.header) return HEADER_RULE;
  if (isCoreField(field.name)) return { kind: 'core', name: field.name };
  return { kind: 'value', name: field.name, key: field.name.toLowerCase(), ...valueNormalizer(field) };
}

/** Rules under both the upper-case (ADIF) and lower-case (JSON) spelling, so most lookups hit at once. */
const RULES: ReadonlyMap<string, FieldRule> = new Map(
  allFields().flatMap((field) => {
    const rule = ruleFor(field);
    return [
      [field.name, rule],
      [field.name.toLowerCase(), rule],
    ] as const;
  }),
);

function ruleForName(name: string): FieldRule | undefined {
  const rule = RULES.get(name) ?? RULES.get(name.toUpperCase());
  if (rule !== undefined) return rule;
  return isHeaderField(name) ? HEADER_RULE : undefined; // USERDEF1, USERDEF2, …
}

const QUOTED_VALUE_MAX = 40;

/** A value for a message: quoted, control characters escaped, long values shortened. */
function quote(text: string): string {
  return JSON.stringify(text.length > QUOTED_VALUE_MAX ? `${text.slice(0, QUOTED_VALUE_MAX)}…` : text);
}

function textOf(value: string | number | boolean): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return value ? 'Y' : 'N';
}

/** QSO_DATE + TIME_ON → 'YYYY-MM-DD HH:MM:SS'. QSO_DATE may carry the time itself (the API's qso_date form). */
function qsoStart(core: CoreValues, reasons: string[]): string | null {
  const dateText = core.QSO_DATE;
  const timeText = core.TIME_ON;
  let date: string | null = null;
  let time: string | null = null;
  if (dateText === undefined) reasons.push('QSO_DATE is missing');
  else {
    date = parseAdifDate(dateText);
    if (date === null) {
      const dateTime = parseDateTime(dateText);
      if (dateTime === null) reasons.push(`QSO_DATE ${quote(dateText)} is not a valid date`);
      else ({ date, time } = dateTime);
    }
  }
  if (timeText !== undefined) {
    time = parseAdifTime(timeText);
    if (time === null) reasons.push(`TIME_ON ${quote(timeText)} is not a valid time`);
  } else if (time === null) reasons.push('TIME_ON is missing');
  return date !== null && time !== null ? combineDateTime(date, time) : null;
}

/** An optional date or time field; invalid → null and a message. */
function optionalPart(
  name: CoreField,
  text: string | undefined,
  parse: (text: string) => string | null,
  expected: string,
  messages: string[],
): string | null {
  if (text === undefined) return null;
  const value = parse(text);
  if (value === null) messages.push(`${name} ${quote(text)} is not ${expected}; field dropped`);
  return value;
}

/**
 * FREQ / FREQ_RX in Hz; invalid → null and a message. 0 Hz, which some loggers write for
 * "unknown", is absent. Some loggers write Hz where ADIF wants MHz (`<FREQ:7>7076000` with BAND
 * 40m, 7 THz as MHz), whatever the digit count: a value is Hz when read as Hz it lies in the
 * record's band and read as MHz it does not; without BAND, when read as Hz it lies in some band
 * and read as MHz in none or in submm (300 GHz–7.5 THz, where a 6–7 digit HF value in Hz would
 * land: a submm QSO states its band). Said in one message per field, which the import groups.
 */
function frequency(name: CoreField, text: string | undefined, stated: string | undefined, unit: FrequencyUnit, messages: string[]): number | null {
  if (text === undefined) return null;
  const hz = parseFrequency(text, unit);
  // A value with a unit of its own ("7076000 Hz", "14.074 MHz") reads the same either way.
  const asHertz = unit === 'MHz' ? parseFrequency(text, 'Hz') : null;
  const hertzBand = asHertz === null || asHertz === 0 || asHertz === hz ? null : bandFromFrequency(asHertz);
  if (hertzBand !== null) {
    const mhzBand = hz === null ? null : bandFromFrequency(hz);
    const isHertz = stated === undefined ? mhzBand === null || mhzBand === 'submm' : hertzBand === stated.toLowerCase() && mhzBand !== hertzBand;
    if (isHertz) {
      messages.push(`${name} ${quote(text)} is Hz, not MHz: stored as ${formatMhz(asHertz!)} MHz`);
      return asHertz;
    }
  }
  if (hz === null) messages.push(`${name} ${quote(text)} is not a frequency; field dropped`);
  return hz === 0 ? null : hz;
}

/**
 * The band a record states, lower-cased and kept even when FREQ disagrees (said in a
 * message), else the band FREQ lies in, else null.
 */
function band(
  bandName: CoreField,
  given: string | undefined,
  freqName: CoreField,
  hz: number | null,
  messages: string[],
): string | null {
  const derived = hz === null ? null : bandFromFrequency(hz);
  if (given !== undefined) {
    const stated = given.toLowerCase();
    if (!isKnownBand(stated)) messages.push(`${bandName} ${quote(given)} is not an ADIF band`);
    else if (derived !== null && derived !== stated) {
      messages.push(`${bandName} ${stated} does not match ${freqName} ${formatMhz(hz!)} MHz (${derived})`);
    }
    return stated;
  }
  if (hz !== null && derived === null) messages.push(`${freqName} ${formatMhz(hz)} MHz is outside every band`);
  return derived;
}

/**
 * Normalises one record. Field names match in any case; null and blank values are
 * absent; header fields inside a record are dropped silently; invalid values of
 * typed fields are dropped with a message; unknown fields are kept and listed.
 * A record without CALL or a valid QSO_DATE / TIME_ON is rejected.
 */
export function normalizeRecord(raw: RawRecord, options: NormalizeOptions): NormalizeResult {
  const messages: string[] = [];
  const unknownFields: string[] = [];
  const fields: Record<string, string> = {};
  const core = new CoreValues();

  for (const name in raw) {
    const value = raw[name];
    if (value === null || value === undefined) continue;
    const text = textOf(value);
    const trimmed = text.trim();
    if (trimmed === '') continue;
    const rule = ruleForName(name);
    if (rule === undefined) {
      fields[name.toLowerCase()] = text;
      if (!isApplicationField(name)) unknownFields.push(name.toUpperCase());
    } else if (rule.kind === 'core') {
      core[rule.name] = trimmed;
    } else if (rule.kind === 'value') {
      if (rule.normalize === null) fields[rule.key] = text;
      else {
        const normalized = rule.normalize(trimmed);
        if (normalized === null) messages.push(`${rule.name} ${quote(text)} is not ${rule.expected}; field dropped`);
        else fields[rule.key] = normalized;
      }
    }
  }

  const reasons: string[] = [];
  const call = normalizeCallsign(core.CALL ?? '');
  if (call === '') reasons.push('CALL is missing');
  else if (!isValidCallsign(call)) reasons.push(`CALL ${quote(core.CALL!)} is not a valid callsign`);
  const timeOn = qsoStart(core, reasons);
  if (timeOn === null || reasons.length > 0) return { qso: null, messages: reasons, unknownFields };

  const dateOff = optionalPart('QSO_DATE_OFF', core.QSO_DATE_OFF, parseAdifDate, 'a valid date', messages);
  const timeOff = optionalPart('TIME_OFF', core.TIME_OFF, parseAdifTime, 'a valid time', messages);
  const freq = frequency('FREQ', core.FREQ, core.BAND, options.frequencyUnit, messages);
  const freqRx = frequency('FREQ_RX', core.FREQ_RX, core.BAND_RX, options.frequencyUnit, messages);
  const { mode, submode } = splitMode(core.MODE ?? '', core.SUBMODE);

  const qso: NormalizedQso = {
    call,
    timeOn,
    timeOff: timeOffFor(timeOn, dateOff, timeOff),
    band: band('BAND', core.BAND, 'FREQ', freq, messages) ?? '',
    bandRx: band('BAND_RX', core.BAND_RX, 'FREQ_RX', freqRx, messages),
    mode,
    submode,
    freq,
    freqRx,
    fields,
  };
  return { qso, messages, unknownFields };
}
