import { ADIF_RECORD_END, adifFieldOpening, formatAdifField } from '../adif/writer.js';
import { QSO_COLUMNS, type QsoColumnKind } from '../db/qsoColumns.js';
import { escapeCopyValue, unescapeCopyValue } from '../import/copyText.js';
import type { ByteOutput } from './byteOutput.js';
import { JSON_ESCAPES, JSON_STRING_GROWTH, jsonStringBytes } from './jsonString.js';

/**
 * A `qso` row as one ADIF record, read from the text that `COPY (SELECT EXPORT_SELECT_LIST …)
 * TO STDOUT WITH (NULL '')` writes, with its station location's fields from the locations read
 * once in the same snapshot (EXPORT_LOCATION_SELECT_LIST): a row names its location by id, not
 * by its 15 columns, which cost the server a sixth of the COPY and this process as much to read.
 * The SELECT lists are built here together with the code reading their rows, so positions
 * cannot drift apart.
 *
 * This runs a million times per export, so the row's bytes are read in one pass that also writes
 * the record's bytes, never becoming strings: columns are selected in output order, and NULL is
 * written as an empty value (ADIF has no NULL: both mean "no field"), which makes the rows, a
 * hundred mostly empty columns, a third as long. An ADIF length counts characters: the value's
 * bytes less its UTF-8 continuation bytes and COPY's escape backslashes, all counted during the
 * same pass. Columns are selected as they are: casts or to_char in SQL cost the server more than
 * the copying here.
 *
 * Field order follows the original product's export: its list of QSO fields, the QSL dates,
 * FREQ / FREQ_RX, the QSO's date and times, the station-profile fields; then every other stored
 * field (the rest of the columns, then `extra` by name), so that import → export → import loses nothing.
 * A station-profile field the QSO carries itself is written as the QSO has it; the location
 * fills only what the QSO lacks.
 */

/** The original product's QSO field order (AdifHelper::getAdifLine). */
const LEADING_FIELDS = `ADDRESS AGE A_INDEX ANT_AZ ANT_EL ANT_PATH ARRL_SECT AWARD_GRANTED AWARD_SUBMITTED BAND BAND_RX
  BIOGRAPHY CALL CHECK CLASS CLUBLOG_QSO_UPLOAD_STATUS CNTY COMMENT CONT CONTACTED_OP CONTEST_ID COUNTRY CQZ CREDIT_GRANTED
  CREDIT_SUBMITTED DARC_DOK DISTANCE DXCC EMAIL EQ_CALL EQSL_QSL_RCVD EQSL_QSL_SENT EQSL_STATUS FISTS FISTS_CC FORCE_INIT
  GRIDSQUARE HEADING IOTA ITUZ K_INDEX LAT LON LOTW_QSL_RCVD LOTW_QSL_SENT LOTW_STATUS MAX_BURSTS MODE MS_SHOWER NAME NOTES
  NR_BURSTS NR_PINGS OPERATOR OWNER_CALLSIGN PFX PRECEDENCE PROP_MODE PUBLIC_KEY HRDLOG_QSO_UPLOAD_STATUS
  QRZCOM_QSO_UPLOAD_STATUS QSLMSG QSL_RCVD QSL_RCVD_VIA QSL_SENT QSL_SENT_VIA QSL_VIA QSO_COMPLETE QSO_RANDOM QTH REGION RIG
  RST_RCVD RST_SENT RX_PWR SAT_MODE SAT_NAME SFI SILENT_KEY SKCC SOTA_REF WWFF_REF POTA_REF SRX SRX_STRING STATE STX STX_STRING
  SUBMODE SWL TEN_TEN TX_PWR UKSMG USACA_COUNTIES VUCC_GRIDS WEB CNTY_ALT MY_CNTY_ALT MY_DARC_DOK MORSE_KEY_INFO MORSE_KEY_TYPE
  QSLMSG_RCVD EQSL_QSLRDATE EQSL_QSLSDATE LOTW_QSLRDATE LOTW_QSLSDATE QSLRDATE QSLSDATE CLUBLOG_QSO_UPLOAD_DATE
  HRDLOG_QSO_UPLOAD_DATE QRZCOM_QSO_UPLOAD_DATE DCL_QSLRDATE DCL_QSLSDATE`;

/** Written from the QSO's columns in this order after the leading fields. */
const QSO_TIME_FIELDS = ['FREQ', 'FREQ_RX', 'QSO_DATE', 'TIME_ON', 'QSO_DATE_OFF', 'TIME_OFF'] as const;

/** The station location's columns that fill the MY_* fields, in the order ExportLocations holds their values. */
export const STATION_COLUMNS = ['callsign', 'city', 'country', 'dxcc', 'gridsquare', 'iota', 'sota', 'wwff', 'pota', 'cq', 'itu', 'state', 'cnty', 'sig', 'sig_info'] as const;

/** SELECT list of the locations (table `stations`): the id, then STATION_COLUMNS as text, '' for NULL. */
export const EXPORT_LOCATION_SELECT_LIST = ['id', ...STATION_COLUMNS.map((column) => `coalesce(${column}::text, '')`)].join(', ');

/** Station locations by id: their STATION_COLUMNS values, as EXPORT_LOCATION_SELECT_LIST reads them. */
export type ExportLocations = ReadonlyMap<number, readonly string[]>;

type Station = Readonly<Record<(typeof STATION_COLUMNS)[number], string>>;

/** DXCC entities whose counties are written "state,county" (USA, Alaska, Hawaii). */
const STATE_QUALIFIED_COUNTY_DXCC = new Set(['6', '110', '291']);

/** The station-profile fields a location fills, in the original's order (MY_GRIDSQUARE / MY_VUCC_GRIDS: see `Fill`). */
const PROFILE_FIELDS: ReadonlyArray<readonly [string, ((station: Station) => string) | null]> = [
  ['STATION_CALLSIGN', (s) => s.callsign],
  ['MY_CITY', (s) => s.city],
  ['MY_COUNTRY', (s) => s.country],
  ['MY_DXCC', (s) => s.dxcc],
  ['MY_GRIDSQUARE', null],
  ['MY_VUCC_GRIDS', null],
  ['MY_IOTA', (s) => s.iota],
  ['MY_SOTA_REF', (s) => s.sota],
  ['MY_WWFF_REF', (s) => s.wwff],
  ['MY_POTA_REF', (s) => s.pota],
  ['MY_CQ_ZONE', (s) => s.cq],
  ['MY_ITU_ZONE', (s) => s.itu],
  ['MY_STATE', (s) => s.state],
  ['MY_CNTY', (s) => (s.cnty !== '' && s.state !== '' && STATE_QUALIFIED_COUNTY_DXCC.has(s.dxcc) ? `${s.state},${s.cnty}` : s.cnty)],
  ['MY_SIG', (s) => s.sig],
  ['MY_SIG_INFO', (s) => s.sig_info],
  ['SIG', null],
  ['SIG_INFO', null],
];

/**
 * Written when the QSO has no value: the original's columns default to 'N' ("not sent", "not
 * received") and its export writes them, so sync clients read an explicit N.
 */
const DEFAULT_VALUES: Readonly<Record<string, string>> = { QSL_SENT: 'N', QSL_RCVD: 'N' };

/** How a stored value becomes the ADIF value. */
const enum Convert {
  Text,
  /** 'YYYY-MM-DD' (date, or the date of a timestamp) → 'YYYYMMDD'. */
  Day,
  /** 'YYYY-MM-DD HH:MM:SS' → 'HHMMSS'. */
  Clock,
  /** Hz → MHz. */
  Mhz,
}

/**
 * What writes a field the QSO lacks. The location's grid is MY_VUCC_GRIDS when it lists several,
 * and MY_GRIDSQUARE otherwise, but only for a QSO with no grid of its own in either field: so a
 * missing MY_GRIDSQUARE is decided at MY_VUCC_GRIDS, the field after it.
 */
const enum Fill {
  None,
  /** The location's value for the field (`Slot.profile`). */
  Station,
  MyGridsquare,
  MyVuccGrids,
  /** The field's DEFAULT_VALUES entry (`Slot.fallback`). */
  Default,
}

/** One field of the record, in output order. */
interface Slot {
  /** `<NAME:` as bytes, validated once. */
  readonly opening: Buffer;
  /** Whether a column is read for it; otherwise only `extra` can hold it. */
  readonly column: boolean;
  /** Its column is the previous slot's (QSO_DATE and TIME_ON both read time_on): not read again. */
  readonly sameColumn: boolean;
  readonly convert: Convert;
  /** Its key in `extra`, where a value its column could not take was kept. */
  readonly key: string;
  readonly fill: Fill;
  /** Index into PROFILE_FIELDS for Fill.Station. */
  readonly profile: number;
  /** The complete field written for Fill.Default. */
  readonly fallback: Buffer;
  /** The same, as the inside of a JSON string. */
  readonly fallbackInJson: Buffer;
}

const FIELD_COLUMNS = QSO_COLUMNS.filter((column) => column.source !== 'row');
const COLUMN_KIND: ReadonlyMap<string, QsoColumnKind> = new Map(FIELD_COLUMNS.map((column) => [column.name, column.kind]));
const TIME_COLUMNS: Readonly<Record<string, readonly [string, Convert]>> = {
  QSO_DATE: ['time_on', Convert.Day],
  TIME_ON: ['time_on', Convert.Clock],
  QSO_DATE_OFF: ['time_off', Convert.Day],
  TIME_OFF: ['time_off', Convert.Clock],
};

/** The SELECT list (qso aliased q): id, extra, the location's id, then one column per slot that has one. */
const selectList = ['q.id', 'q.extra', 'q.station_id'];

function slot(name: string): Slot {
  const key = name.toLowerCase();
  const [column, convert] = TIME_COLUMNS[name] ?? [key, { date: Convert.Day, bigint: Convert.Mhz }[COLUMN_KIND.get(key) as string] ?? Convert.Text];
  const hasColumn = COLUMN_KIND.has(column);
  const sameColumn = hasColumn && selectList[selectList.length - 1] === `q.${column}`;
  if (hasColumn && !sameColumn) selectList.push(`q.${column}`);
  const profile = PROFILE_FIELDS.findIndex(([field]) => field === name);
  const fallback = DEFAULT_VALUES[name];
  const fill =
    name === 'MY_GRIDSQUARE' ? Fill.MyGridsquare
    : name === 'MY_VUCC_GRIDS' ? Fill.MyVuccGrids
    : profile >= 0 && PROFILE_FIELDS[profile]![1] ? Fill.Station
    : fallback !== undefined ? Fill.Default
    : Fill.None;
  const opening = Buffer.from(adifFieldOpening(name));
  const fallbackBytes = fieldBytes(name, fallback ?? '');
  return { opening, column: hasColumn, sameColumn, convert, key, fill, profile, fallback: fallbackBytes, fallbackInJson: jsonStringBytes(fallbackBytes) };
}

const PLANNED: readonly Slot[] = [
  ...LEADING_FIELDS.trim().split(/\s+/).map(slot),
  ...QSO_TIME_FIELDS.map(slot),
  ...PROFILE_FIELDS.map(([name]) => slot(name)),
];

/** Then the columns the plan did not place, in table order (timestamps are QSO_DATE/TIME_ON above). */
const SLOTS: readonly Slot[] = [
  ...PLANNED,
  ...FIELD_COLUMNS.filter((column) => column.kind !== 'timestamp' && !PLANNED.some((s) => s.key === column.name)).map((column) =>
    slot(column.name.toUpperCase()),
  ),
];

/** For the many QSOs without `extra`: the slots that can yield a value without it. */
const SLOTS_WITHOUT_EXTRA: readonly Slot[] = SLOTS.filter((s) => s.column || s.fill !== Fill.None);

/** `extra` keys the slots write; the rest of `extra` follows them. */
const WRITTEN_EXTRA_KEYS: ReadonlySet<string> = new Set(SLOTS.map((s) => s.key));

/** SELECT list of the export query, in row order. */
export const EXPORT_SELECT_LIST = selectList.join(', ');

/** Values read some other way (a plain query's text values, null for NULL) as a row of the export's COPY text. */
export function exportRowText(values: ReadonlyArray<string | null>): string {
  return values.map((value) => (value === null ? '' : escapeCopyValue(value))).join('\t');
}

/** What a station location writes into the records of its QSOs, worked out once per location. */
interface LocationFields {
  /** The complete `<NAME:LEN>value ` per PROFILE_FIELDS entry (empty where the location has no value). */
  readonly profile: readonly Buffer[];
  readonly myGridsquare: Buffer;
  readonly myVuccGrids: Buffer;
}

function fieldBytes(name: string, value: string): Buffer {
  return Buffer.from(value === '' ? '' : `${formatAdifField(name, value)} `);
}

function locationFields(values: readonly string[], inJson: boolean): LocationFields {
  const station = Object.fromEntries(STATION_COLUMNS.map((column, i) => [column, values[i] ?? ''])) as unknown as Station;
  const gridList = station.gridsquare.includes(',');
  const field = inJson ? (name: string, value: string) => jsonStringBytes(fieldBytes(name, value)) : fieldBytes;
  return {
    profile: PROFILE_FIELDS.map(([name, from]) => (from ? field(name, from(station)) : Buffer.alloc(0))),
    myGridsquare: gridList ? Buffer.alloc(0) : field('MY_GRIDSQUARE', station.gridsquare),
    myVuccGrids: gridList ? field('MY_VUCC_GRIDS', station.gridsquare) : Buffer.alloc(0),
  };
}

/** Most a slot can add to the input bytes of its value: the opening, a length, '>', ' ', and "0." before a small frequency. */
const SLOT_OVERHEAD = SLOTS.reduce((sum, s) => sum + s.opening.length + 16, 0);
const RECORD_END = Buffer.from(ADIF_RECORD_END);
const RECORD_END_IN_JSON = jsonStringBytes(RECORD_END);

/** Where the digits are in 'YYYY-MM-DD HH:MM:SS' (a date, or a timestamp): YYYYMMDD and HHMMSS. */
const DAY_DIGITS = Uint8Array.of(0, 1, 2, 3, 5, 6, 8, 9);
const CLOCK_DIGITS = Uint8Array.of(11, 12, 14, 15, 17, 18);

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const CONTROL_END = 0x20;
const TAB = 0x09;
const ZERO = 0x30;
/** COPY text escapes (`\n`, `\t`, …) → the byte they stand for; any other escaped byte stands for itself. */
const UNESCAPED = new Uint8Array(256).map((_, byte) => byte);
for (const [letter, byte] of Object.entries({ b: 8, f: 12, n: 10, r: 13, t: 9, v: 11 })) UNESCAPED[letter.charCodeAt(0)] = byte;

/**
 * Turns export rows (COPY text bytes) into ADIF records appended to a ByteOutput. One instance
 * per export, given the export's locations: it works out the fields of each once, when its first
 * row comes (an export's rows come from one or a few, alternating in id order).
 *
 * `inJson` writes the records as the inside of a JSON string (the v2 ADIF list's `adif`) in the
 * same pass: values with nothing to escape, nearly all of them, are copied as they are; without
 * it a second pass over every byte of the page cost a sixth of the list's CPU.
 */
export class ExportRecordFormatter {
  /** The id of the row last formatted. */
  id = 0;
  private readonly inJson: boolean;
  private readonly recordEnd: Buffer;
  private readonly locations: ExportLocations;
  /** The location of the row last formatted, and its fields. */
  private stationId = 0;
  private location: LocationFields | null = null;
  /** The fields of the locations seen, by id: no more than `locations` holds. */
  private readonly fieldsOf = new Map<number, LocationFields>();
  // The field last read: input[start, end), and how many of its bytes are UTF-8 continuation
  // bytes or escape backslashes (neither counts in an ADIF length).
  private start = 0;
  private end = 0;
  private escapes = 0;
  private continuations = 0;
  /** Bytes of the field last read that JSON escapes: quotes and control bytes COPY leaves as they are. */
  private jsonSpecials = 0;

  constructor(locations: ExportLocations, { inJson = false }: { inJson?: boolean } = {}) {
    this.locations = locations;
    this.inJson = inJson;
    this.recordEnd = inJson ? RECORD_END_IN_JSON : RECORD_END;
  }

  /** Reads the field at `from` of a row ending at `rowEnd`; returns where the next one starts. */
  private read(input: Buffer, from: number, rowEnd: number): number {
    let escapes = 0;
    let continuations = 0;
    let jsonSpecials = 0;
    let i = from;
    for (; i < rowEnd; i++) {
      const byte = input[i]!;
      if (byte === TAB) break;
      if (byte === BACKSLASH) {
        escapes++;
        i++;
      } else if ((byte & 0xc0) === 0x80) continuations++;
      else if (byte < CONTROL_END || byte === QUOTE) jsonSpecials++;
    }
    this.start = from;
    this.end = i;
    this.escapes = escapes;
    this.continuations = continuations;
    this.jsonSpecials = jsonSpecials;
    return i + 1;
  }

  /** The field last read, an unsigned integer (an id). */
  private integer(input: Buffer): number {
    let n = 0;
    for (let i = this.start; i < this.end; i++) n = n * 10 + input[i]! - ZERO;
    return n;
  }

  /** The field last read, as a string (for the few values that are not copied as bytes). */
  private text(input: Buffer): string {
    const raw = input.toString('utf8', this.start, this.end);
    return this.escapes > 0 ? unescapeCopyValue(raw) : raw;
  }

  /** Appends the record of the row input[rowStart, rowEnd) (no newline) to `out`; sets `id`. */
  format(input: Buffer, rowStart: number, rowEnd: number, out: ByteOutput): void {
    let at = this.read(input, rowStart, rowEnd);
    this.id = this.integer(input);
    at = this.read(input, at, rowEnd);
    const extra = this.end === this.start ? null : (JSON.parse(this.text(input)) as Record<string, string>);
    at = this.read(input, at, rowEnd);
    const stationId = this.integer(input);
    const location = stationId === this.stationId && this.location !== null ? this.location : this.loadLocation(stationId);

    // Inside JSON a value's byte can take up to six (its profile fields are escaped already).
    const valueBytes = this.inJson ? JSON_STRING_GROWTH * (rowEnd - rowStart) : rowEnd - rowStart;
    out.reserve(valueBytes + SLOT_OVERHEAD + location.profile.reduce((sum, field) => sum + field.length, 0));
    const recordStart = out.length;
    let ownGridsquare = false;
    for (const s of extra === null ? SLOTS_WITHOUT_EXTRA : SLOTS) {
      if (s.column && !s.sameColumn) at = this.read(input, at, rowEnd);
      if (s.column && this.end > this.start) {
        this.writeField(input, s, out);
        if (s.fill === Fill.MyGridsquare) ownGridsquare = true;
      } else if (extra !== null && (extra[s.key] ?? '') !== '') {
        this.writeText(out, `${formatAdifField(s.key.toUpperCase(), extra[s.key]!)} `);
        if (s.fill === Fill.MyGridsquare) ownGridsquare = true;
      } else if (s.fill === Fill.Station) writeBytes(out, location.profile[s.profile]!);
      else if (s.fill === Fill.Default) writeBytes(out, this.inJson ? s.fallbackInJson : s.fallback);
      else if (s.fill === Fill.MyVuccGrids && !ownGridsquare) {
        writeBytes(out, location.myGridsquare);
        writeBytes(out, location.myVuccGrids);
      }
    }
    if (extra !== null) {
      // jsonb keeps keys ordered by length; the rest is written in name order instead.
      const rest = Object.keys(extra).filter((key) => !WRITTEN_EXTRA_KEYS.has(key)).sort();
      for (const key of rest) if (extra[key] !== '') this.writeText(out, `${formatAdifField(key.toUpperCase(), extra[key]!)} `);
    }
    if (out.length > recordStart) {
      out.reserve(this.recordEnd.length);
      writeBytes(out, this.recordEnd);
    }
  }

  private writeText(out: ByteOutput, text: string): void {
    out.writeText(this.inJson ? JSON.stringify(text).slice(1, -1) : text);
  }

  /** The fields of location `stationId`, worked out when its first row comes; it becomes the last row's. */
  private loadLocation(stationId: number): LocationFields {
    let fields = this.fieldsOf.get(stationId);
    if (fields === undefined) {
      const values = this.locations.get(stationId);
      if (values === undefined) throw new Error(`QSO ${this.id}: its station location ${stationId} is not among the export's`);
      fields = locationFields(values, this.inJson);
      this.fieldsOf.set(stationId, fields);
    }
    this.stationId = stationId;
    this.location = fields;
    return fields;
  }

  /** `<NAME:LEN>value ` for the field last read, converted as the slot says; room is reserved. */
  private writeField(input: Buffer, s: Slot, out: ByteOutput): void {
    const bytes = out.bytes;
    let o = out.length;
    const { start, end } = this;
    for (let i = 0; i < s.opening.length; i++) bytes[o++] = s.opening[i]!;
    switch (s.convert) {
      case Convert.Day:
        o = writeLength(bytes, o, DAY_DIGITS.length);
        for (let i = 0; i < DAY_DIGITS.length; i++) bytes[o++] = input[start + DAY_DIGITS[i]!]!;
        break;
      case Convert.Clock:
        o = writeLength(bytes, o, CLOCK_DIGITS.length);
        for (let i = 0; i < CLOCK_DIGITS.length; i++) bytes[o++] = input[start + CLOCK_DIGITS[i]!]!;
        break;
      case Convert.Mhz:
        o = writeMhz(input, start, end, bytes, o);
        break;
      default: {
        o = writeLength(bytes, o, end - start - this.escapes - this.continuations);
        if (this.inJson && this.escapes + this.jsonSpecials > 0) {
          o = writeJsonEscaped(input, start, end, bytes, o);
          break;
        }
        for (let i = start; i < end; i++) {
          const byte = input[i]!;
          bytes[o++] = byte === BACKSLASH ? UNESCAPED[input[++i]!]! : byte;
        }
      }
    }
    bytes[o++] = 0x20;
    out.length = o;
  }
}

/** COPY text input[start, end) unescaped, then escaped for the inside of a JSON string; room is reserved. */
function writeJsonEscaped(input: Buffer, start: number, end: number, bytes: Buffer, o: number): number {
  for (let i = start; i < end; i++) {
    const byte = input[i] === BACKSLASH ? UNESCAPED[input[++i]!]! : input[i]!;
    const escape = JSON_ESCAPES[byte]!;
    if (escape === null) bytes[o++] = byte;
    else for (let k = 0; k < escape.length; k++) bytes[o++] = escape[k]!;
  }
  return o;
}

function writeBytes(out: ByteOutput, field: Buffer): void {
  const bytes = out.bytes;
  let o = out.length;
  for (let i = 0; i < field.length; i++) bytes[o++] = field[i]!;
  out.length = o;
}

/** `n>` in decimal. */
function writeLength(bytes: Buffer, o: number, n: number): number {
  let digits = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  for (let i = o + digits - 1; i >= o; i--, n = Math.floor(n / 10)) bytes[i] = ZERO + (n % 10);
  bytes[o + digits] = 0x3e;
  return o + digits + 1;
}

/**
 * Whole Hz (decimal digits) → MHz with up to six decimals and no trailing zeros, as formatMhz
 * writes it (14074000 → "14.074", 14000000 → "14", 500 → "0.0005").
 */
function writeMhz(input: Buffer, start: number, end: number, bytes: Buffer, o: number): number {
  const digits = end - start;
  if (digits === 0 || input[start]! < ZERO || input[start]! > ZERO + 9) {
    throw new RangeError(`not a frequency in whole Hz: ${input.toString('utf8', start, end)}`);
  }
  const wholeDigits = Math.max(digits - 6, 0);
  // The fraction is the last six digits, zero-padded on the left; it ends at its last non-zero digit.
  const fractionStart = end - 6;
  const lowest = Math.max(start, fractionStart);
  let fractionEnd = end;
  while (fractionEnd > lowest && input[fractionEnd - 1] === ZERO) fractionEnd--;
  const fractionDigits = fractionEnd > lowest ? fractionEnd - fractionStart : 0;
  const length = Math.max(wholeDigits, 1) + (fractionDigits > 0 ? 1 + fractionDigits : 0);
  o = writeLength(bytes, o, length);
  if (wholeDigits === 0) bytes[o++] = ZERO;
  for (let i = start; i < start + wholeDigits; i++) bytes[o++] = input[i]!;
  if (fractionDigits > 0) {
    bytes[o++] = 0x2e;
    for (let i = fractionStart; i < fractionEnd; i++) bytes[o++] = i < start ? ZERO : input[i]!;
  }
  return o;
}
