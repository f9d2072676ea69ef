import t from 'tap';
import { readItems } from '../../lib/adif/itemReader.js';
import { AdifTokenizer, parseAdif, type AdifTokenizerOptions } from '../../lib/adif/tokenizer.js';
import type { AdifItem, AdifParseResult } from '../../lib/adif/types.js';

/** Feeds the chunks one by one and checks the item order contract on the way. */
function parseChunks(chunks: Buffer[], options?: AdifTokenizerOptions): AdifParseResult {
  const items = readItems(new AdifTokenizer(options), chunks);
  const headers = items.filter((item) => item.kind === 'header');
  if (headers.length !== 1 || items[0]?.kind !== 'header') throw new Error('the header item must come first, exactly once');
  const result: AdifParseResult = { header: headers[0]!.header, records: [], problems: [] };
  for (const item of items) {
    if (item.kind === 'record') result.records.push({ fields: item.fields, recordNo: item.recordNo, line: item.line });
    else if (item.kind === 'problem') result.problems.push(item.problem);
  }
  return result;
}

function splitAt(bytes: Buffer, ...offsets: number[]): Buffer[] {
  const chunks: Buffer[] = [];
  let from = 0;
  for (const offset of offsets) {
    chunks.push(bytes.subarray(from, offset));
    from = offset;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

function byteByByte(bytes: Buffer): Buffer[] {
  return Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
}

const fieldsOf = (result: AdifParseResult) => result.records.map((record) => record.fields);

interface Case {
  name: string;
  input: string | Buffer;
  comment?: string;
  header?: Record<string, string>;
  records: Array<Record<string, string>>;
}

const cases: Case[] = [
  // tag case and forms
  {
    name: 'tags are case-insensitive, names come out upper-case',
    input: 'x <adif_ver:5>3.1.6<eoh><Call:4>K1AB<bAnD:3>20m<eor>',
    comment: 'x',
    header: { ADIF_VER: '3.1.6' },
    records: [{ CALL: 'K1AB', BAND: '20m' }],
  },
  {
    name: '<NAME:LEN:TYPE> with the type letter in either case',
    input: '<EOH><QSO_DATE:8:D>20240101<TX_PWR:3:n>100<COMMENT:2:s>hi<EOR>',
    records: [{ QSO_DATE: '20240101', TX_PWR: '100', COMMENT: 'hi' }],
  },
  {
    name: 'blanks around the length are accepted',
    input: '<EOH><CALL: 4 >K1AB<EOR>',
    records: [{ CALL: 'K1AB' }],
  },
  // header
  {
    name: 'free text before the first < is the header comment',
    input: 'Exported by TestLog 1.0\r\nfor DL0LOG\r\n<ADIF_VER:5>3.1.6<EOH>\r\n<CALL:4>K1AB<EOR>',
    comment: 'Exported by TestLog 1.0\r\nfor DL0LOG',
    header: { ADIF_VER: '3.1.6' },
    records: [{ CALL: 'K1AB' }],
  },
  {
    name: 'a UTF-8 byte order mark is skipped',
    input: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Log\n<ADIF_VER:5>3.1.6<EOH><CALL:4>K1AB<EOR>')]),
    comment: 'Log',
    header: { ADIF_VER: '3.1.6' },
    records: [{ CALL: 'K1AB' }],
  },
  {
    name: '# comment lines: their < is not a tag',
    input: '# generated <by> a script\n<ADIF_VER:5>3.1.6<EOH>\n# <CALL:4>XXXX<EOR>\n<CALL:4>K1AB<EOR>\n  # indented <EOR> too\n<CALL:4>K2AB<EOR>',
    comment: '# generated <by> a script',
    header: { ADIF_VER: '3.1.6' },
    records: [{ CALL: 'K1AB' }, { CALL: 'K2AB' }],
  },
  {
    name: 'a # inside a line is ordinary text',
    input: '<EOH><CALL:4>K1AB # note <QTH:3>Rio<EOR>',
    records: [{ CALL: 'K1AB', QTH: 'Rio' }],
  },
  {
    name: 'no header at all: records start at once',
    input: '<CALL:4>K1AB<BAND:3>20m<EOR><CALL:4>K2AB<EOR>',
    records: [{ CALL: 'K1AB', BAND: '20m' }, { CALL: 'K2AB' }],
  },
  {
    name: 'no header and a single record without <EOR>',
    input: '<CALL:4>K1AB<BAND:3>20m',
    records: [{ CALL: 'K1AB', BAND: '20m' }],
  },
  {
    name: 'a header without records',
    input: 'Empty log <ADIF_VER:5>3.1.6<PROGRAMID:4>test<EOH>\r\n',
    comment: 'Empty log',
    header: { ADIF_VER: '3.1.6', PROGRAMID: 'test' },
    records: [],
  },
  {
    name: 'an empty input',
    input: '',
    records: [],
  },
  {
    name: 'text only',
    input: 'nothing here\n',
    comment: 'nothing here',
    records: [],
  },
  // fields and separators
  {
    name: 'zero-length fields yield ""',
    input: '<EOH><CALL:4>K1AB<NAME:0><QTH:0:S><EOR>',
    records: [{ CALL: 'K1AB', NAME: '', QTH: '' }],
  },
  {
    name: 'junk and whitespace between fields',
    input: '<EOH>junk<CALL:4>K1AB  \t more junk > : \r\n<BAND:3>20m<<<EOR>trailing',
    records: [{ CALL: 'K1AB', BAND: '20m' }],
  },
  {
    name: 'no separators at all',
    input: '<EOH><CALL:4>K1AB<BAND:3>20m<EOR><CALL:4>K2AB<BAND:3>40m<EOR>',
    records: [{ CALL: 'K1AB', BAND: '20m' }, { CALL: 'K2AB', BAND: '40m' }],
  },
  {
    name: 'CRLF and LF line ends, values keep their own line breaks',
    input: '<EOH>\r\n<CALL:4>K1AB\r\n<NOTES:6>a\r\nb\nc\r\n<EOR>\n<CALL:4>K2AB\n<EOR>\n',
    records: [{ CALL: 'K1AB', NOTES: 'a\r\nb\nc' }, { CALL: 'K2AB' }],
  },
  {
    name: 'values may contain <, > and :',
    input: '<EOH><COMMENT:13><EOR> a:b > c<CALL:4>K1AB<EOR>',
    records: [{ COMMENT: '<EOR> a:b > c', CALL: 'K1AB' }],
  },
  {
    name: 'a trailing record without <EOR> is still emitted',
    input: '<EOH><CALL:4>K1AB<EOR><CALL:4>K2AB<BAND:3>20m\r\n',
    records: [{ CALL: 'K1AB' }, { CALL: 'K2AB', BAND: '20m' }],
  },
  {
    name: 'unknown tags without a length are ignored',
    input: '<EOH><APP_FOO><CALL:4>K1AB<CALL><EOR><EOF>',
    records: [{ CALL: 'K1AB' }],
  },
  {
    name: 'a repeated empty field changes nothing, and an empty first value is filled in',
    input: '<EOH><CALL:4>K1AB<NAME:0><NAME:3>Bob<NAME:0><EOR>',
    records: [{ CALL: 'K1AB', NAME: 'Bob' }],
  },
  {
    name: 'a field repeated with the same value is no loss and no problem',
    input: '<EOH><CALL:4>K1AB<BAND:3>20m<BAND:3>20m<EOR>',
    records: [{ CALL: 'K1AB', BAND: '20m' }],
  },
  {
    name: 'empty records are skipped',
    input: '<EOH><EOR><EOR>\r\n<CALL:4>K1AB<EOR><EOR>',
    records: [{ CALL: 'K1AB' }],
  },
  {
    name: 'a second <EOH> among records is ignored',
    input: '<EOH><CALL:4>K1AB<EOH><BAND:3>20m<EOR>',
    records: [{ CALL: 'K1AB', BAND: '20m' }],
  },
  {
    name: 'a stray < that starts no tag is text',
    input: 'a < b\n<ADIF_VER:1>3<EOH><CALL:4>K1AB < <BAND:3>20m<EOR>',
    comment: 'a < b',
    header: { ADIF_VER: '3' },
    records: [{ CALL: 'K1AB', BAND: '20m' }],
  },
  // length units
  {
    name: 'UTF-8 byte counts',
    input: '<EOH><NAME:5>Jörg <QTH:5>Köln<COMMENT:4>😀<EOR>',
    records: [{ NAME: 'Jörg', QTH: 'Köln', COMMENT: '😀' }],
  },
  {
    name: 'character (code point) counts',
    input: '<EOH><NAME:4>Jörg <QTH:4>Köln<COMMENT:1>😀<EOR>',
    records: [{ NAME: 'Jörg', QTH: 'Köln', COMMENT: '😀' }],
  },
  {
    name: 'UTF-16 unit counts',
    input: '<EOH><NAME:4>Jörg <QTH:4>Köln<COMMENT:2>😀<EOR>',
    records: [{ NAME: 'Jörg', QTH: 'Köln', COMMENT: '😀' }],
  },
  {
    name: 'the unit that won is kept: a trailing blank stays in the value',
    input: '<EOH><NAME:4>Jörg<EOR><NAME:5>Jörg <EOR>',
    records: [{ NAME: 'Jörg' }, { NAME: 'Jörg ' }],
  },
  {
    name: 'a longer reading that only swallows the separator loses to the shorter one',
    input: '<EOH><NAME:7>Jörg 😀 <EOR>',
    records: [{ NAME: 'Jörg 😀' }],
  },
  {
    name: 'a wrong length followed by junk keeps whole characters',
    input: '<EOH><NAME:2>Jörg<EOR>',
    records: [{ NAME: 'Jö' }],
  },
];

t.test('tokenizer rules', async (t) => {
  for (const c of cases) {
    const bytes = typeof c.input === 'string' ? Buffer.from(c.input, 'utf8') : c.input;
    const whole = parseChunks([bytes]);
    t.same(fieldsOf(whole), c.records, `${c.name}: records`);
    t.strictSame(whole.header.fields, c.header ?? {}, `${c.name}: header fields`);
    t.equal(whole.header.comment, c.comment ?? '', `${c.name}: header comment`);
    t.same(whole.problems, [], `${c.name}: no problems`);
    t.same(parseChunks(byteByByte(bytes)), whole, `${c.name}: byte by byte`);
    t.same(parseAdif(bytes), whole, `${c.name}: parseAdif(Buffer)`);
  }
});

t.test('parseAdif accepts a string', async (t) => {
  const result = parseAdif('<CALL:4>K1AB<NAME:4>Jörg<EOR>');
  t.same(fieldsOf(result), [{ CALL: 'K1AB', NAME: 'Jörg' }]);
});

t.test('record numbers and start lines', async (t) => {
  const doc = 'Header\r\n<ADIF_VER:5>3.1.6\r\n<EOH>\r\n<CALL:4>K1AB\r\n<BAND:3>20m\r\n<EOR>\r\n\r\n<CALL:4>K2AB <COMMENT:3>a\nb <EOR>\n<CALL:4>K3AB<EOR>';
  const result = parseAdif(doc);
  t.same(
    result.records.map(({ recordNo, line }) => [recordNo, line]),
    [
      [1, 4],
      [2, 8],
      [3, 10],
    ],
  );
});

t.test('line numbers are right across every chunk boundary', async (t) => {
  const doc = Buffer.from(
    'Comment line one\r\nline two\r\n<ADIF_VER:5>3.1.6\r\n<EOH>\r\n' +
      '<CALL:4>K1AB\r\n<NOTES:7>x\r\ny\nz\r\n<EOR>\r\n' +
      '# comment\n<CALL:4>K2AB <RST_RCVD:-5>59 <EOR>\n' +
      '<CALL:4>K3AB\n<NAME:5>Jörg\n<EOR>\n',
    'utf8',
  );
  const whole = parseAdif(doc);
  t.same(
    whole.records.map(({ recordNo, line }) => [recordNo, line]),
    [
      [1, 5],
      [2, 11],
      [3, 12],
    ],
  );
  t.same(whole.problems.map(({ recordNo, line }) => [recordNo, line]), [[2, 11]]);
  for (let offset = 0; offset <= doc.length; offset++) {
    const split = parseChunks(splitAt(doc, offset));
    if (JSON.stringify(split) !== JSON.stringify(whole)) {
      t.same(split, whole, `split at ${offset}`);
      return;
    }
  }
  t.pass('identical at every split offset');
});

t.test('length units: splitting at every byte offset changes nothing', async (t) => {
  const values: Array<[string, string]> = [
    ['CALL', 'DL1ÄÖ'],
    ['NAME', 'Jörg 😀'],
    ['QTH', 'Köln'],
    ['COMMENT', '73 ✓ 山田'],
  ];
  const units: Record<string, (value: string) => number> = {
    bytes: (value) => Buffer.byteLength(value),
    'code points': (value) => [...value].length,
    'UTF-16 units': (value) => value.length,
  };
  const expected = Object.fromEntries(values);
  for (const [unit, measure] of Object.entries(units)) {
    for (const separator of [' ', '\r\n', '']) {
      const text = '<EOH>' + values.map(([name, value]) => `<${name}:${measure(value)}>${value}${separator}`).join('') + '<EOR>';
      const doc = Buffer.from(text + text, 'utf8');
      const label = `${unit}, separator ${JSON.stringify(separator)}`;
      const whole = parseChunks([doc]);
      t.same(fieldsOf(whole), [expected, expected], `${label}: whole`);
      let identical = true;
      for (let offset = 0; offset <= doc.length && identical; offset++) {
        const split = parseChunks(splitAt(doc, offset));
        if (JSON.stringify(split) !== JSON.stringify(whole)) {
          identical = false;
          t.same(split, whole, `${label}: split at ${offset}`);
        }
      }
      t.ok(identical, `${label}: identical at all ${doc.length + 1} split offsets`);
      t.same(parseChunks(byteByByte(doc)), whole, `${label}: byte by byte`);
    }
  }
});

t.test('a repeated field is never silently overwritten', async (t) => {
  const check = (input: string) => {
    const whole = parseAdif(input);
    t.same(parseChunks(byteByByte(Buffer.from(input))), whole, 'byte by byte gives the same items');
    return whole;
  };
  const summary = (result: AdifParseResult) => result.problems.map(({ code, recordNo, line }) => [code, recordNo, line]);

  const missingEor = check('<EOH><CALL:4>K1AB<QSO_DATE:8>20240101<TIME_ON:4>1200\n<CALL:4>K2AB<QSO_DATE:8>20240102<TIME_ON:4>1300<EOR>');
  t.same(fieldsOf(missingEor), [
    { CALL: 'K1AB', QSO_DATE: '20240101', TIME_ON: '1200' },
    { CALL: 'K2AB', QSO_DATE: '20240102', TIME_ON: '1300' },
  ], 'a repeated CALL starts a new record');
  t.same(summary(missingEor), [['record_split', 2, 2]]);
  t.equal(missingEor.problems[0]!.message, 'record 2, line 2: CALL occurs again before <EOR>: read as the start of a new record');

  const perLine = check('<EOH>\n<BAND:3>20m<QSO_DATE:8>20240101<CALL:4>K1AB<TIME_ON:4>1200\n<BAND:3>40m<FREQ:1>7<QSO_DATE:8>20240101<CALL:4>K2AB<TIME_ON:4>1201\n<BAND:3>80m<QSO_DATE:8>20240102<CALL:4>K3AB<TIME_ON:4>1202\n');
  t.same(fieldsOf(perLine), [
    { BAND: '20m', QSO_DATE: '20240101', CALL: 'K1AB', TIME_ON: '1200' },
    { BAND: '40m', FREQ: '7', QSO_DATE: '20240101', CALL: 'K2AB', TIME_ON: '1201' },
    { BAND: '80m', QSO_DATE: '20240102', CALL: 'K3AB', TIME_ON: '1202' },
  ], 'one record a line without any <EOR>: the fields before the repeated key go with it');
  t.same(perLine.records.map((record) => record.line), [2, 3, 4]);
  t.same(summary(perLine), [['record_split', 2, 3], ['record_split', 3, 4]]);

  const noHeader = check('<CALL:4>K1AB<QSO_DATE:8>20240101<TIME_ON:4>1200\n<CALL:4>K2AB<QSO_DATE:8>20240101<TIME_ON:4>1201\n');
  t.same(noHeader.header.fields, {}, 'without <EOH> the first record is no header');
  t.same(fieldsOf(noHeader).map((fields) => fields.CALL), ['K1AB', 'K2AB']);

  const repeated = check('<EOH><CALL:4>K1AB<BAND:3>20m<MODE:3>SSB<BAND:3>40m<EOR><CALL:4>K2AB<EOR>');
  t.same(fieldsOf(repeated), [{ CALL: 'K1AB', BAND: '20m', MODE: 'SSB' }, { CALL: 'K2AB' }], 'another field: the first value is kept');
  t.same(summary(repeated), [['repeated_field', 1, 1]]);
  t.equal(repeated.problems[0]!.message, "record 1, line 1: field BAND occurs twice in one record: the first value '20m' is kept, '40m' is dropped");

  const thrice = check('<EOH><CALL:4>K1AB<BAND:3>20m<BAND:3>40m\n<BAND:3>80m<EOR>');
  t.same(fieldsOf(thrice), [{ CALL: 'K1AB', BAND: '20m' }]);
  t.same(summary(thrice), [['repeated_field', 1, 1], ['repeated_field', 1, 2]], 'each repeat reported');

  const binary = check('<EOH><CALL:4>K1AB<NOTES:2>\x01a<NOTES:2>\x1bb<EOR>');
  t.match(binary.problems[0]!.message, /'\\x01a' is kept, '\\x1bb' is dropped$/, 'values are quoted escaped');
  t.notMatch(binary.problems[0]!.message, /[\x00-\x1f]/);
});

t.test('a tag name with a control or non-ASCII byte is no tag', async (t) => {
  const result = parseAdif('<EOH><CA\x01LL:4>K1AB<N\u00e4ME:3>Bob<CALL:4>K2AB<EOR>');
  t.same(fieldsOf(result), [{ CALL: 'K2AB' }]);
  t.same(result.problems, []);
});

t.test('linear time: a long multi-byte value arriving in small chunks is not rescanned at every chunk', async (t) => {
  // Before the fix each 512-byte chunk rescanned the whole value so far: 4 s for this 600 KB.
  const doc = Buffer.from(`<EOH><COMMENT:300000>${'é'.repeat(300_000)}<CALL:4>K1AB<EOR>`);
  const chunks = Array.from({ length: Math.ceil(doc.length / 512) }, (_, i) => doc.subarray(i * 512, (i + 1) * 512));
  const started = performance.now();
  const items = readItems(new AdifTokenizer(), chunks);
  const elapsed = performance.now() - started;
  t.same(items.map((item) => item.kind), ['header', 'record']);
  t.ok(elapsed < 1000, `read in ${Math.round(elapsed)} ms`);
});

t.test('malformed lengths are problems; the rest of the file still parses', async (t) => {
  const doc = [
    'Test log', // 1
    '<ADIF_VER:5>3.1.6<EOH>', // 2
    '<CALL:4>K1AB<EOR>', // 3
    '<CALL:4>K2AB', // 4
    '<RST_RCVD:-16>59<EOR>', // 5
    '<CALL:4>K3AB <RST_SENT:abc>599 <QTH:>x <EOR>', // 6
    '<CALL:4>K4AB <COMMENT:2000000>long <EOR>', // 7
    '<:3>abc<CALL:4>K5AB<EOR>', // 8
    '<CALL:4>K6AB<NAME:50>short', // 9
  ].join('\r\n');
  const result = parseAdif(doc);
  t.same(fieldsOf(result), [
    { CALL: 'K1AB' },
    { CALL: 'K2AB' },
    { CALL: 'K3AB' },
    { CALL: 'K4AB' },
    { CALL: 'K5AB' },
    { CALL: 'K6AB' },
  ]);
  t.same(
    result.problems.map(({ recordNo, line }) => [recordNo, line]),
    [
      [2, 5],
      [3, 6],
      [3, 6],
      [4, 7],
      [5, 8],
      [6, 9],
    ],
  );
  t.equal(result.problems[0]!.message, "record 2, line 5: field RST_RCVD has an invalid length '-16'");
  t.equal(result.problems[1]!.message, "record 3, line 6: field RST_SENT has an invalid length 'abc'");
  t.equal(result.problems[2]!.message, "record 3, line 6: field QTH has an invalid length ''");
  t.match(result.problems[3]!.message, /^record 4, line 7: field COMMENT declares length 2000000, more than the maximum of 1048576$/);
  t.match(result.problems[4]!.message, /^record 5, line 8: .*no field name/);
  t.match(result.problems[5]!.message, /^record 6, line 9: field NAME declares length 50 but the input ends/);
});

t.test('the maximum field length is an option', async (t) => {
  const doc = '<EOH><CALL:4>K1AB<COMMENT:11>hello world<EOR><CALL:4>K2AB<EOR>';
  const strict = parseAdif(doc, { maxFieldLength: 10 });
  t.same(fieldsOf(strict), [{ CALL: 'K1AB' }, { CALL: 'K2AB' }]);
  t.same(strict.problems.map((p) => [p.recordNo, p.line]), [[1, 1]]);
  t.match(strict.problems[0]!.message, /COMMENT declares length 11, more than the maximum of 10/);
  t.same(fieldsOf(parseAdif(doc, { maxFieldLength: 11 })), [{ CALL: 'K1AB', COMMENT: 'hello world' }, { CALL: 'K2AB' }]);
});

t.test('a bogus length does not make the tokenizer buffer the rest of the input', async (t) => {
  const record = Buffer.from('<CALL:4>K2AB<EOR>\n');
  const items = readItems(new AdifTokenizer({ maxFieldLength: 100 }), [Buffer.from('<EOH><CALL:4>K1AB<COMMENT:999999999>'), ...Array.from({ length: 1000 }, () => record)]);
  const records = items.filter((item) => item.kind === 'record');
  t.equal(records.length, 1001, 'every record after the bogus tag came out (K1AB has no <EOR>: a record of its own)');
  t.same(items.flatMap((item) => (item.kind === 'problem' ? [item.problem.code] : [])), ['length_too_large', 'record_split']);
});

t.test('problems in the header come after the header item', async (t) => {
  const withHeader = parseChunks([Buffer.from('Log\n<ADIF_VER:x>3<EOH><CALL:4>K1AB<EOR>')]);
  t.same(withHeader.problems.map((p) => [p.recordNo, p.line]), [[0, 2]]);
  t.match(withHeader.problems[0]!.message, /^header, line 2: field ADIF_VER has an invalid length 'x'/);
  const withoutHeader = parseChunks([Buffer.from('<CALL:4>K1AB<BAND:x>20m<EOR>')]);
  t.same(withoutHeader.problems.map((p) => [p.recordNo, p.line]), [[1, 1]], 'no <EOH>: the problem is in record 1');
  t.same(fieldsOf(withoutHeader), [{ CALL: 'K1AB' }]);
});

t.test('tags that never close are text, never a hang', async (t) => {
  const doc = '<EOH><CALL:4>K1AB<EOR><CALL' + 'x'.repeat(2000) + '<CALL:4>K2AB<EOR><NAME:4';
  const result = parseAdif(doc);
  t.same(fieldsOf(result), [{ CALL: 'K1AB' }, { CALL: 'K2AB' }]);
  t.same(parseChunks(byteByByte(Buffer.from(doc))), result);
});

t.test('push after end is refused', async (t) => {
  const tokenizer = new AdifTokenizer();
  const items: AdifItem[] = [];
  const sink = (item: AdifItem) => items.push(item);
  tokenizer.end(sink);
  t.equal(items.length, 1, 'the header item');
  t.throws(() => tokenizer.push(Buffer.from('<CALL:4>K1AB'), sink), /after end/);
  tokenizer.end(sink);
  t.equal(items.length, 1, 'a second end() yields nothing');
});
