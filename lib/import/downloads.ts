import { parseAdifDate, parseDateTime } from '../adif/datetime.js';
import type { NormalizedQso } from '../adif/normalize.js';
import type { DownloadSource } from './types.js';

/**
 * Confirmation downloads of the online services, recognised by content (REFERENCE §11), and
 * what their fields mean in our columns. A recognised download's records describe QSOs the log
 * should already hold: by default they confirm those QSOs instead of being inserted.
 *
 * - LoTW report (`PROGRAMID` LoTW, APP_LoTW_* fields): QSL_RCVD/QSLRDATE are LoTW's
 *   confirmation, stored as LOTW_QSL_RCVD/LOTW_QSLRDATE (QSL_SENT/QSLSDATE likewise).
 * - QRZ logbook download (`PROGRAMID` QRZLogbook, app_qrzlog_* fields): app_qrzlog_status C is
 *   QRZ's confirmation (QRZCOM_QSO_DOWNLOAD_STATUS Y), N stays N; app_qrzlog_qsldate its date.
 * - eQSL inbox (`PROGRAMID` "eQSL.cc DownloadInBox"): every record is an eQSL the other station
 *   sent, written from their side: EQSL_QSL_RCVD Y; their QSL_SENT/QSL_SENT_VIA/QSLSDATE are our
 *   receipt (QSLSDATE becomes EQSL_QSLRDATE when the record has none), their RST_SENT our
 *   RST_RCVD, their QSLMSG our QSLMSG_RCVD.
 * - Club Log (`PROGRAMID` naming Club Log): every record is a Club Log match,
 *   CLUBLOG_QSO_DOWNLOAD_STATUS Y unless the record states it.
 */

/** The download a header announces, from PROGRAMID, its APP_LoTW_* fields or LoTW's preamble. */
export function downloadOfHeader(fields: Readonly<Record<string, string>>, comment: string): DownloadSource | null {
  const programId = (fields.PROGRAMID ?? '').trim();
  if (/^lotw$/i.test(programId) || Object.keys(fields).some((name) => name.startsWith('APP_LOTW_')) || /logbook of the world/i.test(comment)) {
    return 'lotw';
  }
  if (/^qrz\s*logbook$/i.test(programId)) return 'qrz';
  if (/^eqsl/i.test(programId)) return 'eqsl';
  if (/club\s*log/i.test(programId)) return 'clublog';
  return null;
}

/** The download a record belongs to by its own fields (a report without its header, JSON records). */
export function downloadOfRecord(fields: Readonly<Record<string, string>>): DownloadSource | null {
  if (fields.app_lotw_owncall !== undefined || fields.app_lotw_modegroup !== undefined || fields.app_lotw_rxqsl !== undefined || fields.app_lotw_qso_timestamp !== undefined) {
    return 'lotw';
  }
  if (fields.app_qrzlog_status !== undefined || fields.app_qrzlog_logid !== undefined) return 'qrz';
  return null;
}

/** Moves `from` to `to` unless `to` is set already; `from` is gone either way. */
function move(fields: Record<string, string>, from: string, to: string): void {
  const value = fields[from];
  if (value === undefined) return;
  delete fields[from];
  fields[to] ??= value;
}

/** The date part of an application field holding a date and time or a date ("2024-01-05 10:00:00", "20240105"). */
function appDate(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  return parseDateTime(text)?.date ?? parseAdifDate(text) ?? undefined;
}

/** Rewrites a download's record into the fields our columns mean. */
export function translateDownload(source: DownloadSource, qso: NormalizedQso): void {
  const fields = qso.fields;
  switch (source) {
    case 'lotw':
      move(fields, 'qsl_rcvd', 'lotw_qsl_rcvd');
      move(fields, 'qslrdate', 'lotw_qslrdate');
      move(fields, 'qsl_sent', 'lotw_qsl_sent');
      move(fields, 'qslsdate', 'lotw_qslsdate');
      if (fields.lotw_qsl_rcvd === 'Y' && fields.lotw_qslrdate === undefined) {
        const received = appDate(fields.app_lotw_rxqsl);
        if (received !== undefined) fields.lotw_qslrdate = received;
      }
      return;
    case 'qrz': {
      const status = fields.app_qrzlog_status?.trim().toUpperCase();
      if (status === 'C') fields.qrzcom_qso_download_status ??= 'Y';
      else if (status === 'N') fields.qrzcom_qso_download_status ??= 'N';
      const date = appDate(fields.app_qrzlog_qsldate);
      if (status === 'C' && date !== undefined) fields.qrzcom_qso_download_date ??= date;
      return;
    }
    case 'eqsl':
      delete fields.qsl_sent;
      delete fields.qsl_sent_via;
      move(fields, 'qslsdate', 'eqsl_qslrdate');
      move(fields, 'rst_sent', 'rst_rcvd');
      move(fields, 'qslmsg', 'qslmsg_rcvd');
      fields.eqsl_qsl_rcvd ??= 'Y';
      return;
    case 'clublog':
      fields.clublog_qso_download_status ??= 'Y';
      return;
  }
}
