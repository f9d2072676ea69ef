import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import t from 'tap';
import { generateAdif, generateQsos } from '../../benchmarks/generate-adif.js';
import { createAdifParser, createItemStream } from '../../lib/adif/parseStream.js';
import { parseAdif } from '../../lib/adif/tokenizer.js';
import type { AdifItem } from '../../lib/adif/types.js';

async function readItems(source: Iterable<Buffer | string>): Promise<AdifItem[]> {
  const items: AdifItem[] = [];
  await pipeline(
    Readable.from(source, { objectMode: false }),
    createAdifParser(),
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

t.test('the stream yields the header first, then records and problems in document order', async (t) => {
  const doc = 'Log\r\n<ADIF_VER:5>3.1.6<EOH>\r\n<CALL:4>K1AB<EOR>\r\n<CALL:4>K2AB<BAND:-1>x<EOR>\r\n<CALL:4>K3AB\r\n';
  const items = await readItems([doc.slice(0, 9), doc.slice(9, 40), doc.slice(40)]);
  t.same(
    items.map((item) => item.kind),
    ['header', 'record', 'problem', 'record', 'record'],
  );
  t.same(items[0], { kind: 'header', header: { comment: 'Log', fields: { ADIF_VER: '3.1.6' } } });
  t.same(items[3], { kind: 'record', fields: { CALL: 'K2AB' }, recordNo: 2, line: 4 });
  t.same(items[2], { kind: 'problem', problem: { code: 'invalid_length', recordNo: 2, line: 4, message: "record 2, line 4: field BAND has an invalid length '-1'" } });
});

t.test('an empty input still yields the header', async (t) => {
  t.same(await readItems([]), [{ kind: 'header', header: { comment: '', fields: {} } }]);
});

t.test('a generated log reads back exactly, in any chunking', async (t) => {
  const count = 3000;
  const expected = Array.from(generateQsos(count, 7), (fields) => Object.fromEntries(fields));
  t.ok(
    expected.some((fields) => Object.values(fields).some((value) => /[^\x00-\x7f]/.test(value))),
    'the log has UTF-8 values (written with byte counts)',
  );
  const document = Buffer.concat([...generateAdif(count, 7)]);

  const items = await readItems(generateAdif(count, 7));
  const records = items.filter((item) => item.kind === 'record');
  t.equal(items[0]!.kind, 'header');
  t.equal(items.filter((item) => item.kind === 'problem').length, 0, 'no problems');
  t.same(
    records.map((item) => item.fields),
    expected,
    'the records are the generated QSOs',
  );
  t.same(records.map((item) => item.recordNo), expected.map((_, i) => i + 1), 'numbered 1..n');

  const oddChunks: Buffer[] = [];
  for (let from = 0, size = 1; from < document.length; from += size, size = (size * 7 + 3) % 4099 + 1) {
    oddChunks.push(document.subarray(from, from + size));
  }
  const oddItems = await readItems(oddChunks);
  t.same(oddItems, items, 'chunks of irregular sizes give identical items');
  t.same(
    oddItems.filter((item) => item.kind === 'record').map((item) => item.fields),
    parseAdif(document).records.map((record) => record.fields),
    'the stream agrees with parseAdif',
  );
});

t.test('a slow consumer gets every item (back-pressure is respected)', async (t) => {
  const count = 500;
  let seen = 0;
  await pipeline(
    Readable.from(generateAdif(count, 3)),
    createAdifParser(),
    new Writable({
      objectMode: true,
      highWaterMark: 1,
      write(item: AdifItem, _encoding, callback) {
        if (item.kind === 'record') seen++;
        setImmediate(callback);
      },
    }),
  );
  t.equal(seen, count);
});

t.test('options reach the tokenizer', async (t) => {
  const items: AdifItem[] = [];
  const parser = createAdifParser({ maxFieldLength: 3 });
  parser.on('data', (item: AdifItem) => items.push(item));
  const done = new Promise((resolve) => parser.on('end', resolve));
  parser.end('<CALL:4>K1AB<BAND:3>20m<EOR>');
  await done;
  t.same(
    items.map((item) => item.kind),
    ['header', 'problem', 'record'],
  );
  t.same(items[2], { kind: 'record', fields: { BAND: '20m' }, recordNo: 1, line: 1 });
});

t.test('a reader that throws fails the stream instead of the process', async (t) => {
  const stream = createItemStream({
    push: () => {
      throw new Error('reader broke');
    },
    end: () => undefined,
    recognized: false,
  });
  await t.rejects(pipeline(Readable.from([Buffer.from('x')]), stream, new Writable({ objectMode: true, write: (_item, _encoding, callback) => callback() })), /reader broke/);
});
