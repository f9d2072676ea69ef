import { parseAdifDate } from '../adif/datetime.js';
import type { NormalizedQso } from '../adif/normalize.js';
import { ADIF_FIELD_COLUMNS, QSO_COLUMNS, type QsoColumn, type QsoColumnKind } from '../db/qsoColumns.js';
import { qsoLabel } from './qsoNotes.js';

/**
 * A normalised QSO as the values of the columns an insert writes: every column but the
 * bookkeeping ones (id, station_id, created_at, updated_at). Fields with a column of their
 * own go there; every other field (APP_*, USERDEFn, the rest of the catalogue, unknown
 * names) goes into `extra` as a JSON object, so an export can give back all of them.
 */

/** The columns an import writes, in this order; station_id is added by the statement. */
export const INSERT_COLUMNS: readonly QsoColumn[] = QSO_COLUMNS.filter((column) => column.source !== 'row' || column.name === 'extra');

const COLUMN_INDEX: ReadonlyMap<string, number> = new Map(INSERT_COLUMNS.map((column, index) => [column.name, index]));

function indexOf(name: string): number {
  const index = COLUMN_INDEX.get(name);
  if (index === undefined) throw new Error(`qso column ${name} is not written by imports`);
  return index;
}

const CALL = indexOf('call');
const TIME_ON = indexOf('time_on');
const TIME_OFF = indexOf('time_off');
const BAND = indexOf('band');
const BAND_RX = indexOf('band_rx');
const MODE = indexOf('mode');
const SUBMODE = indexOf('submode');
const FREQ = indexOf('freq');
const FREQ_RX = indexOf('freq_rx');
const EXTRA = indexOf('extra');

/** Where a field with a column of its own goes, and the kind its value must fit. */
interface FieldColumn {
  readonly index: number;
  readonly kind: QsoColumnKind;
}

const FIELD_COLUMNS: ReadonlyMap<string, FieldColumn> = new Map(
  [...ADIF_FIELD_COLUMNS.values()].map((column) => [column.name, { index: indexOf(column.name), kind: column.kind }]),
);

const INT32 = /^-?\d{1,10}$/;

/**
 * The value as its column's type takes it, or null when it does not fit. The normaliser has
 * already checked catalogue fields; this catches the rest (columns for fields outside the
 * ADIF catalogue, such as CLUBLOG_QSO_DOWNLOAD_DATE, arrive verbatim), which would otherwise
 * fail the whole COPY.
 */
function columnValue(kind: QsoColumnKind, value: string): string | null {
  switch (kind) {
    case 'int': {
      if (!INT32.test(value)) return null;
      const number = Number(value);
      return number >= -2147483648 && number <= 2147483647 ? value : null;
    }
    case 'date':
      return parseAdifDate(value);
    default:
      return value;
  }
}

/** PostgreSQL text cannot hold U+0000; it is dropped rather than failing the whole import. */
function withoutNul(value: string): string {
  return value.includes('\0') ? value.replaceAll('\0', '') : value;
}

/**
 * A frequency in whole Hz as text. Not String(hz): V8 keeps every number it turns into a string
 * in a cache that lives in the old generation, so nearly every QSO's frequency outlived the
 * young collections and was promoted: 15 MB of old-generation garbage per million QSOs, which
 * a steady import seldom collects. toFixed does not use that cache.
 */
function hertzText(hz: number): string {
  return hz.toFixed(0);
}

/**
 * The staging table's columns after the qso columns: a record to be matched with a stored QSO
 * (confirm and merge policies) carries its number, line and whether it came from a recognised
 * download; a record to be inserted has NULL there.
 */
export const MATCH_COLUMNS = [
  { name: 'match_record', type: 'integer' },
  { name: 'match_line', type: 'integer' },
  { name: 'match_download', type: 'boolean' },
] as const;

const MATCH_RECORD = INSERT_COLUMNS.length;

/** The QSO a row holds, as import messages name it (qsoLabel). */
export function rowLabel(row: ReadonlyArray<string | null>): string {
  return qsoLabel(row[CALL] ?? '', row[TIME_ON] ?? '', row[BAND] ?? '', row[MODE] ?? '');
}

/** A fresh array for rowValues to fill: the insert columns. */
export function newRow(): Array<string | null> {
  return new Array<string | null>(INSERT_COLUMNS.length).fill(null);
}

/** A fresh staging row for rowValues to fill, one per import: the insert columns, then MATCH_COLUMNS (NULL unless marked). */
export function newStagingRow(): Array<string | null> {
  return new Array<string | null>(INSERT_COLUMNS.length + MATCH_COLUMNS.length).fill(null);
}

/** Marks a staging row filled by rowValues as one to be matched (toFixed: see hertzText). */
export function markForMatch(row: Array<string | null>, recordNo: number, line: number | null, download: boolean): void {
  row[MATCH_RECORD] = recordNo.toFixed(0);
  row[MATCH_RECORD + 1] = line === null ? null : line.toFixed(0);
  row[MATCH_RECORD + 2] = download ? 't' : 'f';
}

/** Whether markForMatch marked this staging row. */
export function isMarkedForMatch(row: ReadonlyArray<string | null>): boolean {
  return row[MATCH_RECORD] !== null;
}

/**
 * Fills `row` (reused from record to record: every slot is written) with the values of `qso`
 * in INSERT_COLUMNS order: text for every kind (PostgreSQL casts it), null for absent values.
 * A value its column's type cannot take stays in `extra` under its name.
 */
export function rowValues(qso: NormalizedQso, row: Array<string | null>): Array<string | null> {
  row.fill(null);
  row[CALL] = withoutNul(qso.call);
  row[TIME_ON] = qso.timeOn;
  row[TIME_OFF] = qso.timeOff;
  row[BAND] = withoutNul(qso.band);
  row[BAND_RX] = qso.bandRx === null ? null : withoutNul(qso.bandRx);
  row[MODE] = withoutNul(qso.mode);
  row[SUBMODE] = qso.submode === null ? null : withoutNul(qso.submode);
  row[FREQ] = qso.freq === null ? null : hertzText(qso.freq);
  row[FREQ_RX] = qso.freqRx === null ? null : hertzText(qso.freqRx);
  let extra: Record<string, string> | null = null;
  const fields = qso.fields;
  for (const key in fields) {
    const value = withoutNul(fields[key]!);
    const column = FIELD_COLUMNS.get(key);
    const typed = column === undefined ? null : columnValue(column.kind, value);
    if (typed !== null) row[column!.index] = typed;
    else (extra ??= {})[key] = value;
  }
  row[EXTRA] = extra === null ? null : JSON.stringify(extra);
  return row;
}
