/**
 * Confirmation downloads as the services write them (REFERENCE §11: preamble, header, field
 * layout), filled with made-up QSOs: never a real person's log.
 */

export type Fields = Array<[string, string]>;

/** One QSO of a download: the report's view of it. */
export interface DownloadQso {
  call: string;
  /** YYYYMMDD */
  date: string;
  /** HHMM or HHMMSS */
  time: string;
  /** As the service writes it (LoTW: upper-case, "20M"). */
  band: string;
  mode: string;
  more?: Fields;
}

function field(name: string, value: string): string {
  return `<${name}:${value.length}>${value}`;
}

/** One field per line, the services' layout. */
function record(fields: Fields, eor: string): string {
  return `${fields.map(([name, value]) => field(name, value)).join('\n')}\n${eor}\n\n`;
}

/** A LoTW "Status Report" (lotwreport.adi) of confirmed QSOs (QSL_RCVD Y, QSLRDATE). */
export function lotwReport(owncall: string, qsos: ReadonlyArray<DownloadQso & { qslrdate?: string; rcvd?: string }>): string {
  const preamble = `ARRL Logbook of the World Status Report\nGenerated at 2024-04-01 09:30:00\nfor ${owncall}\nQuery:\n    OWNCALL: ${owncall}\n  QSL ONLY: YES\nQSL RX SINCE: 2024-01-01 00:00:00\n\n`;
  const header = `${field('PROGRAMID', 'LoTW')}\n\n${field('APP_LoTW_LASTQSL', '2024-03-30 18:00:00')}\n\n${field('APP_LoTW_NUMREC', String(qsos.length))}\n\n<eoh>\n\n`;
  const records = qsos.map((qso) => {
    const hhmmss = qso.time.padEnd(6, '0');
    const timestamp = `${qso.date.slice(0, 4)}-${qso.date.slice(4, 6)}-${qso.date.slice(6)}T${hhmmss.slice(0, 2)}:${hhmmss.slice(2, 4)}:${hhmmss.slice(4)}Z`;
    return record([
      ['APP_LoTW_OWNCALL', owncall], ['STATION_CALLSIGN', owncall], ['MY_DXCC', '230'], ['MY_GRIDSQUARE', 'JO62QM'],
      ['CALL', qso.call], ['BAND', qso.band], ['MODE', qso.mode], ['APP_LoTW_MODEGROUP', qso.mode === 'CW' ? 'CW' : 'DATA'],
      ['QSO_DATE', qso.date], ['TIME_ON', hhmmss], ['APP_LoTW_QSO_TIMESTAMP', timestamp],
      ['QSL_RCVD', qso.rcvd ?? 'Y'], ['QSLRDATE', qso.qslrdate ?? '20240315'], ['APP_LoTW_RXQSL', '2024-03-15 11:22:33'],
      ...(qso.more ?? []),
    ], '<eor>');
  });
  return preamble + header + records.join('');
}

/** A QRZ logbook download: lower-case fields, app_qrzlog_status C (confirmed) or N. */
export function qrzDownload(owncall: string, qsos: ReadonlyArray<DownloadQso & { status: string; qsldate?: string }>): string {
  const preamble = `QRZLogbook download for ${owncall.toLowerCase()}\nDate: Mon Apr  1 09:30:00 2024\nBookid: 123456\nRecords: ${qsos.length}\n`;
  const header = `${field('ADIF_VER', '3.1.4')}\n${field('PROGRAMID', 'QRZLogbook')}\n${field('PROGRAMVERSION', '2.0')}\n<eoh>\n`;
  const records = qsos.map((qso, i) => record([
    ['app_qrzlog_logid', String(900000 + i)], ['app_qrzlog_status', qso.status], ...(qso.qsldate ? [['app_qrzlog_qsldate', qso.qsldate] as [string, string]] : []),
    ['band', qso.band.toLowerCase()], ['call', qso.call], ['mode', qso.mode], ['qso_date', qso.date], ['time_on', qso.time],
    ['station_callsign', owncall], ['lotw_qsl_sent', 'Y'], ...(qso.more ?? []),
  ], '<eor>'));
  return preamble + header + records.join('');
}

/** An eQSL inbox download (DownloadInBox): records written from the sending station's side. */
export function eqslInbox(owncall: string, qsos: readonly DownloadQso[]): string {
  const header = `Received eQSLs for ${owncall}\n${field('PROGRAMID', 'eQSL.cc DownloadInBox')}\n${field('ADIF_Ver', '1.00')}\n<EOH>\n`;
  const records = qsos.map((qso) => record([
    ['CALL', qso.call], ['QSO_DATE', qso.date], ['TIME_ON', qso.time], ['BAND', qso.band], ['MODE', qso.mode],
    ['RST_SENT', '599'], ['QSL_SENT', 'Y'], ['QSL_SENT_VIA', 'E'], ['QSLSDATE', '20240320'], ['QSLMSG', 'TNX QSO 73'], ['APP_EQSL_AG', 'Y'],
    ...(qso.more ?? []),
  ], '<EOR>'));
  return header + records.join('');
}

/** A Club Log download of matched QSOs. */
export function clublogDownload(owncall: string, qsos: readonly DownloadQso[]): string {
  const header = `Club Log export for ${owncall}\n${field('ADIF_VER', '3.1.0')}\n${field('PROGRAMID', 'Club Log')}\n<EOH>\n`;
  const records = qsos.map((qso) => record([
    ['CALL', qso.call], ['QSO_DATE', qso.date], ['TIME_ON', qso.time], ['BAND', qso.band], ['MODE', qso.mode],
    ...(qso.more ?? []),
  ], '<EOR>'));
  return header + records.join('');
}
