/** Small ADIF and ADX documents for the upload tests. */

const field = (name: string, value: string) => `<${name}:${Buffer.byteLength(value)}>${value}`;

/** An ADIF document of `count` distinct QSOs (calls K<start>…, 20 m SSB, one minute apart). */
export function adifDocument(count: number, start = 0): string {
  const records: string[] = ['upload test <ADIF_VER:5>3.1.4 <EOH>\n'];
  for (let i = start; i < start + count; i++) {
    const minute = i % 1440;
    const time = `${String(Math.floor(minute / 60)).padStart(2, '0')}${String(minute % 60).padStart(2, '0')}`;
    const day = String(1 + Math.floor(i / 1440) % 28).padStart(2, '0');
    records.push(`${field('CALL', `K${i}A`)} ${field('QSO_DATE', `202401${day}`)} ${field('TIME_ON', time)} ${field('BAND', '20m')} ${field('MODE', 'SSB')} ${field('FREQ', '14.2')}<EOR>\n`);
  }
  return records.join('');
}

export function adxDocument(calls: string[]): string {
  const records = calls.map((call) =>
    `<RECORD><CALL>${call}</CALL><QSO_DATE>20240301</QSO_DATE><TIME_ON>1200</TIME_ON><BAND>40m</BAND><MODE>CW</MODE></RECORD>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<ADX><HEADER><ADIF_VER>3.1.4</ADIF_VER></HEADER><RECORDS>${records.join('')}</RECORDS></ADX>\n`;
}

/** A multipart/form-data body as a browser sends it: text fields, then one file part. */
export function formBody(fields: Array<[string, string]>, file: { name?: string; filename: string; content: string | Buffer } | null, boundary = '----logbookTestBoundary7MA4YWxk') {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  if (file) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name ?? 'file'}"; filename="${file.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    parts.push(Buffer.from(file.content));
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
