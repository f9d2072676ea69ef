import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import t from 'tap';
import { generateAdif } from '../../benchmarks/generate-adif.js';
import { createAdxParser, createAdxWriter, formatAdxFooter, formatAdxHeader, formatAdxRecord, parseAdx } from '../../lib/adif/adx.js';
import { createAdifParser } from '../../lib/adif/parseStream.js';
import { fieldRecords } from '../../lib/adif/spec.js';
import { parseAdif } from '../../lib/adif/tokenizer.js';
import type { AdifItem } from '../../lib/adif/types.js';
import { createAdifWriter, formatAdifHeader, formatAdifRecord } from '../../lib/adif/writer.js';
import { seededRandom } from '../helpers/random.js';

type Fields = Array<[string, string]>;

const catalogueNames = fieldRecords()
  .filter((row) => row['Header Field'] !== 'true')
  .map((row) => row['Field Name']!);
const extraNames = ['APP_N1MM_EXCHANGE1', 'APP_LOGBOOK_MY_FIELD', 'APP_X_Y', 'SWEATERSIZE', 'SHOE_SIZE', 'EPC', 'MY-FIELD'];
const names = [...catalogueNames, ...extraNames];

/** Pieces values are made of: ASCII, markup characters, line breaks, multi-byte text and emoji. */
const pieces = [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  ' ', ' ', '<', '>', ':', '&', '"', '<EOR>', '<CALL:4>', '\n', '\r\n', '\r', '\t',
  'é', 'ö', 'Ж', '東', '✓', '😀', '🎙', '👍🏽',
];

function randomValue(random: () => number): string {
  let value = '';
  for (let n = Math.floor(random() * 25); n > 0; n--) value += pieces[Math.floor(random() * pieces.length)];
  return value;
}

/**
 * Until a file shows which unit its lengths count, a multi-byte value whose
 * byte reading also fits (one ending in blanks) is ambiguous. The first record
 * carries a value only the code-point reading fits, as any real export's first
 * non-ASCII value does in practice.
 */
const unitSettler: [string, string] = ['NAME', 'Zoë 😀'];

function randomRecords(random: () => number, count: number): Fields[] {
  const records: Fields[] = [];
  for (let i = 0; i < count; i++) {
    const fields = new Map<string, string>();
    for (let n = 1 + Math.floor(random() * 12); n > 0; n--) fields.set(names[Math.floor(random() * names.length)]!, randomValue(random));
    records.push([...fields]);
  }
  records[0] = [unitSettler, ...records[0]!.filter(([name]) => name !== unitSettler[0])];
  return records;
}

/** What a reader must return for these records: empty values and empty records dropped. */
function expectedFields(records: Fields[]): Array<Record<string, string>> {
  return records
    .map((fields) => Object.fromEntries(fields.filter(([, value]) => value !== '')))
    .filter((fields) => Object.keys(fields).length > 0);
}

const header = {
  programId: 'logbook',
  programVersion: '0.1.0',
  createdAt: new Date(Date.UTC(2024, 0, 1, 12, 0, 0)),
  adifVersion: '3.1.6',
};

async function streamItems(records: Fields[], writer: NodeJS.ReadWriteStream, parser: NodeJS.ReadWriteStream): Promise<AdifItem[]> {
  const items: AdifItem[] = [];
  await pipeline(
    Readable.from(records),
    writer,
    parser,
    new Writable({
      objectMode: true,
      write(item: AdifItem, _encoding, callback) {
        items.push(item);
        callback();
      },
    }),
  );
  return items;
}

t.test('random records survive ADIF write → read', async (t) => {
  const random = seededRandom(20240101);
  let failures = 0;
  for (let round = 0; round < 300 && failures === 0; round++) {
    const records = randomRecords(random, 1 + Math.floor(random() * 20));
    const document = formatAdifHeader(header) + records.map((fields) => formatAdifRecord(fields)).join('');
    const parsed = parseAdif(document);
    const ok =
      JSON.stringify(parsed.records.map((record) => record.fields)) === JSON.stringify(expectedFields(records)) &&
      parsed.problems.length === 0;
    if (!ok) {
      failures++;
      t.same(parsed.records.map((record) => record.fields), expectedFields(records), `round ${round}`);
      t.same(parsed.problems, [], `round ${round}: no problems`);
    }
  }
  t.equal(failures, 0, '300 random documents read back exactly');
});

t.test('random records survive ADX write → read', async (t) => {
  const random = seededRandom(7);
  let failures = 0;
  for (let round = 0; round < 300 && failures === 0; round++) {
    const records = randomRecords(random, 1 + Math.floor(random() * 20));
    const document = formatAdxHeader(header) + records.map((fields) => formatAdxRecord(fields)).join('') + formatAdxFooter();
    const parsed = parseAdx(document);
    const ok =
      JSON.stringify(parsed.records.map((record) => record.fields)) === JSON.stringify(expectedFields(records)) &&
      parsed.problems.length === 0;
    if (!ok) {
      failures++;
      t.same(parsed.records.map((record) => record.fields), expectedFields(records), `round ${round}`);
      t.same(parsed.problems, [], `round ${round}: no problems`);
    }
  }
  t.equal(failures, 0, '300 random documents read back exactly');
});

t.test('streams: writer → parser for both formats', async (t) => {
  const records = randomRecords(seededRandom(99), 2000);
  const expected = expectedFields(records);
  for (const [format, writer, parser] of [
    ['ADIF', createAdifWriter(header), createAdifParser()],
    ['ADX', createAdxWriter(header), createAdxParser()],
  ] as const) {
    const items = await streamItems(records, writer, parser);
    t.equal(items[0]!.kind, 'header', `${format}: header first`);
    t.same(items.filter((item) => item.kind === 'problem'), [], `${format}: no problems`);
    t.same(
      items.flatMap((item) => (item.kind === 'record' ? [item.fields] : [])),
      expected,
      `${format}: ${expected.length} records read back`,
    );
  }
});

t.test('a generated log (byte-count lengths) re-exported by the writer reads back identically', async (t) => {
  const original = parseAdif(Buffer.concat([...generateAdif(2000, 11)]));
  t.equal(original.records.length, 2000);
  const reexported = original.records.map((record) => Object.entries(record.fields));
  const adif = parseAdif(formatAdifHeader(header) + reexported.map((fields) => formatAdifRecord(fields)).join(''));
  t.same(adif.records.map((record) => record.fields), original.records.map((record) => record.fields), 'ADIF');
  const adx = parseAdx(formatAdxHeader(header) + reexported.map((fields) => formatAdxRecord(fields)).join('') + formatAdxFooter());
  t.same(adx.records.map((record) => record.fields), original.records.map((record) => record.fields), 'ADX');
});
