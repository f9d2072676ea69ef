// The confirmation types of the v2 list's qsl_filter, and where a QSO object says each was received.
export const CONFIRMATIONS = [
  { key: 'qsl', label: 'QSL', field: 'qsl_rcvd' },
  { key: 'lotw', label: 'LoTW', field: 'lotw_qsl_rcvd' },
  { key: 'eqsl', label: 'eQSL', field: 'eqsl_qsl_rcvd' },
  { key: 'qrz', label: 'QRZ', field: 'qrzcom_qso_download_status' },
  { key: 'clublog', label: 'Club Log', field: 'clublog_qso_download_status' },
];

export const received = (qso) => CONFIRMATIONS.filter((c) => qso[c.field] === 'Y');
