/**
 * The five confirmation types of the API: key, display label, received-status column (value
 * 'Y' means confirmed) and received-date column.
 */
export const CONFIRMATION_TYPES = {
  lotw: { label: 'LoTW', status: 'lotw_qsl_rcvd', date: 'lotw_qslrdate' },
  eqsl: { label: 'eQSL', status: 'eqsl_qsl_rcvd', date: 'eqsl_qslrdate' },
  qsl: { label: 'QSL Card', status: 'qsl_rcvd', date: 'qslrdate' },
  qrz: { label: 'QRZ.com', status: 'qrzcom_qso_download_status', date: 'qrzcom_qso_download_date' },
  clublog: { label: 'Clublog', status: 'clublog_qso_download_status', date: 'clublog_qso_download_date' },
} as const;

export type ConfirmationType = keyof typeof CONFIRMATION_TYPES;

/** In the order the original product lists them. */
export const CONFIRMATION_KEYS = Object.keys(CONFIRMATION_TYPES) as ConfirmationType[];
