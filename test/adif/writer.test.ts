import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import t from 'tap';
import { parseAdif } from '../../lib/adif/tokenizer.js';
import {
  codePointLength,
  createAdifWriter,
  formatAdifHeader,
  formatAdifRecord,
  formatAdifTimestamp,
} from '../../lib/adif/writer.js';

const header = {
  programId: 'logbook',
  programVersion: '0.1.0',
  createdAt: new Date(Date.UTC(2024, 2, 5, 7, 8, 9)),
  adifVersion: '3.1.6',
};

t.test('the header: comment line, ADIF_VER, PROGRAMID, PROGRAMVERSION, CREATED_TIMESTAMP, <EOH>', async (t) => {
  t.equal(
    formatAdifHeader(header),
    'ADIF export from logbook 0.1.0\n' +
      '<ADIF_VER:5>3.1.6\n' +
      '<PROGRAMID:7>logbook\n' +
      '<PROGRAMVERSION:5>0.1.0\n' +
      '<CREATED_TIMESTAMP:15>20240305 070809\n' +
      '<EOH>\n',
  );
  const parsed = parseAdif(formatAdifHeader(header));
  t.same(parsed.header, {
    comment: 'ADIF export from logbook 0.1.0',
    fields: { ADIF_VER: '3.1.6', PROGRAMID: 'logbook', PROGRAMVERSION: '0.1.0', CREATED_TIMESTAMP: '20240305 070809' },
  });
});

t.test('timestamps are UTC, zero-padded', async (t) => {
  const cases: Array<[Date, string]> = [
    [new Date(Date.UTC(2024, 0, 1, 0, 0, 0)), '20240101 000000'],
    [new Date(Date.UTC(1999, 11, 31, 23, 59, 59)), '19991231 235959'],
    [new Date('2024-06-30T22:30:00-02:00'), '20240701 003000'],
  ];
  for (const [date, expected] of cases) t.equal(formatAdifTimestamp(date), expected, date.toISOString());
});

t.test('lengths count code points', async (t) => {
  const cases: Array<[string, number]> = [
    ['', 0],
    ['K1AB', 4],
    ['Jörg', 4],
    ['山田太郎', 4],
    ['😀', 1],
    ['a😀b🎙', 4],
    ['\r\n', 2],
    ['\ud800x', 2], // a lone surrogate is one character (written as U+FFFD)
  ];
  for (const [value, expected] of cases) t.equal(codePointLength(value), expected, JSON.stringify(value));
});

t.test('records: one line, fields separated by a space, then <EOR>', async (t) => {
  const cases: Array<[string, Array<[string, string]>, string]> = [
    ['plain', [['CALL', 'K1AB'], ['BAND', '20m']], '<CALL:4>K1AB <BAND:3>20m <EOR>\n'],
    ['empty values are left out', [['CALL', 'K1AB'], ['NAME', ''], ['QTH', 'Rio']], '<CALL:4>K1AB <QTH:3>Rio <EOR>\n'],
    ['multi-byte text counts characters', [['NAME', 'Jörg 😀']], '<NAME:6>Jörg 😀 <EOR>\n'],
    ['markup characters are written as they are', [['COMMENT', '<EOR> a:b']], '<COMMENT:9><EOR> a:b <EOR>\n'],
    ['a record without values is nothing', [['CALL', '']], ''],
  ];
  for (const [name, fields, expected] of cases) t.equal(formatAdifRecord(fields), expected, name);
  t.equal(formatAdifRecord(new Map([['CALL', 'K1AB']])), '<CALL:4>K1AB <EOR>\n', 'any iterable of pairs');
});

t.test('field names that would break the syntax are refused', async (t) => {
  for (const name of ['', 'A:B', 'A<B', 'A>B', 'A B']) {
    t.throws(() => formatAdifRecord([[name, 'x']]), /cannot be written/, JSON.stringify(name));
  }
});

t.test('createAdifWriter streams the header first, then the records', async (t) => {
  const records: Array<Array<[string, string]>> = [];
  for (let i = 0; i < 5000; i++) records.push([['CALL', `K${i}AB`], ['NAME', i % 2 ? 'Jörg' : ''], ['RST_SENT', '59']]);
  const output = await text(Readable.from(records).pipe(createAdifWriter(header)));
  t.ok(output.startsWith(formatAdifHeader(header)), 'header first');
  t.equal(output, formatAdifHeader(header) + records.map((fields) => formatAdifRecord(fields)).join(''));
  const parsed = parseAdif(output);
  t.equal(parsed.records.length, 5000);
  t.same(parsed.records[1]!.fields, { CALL: 'K1AB', NAME: 'Jörg', RST_SENT: '59' });
});

t.test('createAdifWriter without records still writes the header', async (t) => {
  t.equal(await text(Readable.from([]).pipe(createAdifWriter(header))), formatAdifHeader(header));
});

t.test('createAdifWriter fails the stream on an unwritable field name', async (t) => {
  const writer = createAdifWriter(header);
  const failed = new Promise<Error>((resolve) => writer.on('error', resolve));
  writer.resume();
  writer.write([['BAD:NAME', 'x']]);
  t.match((await failed).message, /cannot be written/);
});
