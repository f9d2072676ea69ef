/**
 * Deterministic generator of realistic ADIF logs for benchmarks and tests.
 *
 *   npx tsx benchmarks/generate-adif.ts --count 1000000 --out benchmarks/data/qsos-1m.adi [--seed 1]
 *
 * Records carry 15–25 fields with FT8/FT4/SSB/CW mixes, contest exchanges and QSL
 * status on some; tag case, line endings and field separators vary between
 * records; about 1.5% carry UTF-8 names/places/comments whose lengths are written
 * as byte counts. (CALL, QSO_DATE, TIME_ON) is unique across the file.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';

/** mulberry32: small, fast, good enough for test data. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PREFIXES = ['K', 'W', 'N', 'AA', 'KD', 'VE', 'G', 'M', 'DL', 'F', 'I', 'EA', 'JA', 'VK', 'ZL', 'PY', 'LU', 'UA', 'SP', 'OK', 'OH', 'SM', 'LA', 'ON', 'PA', 'HB9', 'OE', 'YU', 'S5', 'JH', 'BV', 'VU', 'ZS', 'CE', 'XE', 'KH6', 'KL7'];
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const CONTINENTS = ['NA', 'SA', 'EU', 'AF', 'AS', 'OC'];
const NAMES = ['John', 'Mike', 'Bob', 'Dave', 'Peter', 'Hans', 'Tom', 'Steve', 'Jim', 'Paul', 'Mark', 'Bill', 'Yuki', 'Ivan', 'Marco', 'Luis', 'Anna', 'Eva'];
const QTHS = ['Boston', 'Denver', 'Berlin', 'Paris', 'Madrid', 'Tokyo', 'Sydney', 'Toronto', 'Oslo', 'Prague', 'Warsaw', 'Rome', 'Austin', 'Seattle'];
const COMMENTS = ['TNX QSO', 'Nice signal', 'First QSO', 'QSB', 'Weak sig', 'Portable op', 'POTA activation', 'Big pileup', 'Good copy', '73'];
const UTF8_NAMES = ['Jörg', 'José', 'Łukasz', 'Дмитрий', '山田太郎', 'François', 'Øyvind', 'Gökhan', 'Zoë', 'Søren'];
const UTF8_QTHS = ['Köln', 'Zürich', 'München', 'Málaga', 'Kraków', 'Москва', '東京', 'Göteborg', 'Besançon'];
const UTF8_COMMENTS = ['Grüße aus Wien', 'Très bon signal', 'Спасибо за QSO', 'ありがとう', '73 de Jörg 🎙', 'Saludos cordiales ñ'];
const CONTESTS = ['CQ-WW-CW', 'CQ-WW-SSB', 'CQ-WPX-SSB', 'ARRL-DX-CW', 'IARU-HF'];
const OPERATORS = ['DL1ABC', 'DL2XYZ', 'DK3QRP'];

interface Band {
  name: string;
  /** Dial frequencies in MHz: FT8, FT4, CW start, SSB start. */
  ft8: number;
  ft4: number;
  cw: number;
  ssb: number;
}

const BANDS: Band[] = [
  { name: '160m', ft8: 1.84, ft4: 1.84, cw: 1.81, ssb: 1.843 },
  { name: '80m', ft8: 3.573, ft4: 3.575, cw: 3.5, ssb: 3.6 },
  { name: '40m', ft8: 7.074, ft4: 7.0475, cw: 7.0, ssb: 7.1 },
  { name: '30m', ft8: 10.136, ft4: 10.14, cw: 10.1, ssb: 10.12 },
  { name: '20m', ft8: 14.074, ft4: 14.08, cw: 14.0, ssb: 14.15 },
  { name: '17m', ft8: 18.1, ft4: 18.104, cw: 18.068, ssb: 18.11 },
  { name: '15m', ft8: 21.074, ft4: 21.14, cw: 21.0, ssb: 21.2 },
  { name: '12m', ft8: 24.915, ft4: 24.919, cw: 24.89, ssb: 24.94 },
  { name: '10m', ft8: 28.074, ft4: 28.18, cw: 28.0, ssb: 28.3 },
  { name: '6m', ft8: 50.313, ft4: 50.318, cw: 50.0, ssb: 50.1 },
];

const STATION_CALLSIGN = 'DL0LOG';
const MY_GRIDSQUARE = 'JO62QM';
const START_TIME = Date.UTC(2020, 0, 1);

class LogGenerator {
  private readonly random: () => number;
  private time = START_TIME;
  private serial = 0;

  constructor(seed: number) {
    this.random = createRandom(seed);
  }

  private int(max: number): number {
    return Math.floor(this.random() * max);
  }

  private pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  private chance(p: number): boolean {
    return this.random() < p;
  }

  private call(): string {
    const prefix = this.pick(PREFIXES);
    const digit = /\d$/.test(prefix) ? '' : String(this.int(10));
    let suffix = '';
    for (let n = 1 + this.int(3); n > 0; n--) suffix += LETTERS[this.int(26)];
    return prefix + digit + suffix;
  }

  private grid(): string {
    const field = () => LETTERS[this.int(18)];
    const square = `${field()}${field()}${this.int(10)}${this.int(10)}`;
    return this.chance(0.5) ? square + LETTERS[this.int(24)]!.toLowerCase() + LETTERS[this.int(24)]!.toLowerCase() : square;
  }

  private report(mode: string): string {
    if (mode === 'FT8' || mode === 'FT4') {
      const db = this.int(45) - 24;
      return (db < 0 ? '-' : '+') + String(Math.abs(db)).padStart(2, '0');
    }
    const rs = `${3 + this.int(3)}${5 + this.int(5)}`;
    return mode === 'CW' ? rs + '9' : rs;
  }

  /** The fields of the next QSO, in the order a logger would write them. */
  nextRecord(): Array<[string, string]> {
    this.time += (1 + this.int(180)) * 1000;
    const on = new Date(this.time);
    const iso = on.toISOString();
    const date = iso.slice(0, 10).replaceAll('-', '');
    const timeOn = iso.slice(11, 19).replaceAll(':', '');
    const roll = this.random();
    const mode = roll < 0.45 ? 'FT8' : roll < 0.55 ? 'FT4' : roll < 0.8 ? 'SSB' : 'CW';
    const band = this.pick(BANDS);
    const dial = mode === 'FT8' ? band.ft8 : mode === 'FT4' ? band.ft4 : mode === 'CW' ? band.cw : band.ssb;
    const offset = mode === 'FT8' || mode === 'FT4' ? (200 + this.int(2800)) / 1e6 : this.int(50_000) / 1e6;
    const timeOff = new Date(this.time + (mode === 'SSB' || mode === 'CW' ? 30 + this.int(300) : 15 + this.int(60)) * 1000)
      .toISOString()
      .slice(11, 19)
      .replaceAll(':', '');
    const contest = this.chance(0.15);
    const utf8 = this.chance(0.015);

    const fields: Array<[string, string]> = [
      ['CALL', this.call()],
      ['QSO_DATE', date],
      ['TIME_ON', timeOn],
      ['TIME_OFF', timeOff],
      ['BAND', band.name],
      ['FREQ', (dial + offset).toFixed(6)],
    ];
    if (mode === 'FT4') fields.push(['MODE', 'MFSK'], ['SUBMODE', 'FT4']);
    else if (mode === 'SSB') fields.push(['MODE', 'SSB'], ['SUBMODE', dial < 10 ? 'LSB' : 'USB']);
    else fields.push(['MODE', mode]);
    fields.push(['RST_SENT', this.report(mode)], ['RST_RCVD', this.report(mode)]);
    if (this.chance(0.7)) fields.push(['GRIDSQUARE', this.grid()]);
    fields.push(
      ['TX_PWR', this.pick(['5', '10', '50', '100', '400', '1000'])],
      ['OPERATOR', this.pick(OPERATORS)],
      ['STATION_CALLSIGN', STATION_CALLSIGN],
      ['MY_GRIDSQUARE', MY_GRIDSQUARE],
      ['DXCC', String(1 + this.int(520))],
      ['CQZ', String(1 + this.int(40))],
    );
    if (this.chance(0.5)) fields.push(['CONT', this.pick(CONTINENTS)]);
    if (contest) {
      this.serial++;
      fields.push(['CONTEST_ID', this.pick(CONTESTS)], ['SRX', String(1 + this.int(3000))], ['STX', String(this.serial)]);
      if (utf8) fields.push(['NAME', this.pick(UTF8_NAMES)]);
      return fields;
    }
    if (utf8 || this.chance(0.5)) fields.push(['NAME', utf8 ? this.pick(UTF8_NAMES) : this.pick(NAMES)]);
    if (utf8 || this.chance(0.3)) fields.push(['QTH', utf8 ? this.pick(UTF8_QTHS) : this.pick(QTHS)]);
    if (this.chance(utf8 ? 0.5 : 0.25)) fields.push(['COMMENT', utf8 ? this.pick(UTF8_COMMENTS) : this.pick(COMMENTS)]);
    const later = (days: number) => new Date(this.time + days * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
    if (this.chance(0.3)) fields.push(['QSL_RCVD', 'Y'], ['QSLRDATE', later(20 + this.int(400))]);
    if (this.chance(0.3)) fields.push(['LOTW_QSL_RCVD', 'Y'], ['LOTW_QSLRDATE', later(1 + this.int(60))]);
    return fields;
  }

  /** The record as text: byte-count lengths, the record's own tag case, separator and line end. */
  formatRecord(fields: Array<[string, string]>): string {
    const caseRoll = this.random();
    const tagCase = caseRoll < 0.85 ? (s: string) => s : caseRoll < 0.95 ? (s: string) => s.toLowerCase() : capitalize;
    const eol = this.chance(0.6) ? '\r\n' : '\n';
    const layout = this.random();
    const separator = layout < 0.3 ? eol : layout < 0.9 ? ' ' : '';
    let text = '';
    for (const [name, value] of fields) text += `<${tagCase(name)}:${Buffer.byteLength(value)}>${value}${separator}`;
    return text + `<${tagCase('EOR')}>${eol}`;
  }
}

function capitalize(name: string): string {
  return name.charAt(0) + name.slice(1).toLowerCase();
}

export function formatGeneratedHeader(count: number, seed: number): string {
  const fields: Array<[string, string]> = [
    ['ADIF_VER', '3.1.6'],
    ['PROGRAMID', 'generate-adif'],
    ['PROGRAMVERSION', '1.0'],
    ['CREATED_TIMESTAMP', '20240101 000000'],
  ];
  let text = `Generated log of ${count} QSOs (seed ${seed}) for benchmarks\r\n`;
  for (const [name, value] of fields) text += `<${name}:${value.length}>${value}\r\n`;
  return text + '<EOH>\r\n';
}

/** Records per emitted chunk; about 200 KiB. */
const RECORDS_PER_CHUNK = 500;

/** The document for `count` QSOs as a sequence of Buffers; the same seed gives the same bytes. */
export function* generateAdif(count: number, seed = 1): Generator<Buffer> {
  const generator = new LogGenerator(seed);
  yield Buffer.from(formatGeneratedHeader(count, seed), 'utf8');
  for (let done = 0; done < count; ) {
    let text = '';
    const upto = Math.min(count, done + RECORDS_PER_CHUNK);
    for (; done < upto; done++) text += generator.formatRecord(generator.nextRecord());
    yield Buffer.from(text, 'utf8');
  }
}

/** The QSOs `generateAdif(count, seed)` writes, as field pairs (upper-case names), for checking parsers. */
export function* generateQsos(count: number, seed = 1): Generator<Array<[string, string]>> {
  const generator = new LogGenerator(seed);
  for (let done = 0; done < count; done++) {
    const fields = generator.nextRecord();
    generator.formatRecord(fields); // keeps the random sequence identical to generateAdif
    yield fields;
  }
}

export async function writeGeneratedAdif(path: string, count: number, seed = 1): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  await pipeline(Readable.from(generateAdif(count, seed)), createWriteStream(path));
}

function argument(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const count = Number(argument(args, '--count') ?? '1000000');
  const out = argument(args, '--out') ?? `benchmarks/data/qsos-${count}.adi`;
  const seed = Number(argument(args, '--seed') ?? '1');
  if (!Number.isInteger(count) || count < 0 || !Number.isInteger(seed)) {
    console.error('usage: generate-adif.ts --count N --out FILE [--seed S]');
    process.exit(2);
  }
  await writeGeneratedAdif(out, count, seed);
  console.log(`wrote ${count} QSOs to ${out}`);
}
