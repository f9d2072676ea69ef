/**
 * The QSO object of the v2 interface, built from a row of the qso table: its fields, and the
 * columns they come from in the order they are selected. Pages of thousands (lists, the change
 * feed) write the same object's JSON straight from COPY rows (copyJson.ts).
 */

/** Text columns shown as '' when unset, in output order: the PATCH-editable ones first. */
const EDITABLE_TEXT = [
  'rst_sent', 'rst_rcvd', 'gridsquare', 'name', 'comment', 'notes', 'qth', 'tx_pwr', 'prop_mode', 'sat_name',
  'sat_mode', 'sota_ref', 'pota_ref', 'wwff_ref', 'iota', 'sig', 'sig_info', 'darc_dok', 'state', 'cnty',
] as const;

/** Integer columns shown as a number or null. */
const EDITABLE_INTEGER = ['cqz', 'ituz'] as const;
const CONTEST_INTEGER = ['srx', 'stx'] as const;
const CONTEST_TEXT = ['srx_string', 'stx_string'] as const;

/** Read-only text columns: who logged it, the DXCC data and the confirmation statuses. */
const READ_ONLY_TEXT = [
  'operator', 'station_callsign', 'country', 'cont',
  'qsl_sent', 'qsl_rcvd', 'qsl_sent_via', 'qsl_rcvd_via',
  'lotw_qsl_sent', 'lotw_qsl_rcvd', 'eqsl_qsl_sent', 'eqsl_qsl_rcvd',
  'qrzcom_qso_upload_status', 'qrzcom_qso_download_status',
  'clublog_qso_upload_status', 'clublog_qso_download_status',
  'hrdlog_qso_upload_status', 'dcl_qsl_sent', 'dcl_qsl_rcvd',
] as const;

/** Confirmation dates, 'YYYY-MM-DD' or null. */
const DATES = [
  'qslsdate', 'qslrdate', 'lotw_qslsdate', 'lotw_qslrdate', 'eqsl_qslsdate', 'eqsl_qslrdate',
  'qrzcom_qso_upload_date', 'qrzcom_qso_download_date', 'clublog_qso_upload_date', 'clublog_qso_download_date',
  'hrdlog_qso_upload_date', 'dcl_qslsdate', 'dcl_qslrdate',
] as const;

type TextColumn = (typeof EDITABLE_TEXT)[number] | (typeof CONTEST_TEXT)[number] | (typeof READ_ONLY_TEXT)[number] | 'qsl_via' | 'band_rx';
type IntegerColumn = (typeof EDITABLE_INTEGER)[number] | (typeof CONTEST_INTEGER)[number] | 'dxcc';
type DateColumn = (typeof DATES)[number];

/** A qso row as node-postgres returns it (bigint and timestamp parsers: lib/db/database.ts). */
export type QsoRow = {
  id: number;
  station_id: number;
  call: string;
  band: string;
  mode: string;
  submode: string | null;
  freq: number | null;
  freq_rx: number | null;
  /** 'YYYY-MM-DD HH:MM:SS' (timestamp(0) read as text). */
  time_on: string;
  time_off: string | null;
} & Record<TextColumn, string | null> &
  Record<IntegerColumn, number | null> &
  Record<DateColumn, string | null>;

/** The QSO object: SPEC.md's fields, every PATCH-editable field, and the read-only bookkeeping. */
export type QsoObject = Record<string, string | number | null>;

/**
 * The QSO object's fields in output order: its name, the column it comes from, and how the
 * value is shown ('text': '' when unset; 'value': as read, null when unset — timestamps and dates
 * are read as text). presentQso (the object) and QsoJsonFromCopy (its JSON text from COPY rows,
 * for pages of thousands) both follow this one list.
 */
type FieldKind = 'value' | 'text';
export const QSO_JSON_FIELDS: ReadonlyArray<readonly [field: string, column: keyof QsoRow, kind: FieldKind]> = [
  ['id', 'id', 'value'], ['station_id', 'station_id', 'value'], ['call', 'call', 'value'], ['band', 'band', 'value'],
  ['band_rx', 'band_rx', 'text'], ['mode', 'mode', 'value'], ['submode', 'submode', 'value'],
  ['freq', 'freq', 'value'], ['freq_rx', 'freq_rx', 'value'], ['qso_date', 'time_on', 'value'], ['time_off', 'time_off', 'value'],
  ...EDITABLE_TEXT.map((column) => [column, column, 'text'] as const),
  ...EDITABLE_INTEGER.map((column) => [column, column, 'value'] as const),
  ['qsl_via', 'qsl_via', 'text'],
  ...CONTEST_INTEGER.map((column) => [column, column, 'value'] as const),
  ...CONTEST_TEXT.map((column) => [column, column, 'text'] as const),
  ['dxcc', 'dxcc', 'value'],
  ...READ_ONLY_TEXT.map((column) => [column, column, 'text'] as const),
  ...DATES.map((column) => [column, column, 'value'] as const),
];

/** Columns a QSO object is built from, in the order they are read. */
export const QSO_COLUMNS: readonly string[] = QSO_JSON_FIELDS.map(([, column]) => column);

/** `alias.col, alias.col, …` for SELECT and RETURNING lists. */
export function qsoSelectList(alias = 'q'): string {
  return QSO_COLUMNS.map((column) => `${alias}.${column}`).join(', ');
}

export function presentQso(row: QsoRow): QsoObject {
  const qso: QsoObject = {};
  for (const [field, column, kind] of QSO_JSON_FIELDS) qso[field] = kind === 'text' ? (row[column] ?? '') : row[column];
  return qso;
}
