import t from 'tap';
import { jsonParser, type Token } from 'stream-json/parser.js';
import { createTokenizer, END_OF_INPUT, type Tokenizer } from '../../lib/http/jsonTokenizer.js';
import { seededRandom as random } from '../helpers/random.js';

/**
 * The request bodies' tokenizer reads long string values itself (lib/http/jsonTokenizer.ts).
 * Against stream-json's parser alone, on documents cut into pieces at random places: the same
 * tokens (a string's chunks joined, since only their cut differs), the same values, and an error
 * wherever stream-json has one.
 */

/** Tokens of `pieces`, fed one by one, then the end; adjacent string chunks joined. */
function tokens(tokenize: Tokenizer, pieces: string[]): Token[] {
  const all: Token[] = [];
  for (const input of [...pieces, END_OF_INPUT]) {
    const output = tokenize(input);
    if (typeof output === 'symbol') continue;
    for (const token of output.values) {
      const last = all.at(-1);
      if (token.name === 'stringChunk' && last?.name === 'stringChunk') all[all.length - 1] = { name: 'stringChunk', value: last.value + token.value };
      else all.push(token);
    }
  }
  return all;
}

const streamJson = (): Tokenizer => jsonParser({ packKeys: true, streamKeys: false, packNumbers: true, streamNumbers: false, packStrings: false }) as unknown as Tokenizer;

/** Text with what a JSON string can hold: plain runs, quotes, backslashes, controls, non-BMP characters. */
function stringValue(next: () => number, length: number): string {
  const parts = ['ADIF <CALL:5>DL1AB ', '"', '\\', '\n', '\t', '\u0001', 'é', '😀', '/', ' '.repeat(300), 'x'];
  let text = '';
  while (text.length < length) text += parts[Math.floor(next() * parts.length)];
  return text;
}

/** JSON.stringify, but `\uXXXX` for some characters it writes as they are, as other clients do. */
function encode(next: () => number, value: unknown): string {
  const escaped = (char: string) => char.split('').map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  return JSON.stringify(value).replace(/[é😀\/]/gu, (char) => (next() < 0.5 ? char : char === '/' ? '\\/' : escaped(char)));
}

function cutAtRandom(next: () => number, text: string): string[] {
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    // Mostly short pieces, so that escapes, quotes and surrogate pairs are cut everywhere.
    const size = next() < 0.7 ? 1 + Math.floor(next() * 12) : 1 + Math.floor(next() * 2000);
    pieces.push(text.slice(at, at + size));
    at += size;
  }
  return pieces;
}

t.test('documents with long and short strings, cut anywhere: the same tokens as stream-json', async (t) => {
  for (let seed = 1; seed <= 300; seed++) {
    const next = random(seed);
    const document = {
      station_profile_id: 7,
      [stringValue(next, 300 + Math.floor(next() * 400))]: 'a long key',
      short: stringValue(next, 5),
      adif: stringValue(next, 200 + Math.floor(next() * 5000)),
      nested: [{ comment: stringValue(next, 600) }, stringValue(next, 3), null, true, 1.5e3],
      after: 'x',
    };
    const text = encode(next, document);
    const pieces = cutAtRandom(next, text);
    const expected = tokens(streamJson(), pieces);
    const actual = tokens(createTokenizer(), pieces);
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      t.same(actual, expected, `seed ${seed}: the same tokens`);
      return;
    }
  }
  t.pass('300 documents, the same tokens');
});

t.test('a long string comes out in one chunk per piece of input, and so does the next one', async (t) => {
  const text = 'x'.repeat(100_000);
  const pieces = ['{"adif":"', text.slice(0, 60_000), text.slice(60_000), '","key":"k","string":"', text.slice(0, 70_000), text.slice(70_000), '"}'];
  const tokenize = createTokenizer();
  const chunks: string[] = [];
  for (const input of [...pieces, END_OF_INPUT]) {
    const output = tokenize(input);
    if (typeof output !== 'symbol') for (const token of output.values) if (token.name === 'stringChunk') chunks.push(token.value);
  }
  t.same(chunks.map((chunk) => chunk.length), [60_000, 40_000, 1, 70_000, 30_000]);
});

t.test('what stream-json refuses inside a long string, this refuses too', async (t) => {
  const long = 'y'.repeat(500);
  const cases: Array<[string, string]> = [
    ['a raw control character', `{"adif":"${long}\u0001${long}"}`],
    ['an unknown escape', `{"adif":"${long}\\q${long}"}`],
    ['a short \\u escape', `{"adif":"${long}\\u12${long}"}`],
    ['the end inside the string', `{"adif":"${long}`],
    ['the end after a lone backslash', `{"adif":"${long}\\`],
  ];
  for (const [what, text] of cases) {
    for (const pieces of [[text], cutAtRandom(random(text.length), text)]) {
      const fails = (tokenize: Tokenizer) => {
        try {
          tokens(tokenize, pieces);
          return null;
        } catch (error) {
          return (error as Error).message;
        }
      };
      t.ok(fails(streamJson()), `${what}: stream-json refuses it`);
      t.ok(fails(createTokenizer()), `${what}: refused`);
    }
  }
});

t.test('a surrogate pair escaped across two pieces reaches the text whole', async (t) => {
  const long = 'z'.repeat(400);
  const text = `{"adif":"${long}\\ud83d\\ude00${long}"}`;
  const at = text.indexOf('\\ude00');
  for (const cut of [at - 3, at, at + 2]) {
    const tokenize = createTokenizer();
    const chunks: string[] = [];
    for (const input of [text.slice(0, cut), text.slice(cut), END_OF_INPUT]) {
      const output = tokenize(input);
      if (typeof output !== 'symbol') for (const token of output.values) if (token.name === 'stringChunk') chunks.push(token.value);
    }
    t.ok(chunks.every((chunk) => !/[\ud800-\udbff]$/.test(chunk)), `cut at ${cut}: no chunk ends in a high surrogate`);
    t.equal(chunks.join(''), `${long}😀${long}`);
  }
});
