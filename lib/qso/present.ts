/**
 * The QSO object of the v2 interface, built from a row of the qso table. Lists stream up to
 * 5000 of these per request, so the column list is fixed at load time and each row is mapped
 * by one straight pass.
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

/** Columns a QSO object is built from, in the order they are read. */
export const QSO_COLUMNS: readonly string[] = [
  'id', 'station_id', 'call', 'band', 'band_rx', 'mode', 'submode', 'freq', 'freq_rx', 'time_on', 'time_off',
  ...EDITABLE_TEXT, ...EDITABLE_INTEGER, 'qsl_via', ...CONTEST_INTEGER, ...CONTEST_TEXT,
  'dxcc', ...READ_ONLY_TEXT, ...DATES,
];

/** `alias.col, alias.col, …` for SELECT and RETURNING lists. */
export function qsoSelectList(alias = 'q'): string {
  return QSO_COLUMNS.map((column) => `${alias}.${column}`).join(', ');
}

export function presentQso(row: QsoRow): QsoObject {
  const qso: QsoObject = {
    id: row.id,
    station_id: row.station_id,
    call: row.call,
    band: row.band,
    band_rx: row.band_rx ?? '',
    mode: row.mode,
    submode: row.submode,
    freq: row.freq,
    freq_rx: row.freq_rx,
    qso_date: row.time_on,
    time_off: row.time_off,
  };
  for (const column of EDITABLE_TEXT) qso[column] = row[column] ?? '';
  for (const column of EDITABLE_INTEGER) qso[column] = row[column];
  qso.qsl_via = row.qsl_via ?? '';
  for (const column of CONTEST_INTEGER) qso[column] = row[column];
  for (const column of CONTEST_TEXT) qso[column] = row[column] ?? '';
  qso.dxcc = row.dxcc;
  for (const column of READ_ONLY_TEXT) qso[column] = row[column] ?? '';
  for (const column of DATES) qso[column] = row[column];
  return qso;
}
