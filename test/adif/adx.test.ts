import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { text } from 'node:stream/consumers';
import t from 'tap';
import {
  AdxReader,
  createAdxParser,
  createAdxWriter,
  formatAdxFooter,
  formatAdxHeader,
  formatAdxRecord,
  parseAdx,
} from '../../lib/adif/adx.js';
import { readItems } from '../../lib/adif/itemReader.js';
import type { AdifItem, AdifParseResult } from '../../lib/adif/types.js';

/** The example document of the ADX specification, with a few more fields. */
const example = `<?xml version="1.0" encoding="UTF-8"?>
<ADX>
  <HEADER>
    <!-- Example ADX file -->
    <ADIF_VER>3.1.6</ADIF_VER>
    <PROGRAMID>monolog</PROGRAMID>
    <USERDEF FIELDID="1" TYPE="N">EPC</USERDEF>
    <USERDEF FIELDID="2" TYPE="E" ENUM="{S,M,L}">SWEATERSIZE</USERDEF>
    <USERDEF FIELDID="3" TYPE="N" RANGE="{5:20}">SHOESIZE</USERDEF>
  </HEADER>
  <RECORDS>
    <RECORD>
      <QSO_DATE>19900620</QSO_DATE>
      <TIME_ON>1523</TIME_ON>
      <CALL>VK9NS</CALL>
      <BAND>20M</BAND>
      <MODE>RTTY</MODE>
      <USERDEF FIELDNAME="SWEATERSIZE">M</USERDEF>
      <USERDEF FIELDNAME="ShoeSize">11</USERDEF>
      <APP PROGRAMID="MONOLOG" FIELDNAME="Compression" TYPE="S">off</APP>
    </RECORD>
    <RECORD>
      <qso_date>20101022</qso_date>
      <CALL>ON4UN</CALL>
      <NAME>Jörg &amp; &lt;Ünal&gt; 😀</NAME>
      <COMMENT><![CDATA[a <b> & c]]></COMMENT>
      <NOTES>line one&#13;
line two</NOTES>
    </RECORD>
  </RECORDS>
</ADX>
`;

const expected: AdifParseResult = {
  header: {
    comment: 'Example ADX file',
    fields: {
      ADIF_VER: '3.1.6',
      PROGRAMID: 'monolog',
      USERDEF1: 'EPC',
      USERDEF2: 'SWEATERSIZE,{S,M,L}',
      USERDEF3: 'SHOESIZE,{5:20}',
    },
  },
  records: [
    {
      fields: {
        QSO_DATE: '19900620',
        TIME_ON: '1523',
        CALL: 'VK9NS',
        BAND: '20M',
        MODE: 'RTTY',
        SWEATERSIZE: 'M',
        SHOESIZE: '11',
        APP_MONOLOG_COMPRESSION: 'off',
      },
      recordNo: 1,
      line: 12,
    },
    {
      fields: {
        QSO_DATE: '20101022',
        CALL: 'ON4UN',
        NAME: 'Jörg & <Ünal> 😀',
        COMMENT: 'a <b> & c',
        NOTES: 'line one\r\nline two',
      },
      recordNo: 2,
      line: 22,
    },
  ],
  problems: [],
};

function readChunks(chunks: Buffer[]): AdifItem[] {
  return readItems(new AdxReader(), chunks);
}

t.test('reads the ADX example: header, USERDEF definitions, APP and USERDEF fields, entities, CDATA', async (t) => {
  t.same(parseAdx(example), expected);
});

t.test('the same items at every chunk boundary', async (t) => {
  const bytes = Buffer.from(example, 'utf8');
  const whole = readChunks([bytes]);
  t.equal(whole[0]!.kind, 'header');
  let identical = true;
  for (let offset = 0; offset <= bytes.length && identical; offset++) {
    const split = readChunks([bytes.subarray(0, offset), bytes.subarray(offset)]);
    if (JSON.stringify(split) !== JSON.stringify(whole)) {
      identical = false;
      t.same(split, whole, `split at ${offset}`);
    }
  }
  t.ok(identical, `identical at all ${bytes.length + 1} offsets`);
});

t.test('createAdxParser streams the same items as the .adi parser would', async (t) => {
  const items: AdifItem[] = [];
  const bytes = Buffer.from(example, 'utf8');
  await pipeline(
    Readable.from([bytes.subarray(0, 100), bytes.subarray(100, 101), bytes.subarray(101)]),
    createAdxParser(),
    new Writable({
      objectMode: true,
      write(item: AdifItem, _encoding, callback) {
        items.push(item);
        callback();
      },
    }),
  );
  t.same(
    items.map((item) => item.kind),
    ['header', 'record', 'record'],
  );
  t.same(items[0], { kind: 'header', header: expected.header });
  t.same(items[2], { kind: 'record', ...expected.records[1] });
});

t.test('a document without a header, or empty, yields an empty header first', async (t) => {
  const result = parseAdx('<ADX><RECORDS><RECORD><CALL>K1AB</CALL></RECORD></RECORDS></ADX>');
  t.same(result, { header: { comment: '', fields: {} }, records: [{ fields: { CALL: 'K1AB' }, recordNo: 1, line: 1 }], problems: [] });
  const empty = parseAdx('');
  t.same(empty.header, { comment: '', fields: {} }, 'an empty input still has its header');
  t.same(empty.records, []);
  t.match(empty.problems, [{ recordNo: 0, line: 1, message: /root element/ }], 'and is not a well-formed document');
});

t.test('problems carry the record number and line; the rest still reads', async (t) => {
  const doc = [
    '<ADX><RECORDS>', // 1
    '<RECORD><CALL>K1AB</CALL></RECORD>', // 2
    '<RECORD><CALL>K2&bogus;AB</CALL></RECORD>', // 3
    '<RECORD><APP FIELDNAME="X">1</APP><CALL>K3AB</CALL></RECORD>', // 4
    '<RECORD><USERDEF>1</USERDEF><CALL>K4AB</CALL><NAME>a<b>x</b></NAME></RECORD>', // 5
    '<RECORD><CALL>K5AB</CALL></RECORD>', // 6
    '</RECORDS></ADX>',
  ].join('\n');
  const result = parseAdx(doc);
  t.same(
    result.records.map((record) => [record.recordNo, record.line, record.fields.CALL]),
    [
      [1, 2, 'K1AB'],
      [2, 3, 'K2&bogus;AB'],
      [3, 4, 'K3AB'],
      [4, 5, 'K4AB'],
      [5, 6, 'K5AB'],
    ],
  );
  t.same(
    result.problems.map((problem) => [problem.recordNo, problem.line]),
    [
      [2, 3],
      [3, 4],
      [4, 5],
      [4, 5],
    ],
  );
  t.match(result.problems[0]!.message, /^record 2, line 3: XML error at column \d+: undefined entity/);
  t.match(result.problems[1]!.message, /^record 3, line 4: APP element without PROGRAMID or FIELDNAME/);
  t.match(result.problems[2]!.message, /^record 4, line 5: USERDEF element without FIELDNAME/);
  t.match(result.problems[3]!.message, /^record 4, line 5: element B inside field NAME is ignored/);
  t.equal(result.records[3]!.fields.NAME, 'a', 'text of the nested element is not part of the value');
});

t.test('a file that is not XML gives a bounded number of problems and no records', async (t) => {
  const reader = new AdxReader();
  const items = readItems(reader, [Buffer.from('<CALL:4>K1AB<EOR>\n'.repeat(5000))]);
  t.same(items.filter((item) => item.kind === 'record'), []);
  t.ok(items.length > 1 && items.length <= 101, `${items.length - 1} problems`);
  t.notOk(reader.recognized, 'no <ADX> root: not an ADX document');
  const result = parseAdx(`<ADX><RECORDS>${'<'.repeat(10_000)}\0\0`);
  t.same(result.records, []);
  t.equal(result.problems.length, 100);
  t.match(result.problems.at(-1)!.message, /further XML errors are not reported/);
});

t.test('a repeated element keeps its first value and is reported', async (t) => {
  const result = parseAdx('<ADX><RECORDS><RECORD><CALL>K1AB</CALL><BAND>20m</BAND><NAME></NAME><NAME>Bob</NAME><BAND>40m</BAND><CALL>K1AB</CALL></RECORD></RECORDS></ADX>');
  t.same(result.records.map((record) => record.fields), [{ CALL: 'K1AB', BAND: '20m', NAME: 'Bob' }]);
  t.same(result.problems.map(({ code, recordNo, line }) => [code, recordNo, line]), [['repeated_field', 1, 1]]);
  t.equal(result.problems[0]!.message, "record 1, line 1: field BAND occurs twice in one record: the first value '20m' is kept, '40m' is dropped");
});

t.test('linear time and bounded problems on hostile input', async (t) => {
  // Before the own scanner, saxes built an Error per bad character: 1 MB of "<" took 2.7 s
  // (and 26.7 s for 4 MB on a loaded machine), "<!" plus 1 MB 5 s.
  const hostile: Array<[string, string]> = [
    ['runs of <', `<ADX><RECORDS>${'<'.repeat(1 << 20)}`],
    ['<! and junk', `<ADX><RECORDS><!${'A'.repeat(1 << 20)}`],
    ['NUL bytes', `<ADX><RECORDS>${'\0'.repeat(1 << 20)}`],
    ['unmatched closing tags', `<ADX><RECORDS>${'</a>'.repeat(1 << 18)}`],
    ['runs of &', `<ADX><RECORDS><RECORD><CALL>${'&'.repeat(1 << 20)}`],
    ['a comment of dashes', `<ADX><HEADER><!--${'-'.repeat(1 << 20)}`],
    ['CDATA of brackets', `<ADX><RECORDS><RECORD><CALL><![CDATA[${']'.repeat(1 << 20)}`],
  ];
  for (const [name, doc] of hostile) {
    const bytes = Buffer.from(doc);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536));
    const started = performance.now();
    const items = readItems(new AdxReader(), chunks);
    const elapsed = performance.now() - started;
    t.ok(elapsed < 1000, `${name}: ${bytes.length} bytes in ${Math.round(elapsed)} ms`);
    t.ok(items.length <= 102, `${name}: ${items.length} items`);
  }
});

t.test('over-long values are problems', async (t) => {
  const result = parseAdx('<ADX><RECORDS><RECORD><CALL>K1AB</CALL><COMMENT>0123456789</COMMENT></RECORD></RECORDS></ADX>', {
    maxFieldLength: 5,
  });
  t.same(result.records[0]!.fields, { CALL: 'K1AB' });
  t.match(result.problems[0]!.message, /^record 1, line 1: field COMMENT is longer than the maximum of 5/);
});

const header = {
  programId: 'logbook',
  programVersion: '0.1.0',
  createdAt: new Date(Date.UTC(2024, 2, 5, 7, 8, 9)),
  adifVersion: '3.1.6',
};

t.test('writing: header, catalogue fields as elements, APP and USERDEF for the rest', async (t) => {
  t.equal(
    formatAdxHeader(header),
    '<?xml version="1.0" encoding="UTF-8"?>\n<ADX>\n<HEADER>\n<!-- ADIF export from logbook 0.1.0 -->\n' +
      '<ADIF_VER>3.1.6</ADIF_VER>\n<PROGRAMID>logbook</PROGRAMID>\n<PROGRAMVERSION>0.1.0</PROGRAMVERSION>\n' +
      '<CREATED_TIMESTAMP>20240305 070809</CREATED_TIMESTAMP>\n</HEADER>\n<RECORDS>\n',
  );
  const cases: Array<[string, Array<[string, string]>, string]> = [
    ['catalogue field', [['CALL', 'K1AB']], '<RECORD><CALL>K1AB</CALL></RECORD>\n'],
    ['empty values are left out', [['CALL', 'K1AB'], ['NAME', '']], '<RECORD><CALL>K1AB</CALL></RECORD>\n'],
    ['no values: nothing', [['NAME', '']], ''],
    [
      'application field',
      [['APP_N1MM_EXCHANGE1', '5NN']],
      '<RECORD><APP PROGRAMID="N1MM" FIELDNAME="EXCHANGE1">5NN</APP></RECORD>\n',
    ],
    [
      'application field name with underscores',
      [['APP_LOGBOOK_MY_FIELD', 'x']],
      '<RECORD><APP PROGRAMID="LOGBOOK" FIELDNAME="MY_FIELD">x</APP></RECORD>\n',
    ],
    ['user-defined field', [['SWEATERSIZE', 'M']], '<RECORD><USERDEF FIELDNAME="SWEATERSIZE">M</USERDEF></RECORD>\n'],
    ['APP_ without a field name is user-defined', [['APP_X', '1']], '<RECORD><USERDEF FIELDNAME="APP_X">1</USERDEF></RECORD>\n'],
    [
      'markup, CR and characters XML cannot hold',
      [['COMMENT', 'a<b>&c\r\nd\u0001\ud800']],
      '<RECORD><COMMENT>a&lt;b&gt;&amp;c&#13;\nd\uFFFD\uFFFD</COMMENT></RECORD>\n',
    ],
    ['emoji pairs are kept', [['NAME', 'Zoë 😀']], '<RECORD><NAME>Zoë 😀</NAME></RECORD>\n'],
    ['attribute escaping', [['MY"FIELD&\t', 'v']], '<RECORD><USERDEF FIELDNAME="MY&quot;FIELD&amp;&#9;">v</USERDEF></RECORD>\n'],
  ];
  for (const [name, fields, expectedText] of cases) t.equal(formatAdxRecord(fields), expectedText, name);
  t.equal(formatAdxFooter(), '</RECORDS>\n</ADX>\n');
});

t.test('createAdxWriter output reads back', async (t) => {
  const records: Array<Array<[string, string]>> = [
    [['CALL', 'K1AB'], ['NAME', 'Jörg <&> 😀'], ['NOTES', 'a\r\nb'], ['APP_N1MM_EXCHANGE1', '5NN'], ['SWEATERSIZE', 'M']],
    [['CALL', 'K2AB'], ['QTH', '']],
  ];
  const output = await text(Readable.from(records).pipe(createAdxWriter(header)));
  t.equal(output, formatAdxHeader(header) + records.map((fields) => formatAdxRecord(fields)).join('') + formatAdxFooter());
  const parsed = parseAdx(output);
  t.same(parsed.problems, []);
  t.same(parsed.header.fields, { ADIF_VER: '3.1.6', PROGRAMID: 'logbook', PROGRAMVERSION: '0.1.0', CREATED_TIMESTAMP: '20240305 070809' });
  t.same(
    parsed.records.map((record) => record.fields),
    [
      { CALL: 'K1AB', NAME: 'Jörg <&> 😀', NOTES: 'a\r\nb', APP_N1MM_EXCHANGE1: '5NN', SWEATERSIZE: 'M' },
      { CALL: 'K2AB' },
    ],
  );
  t.same(parseAdx(await text(Readable.from([]).pipe(createAdxWriter(header)))).records, [], 'no records: a valid empty document');
});
