/**
 * The columns of the `qso` table (sql/001_schema.sql) with their kinds, in table order: the
 * one list the import (COPY rows, staging table) and the export (SELECT list) are built from.
 * A test compares it with information_schema, so a migration that adds a column fails there
 * until the column is listed here.
 */

export type QsoColumnKind = 'text' | 'int' | 'bigint' | 'date' | 'timestamp' | 'timestamptz' | 'jsonb' | 'xid8';

/**
 * What fills a column: `adif` columns hold the ADIF field of the same (lower-case) name as
 * normalised; `qso` columns come from the normalised record's own properties (timestamps, Hz,
 * band, mode); `row` columns are bookkeeping the database or the importer sets.
 */
export type QsoColumnSource = 'adif' | 'qso' | 'row';

export interface QsoColumn {
  readonly name: string;
  readonly kind: QsoColumnKind;
  readonly source: QsoColumnSource;
}

function columns(source: QsoColumnSource, kind: QsoColumnKind, names: string): QsoColumn[] {
  return names.trim().split(/\s+/).map((name) => ({ name, kind, source }));
}

/** Table order; the test checks order, names and kinds. */
export const QSO_COLUMNS: readonly QsoColumn[] = [
  ...columns('row', 'bigint', 'id'),
  ...columns('row', 'int', 'station_id'),
  ...columns('qso', 'text', 'call'),
  ...columns('qso', 'timestamp', 'time_on time_off'),
  ...columns('qso', 'text', 'band band_rx mode submode'),
  ...columns('qso', 'bigint', 'freq freq_rx'),
  ...columns('adif', 'text', `rst_sent rst_rcvd name qth gridsquare vucc_grids comment notes email prop_mode sat_name sat_mode`),
  ...columns('adif', 'int', 'dxcc'),
  ...columns('adif', 'text', 'country cont'),
  ...columns('adif', 'int', 'cqz ituz'),
  ...columns('adif', 'text', 'pfx state cnty iota sota_ref wwff_ref pota_ref sig sig_info darc_dok tx_pwr rx_pwr'),
  ...columns('adif', 'int', 'srx stx'),
  ...columns(
    'adif',
    'text',
    `srx_string stx_string contest_id operator station_callsign owner_callsign my_gridsquare distance qsl_sent qsl_rcvd`,
  ),
  ...columns('adif', 'date', 'qslsdate qslrdate'),
  ...columns('adif', 'text', 'qsl_sent_via qsl_rcvd_via qsl_via qslmsg qslmsg_rcvd lotw_qsl_sent lotw_qsl_rcvd'),
  ...columns('adif', 'date', 'lotw_qslsdate lotw_qslrdate'),
  ...columns('adif', 'text', 'eqsl_qsl_sent eqsl_qsl_rcvd'),
  ...columns('adif', 'date', 'eqsl_qslsdate eqsl_qslrdate'),
  ...columns('adif', 'text', 'eqsl_ag qrzcom_qso_upload_status'),
  ...columns('adif', 'date', 'qrzcom_qso_upload_date'),
  ...columns('adif', 'text', 'qrzcom_qso_download_status'),
  ...columns('adif', 'date', 'qrzcom_qso_download_date'),
  ...columns('adif', 'text', 'clublog_qso_upload_status'),
  ...columns('adif', 'date', 'clublog_qso_upload_date'),
  ...columns('adif', 'text', 'clublog_qso_download_status'),
  ...columns('adif', 'date', 'clublog_qso_download_date'),
  ...columns('adif', 'text', 'hrdlog_qso_upload_status'),
  ...columns('adif', 'date', 'hrdlog_qso_upload_date'),
  ...columns('adif', 'text', 'dcl_qsl_sent dcl_qsl_rcvd'),
  ...columns('adif', 'date', 'dcl_qslsdate dcl_qslrdate'),
  ...columns('row', 'jsonb', 'extra'),
  ...columns('row', 'timestamptz', 'created_at updated_at'),
  // The transaction that last wrote the row: the change feed's order (sql/007_change_feed.sql).
  ...columns('row', 'xid8', 'txid'),
];

/** Columns holding an ADIF field of their own name, by that lower-case name. */
export const ADIF_FIELD_COLUMNS: ReadonlyMap<string, QsoColumn> = new Map(
  QSO_COLUMNS.filter((column) => column.source === 'adif').map((column) => [column.name, column]),
);

/** The SQL type of a kind, for tables shaped like `qso` (the import's staging table). */
export const SQL_TYPE: Readonly<Record<QsoColumnKind, string>> = {
  text: 'text',
  int: 'integer',
  bigint: 'bigint',
  date: 'date',
  timestamp: 'timestamp(0)',
  timestamptz: 'timestamptz',
  jsonb: 'jsonb',
  xid8: 'xid8',
};
