import { CopyRows } from '../../lib/import/copyRows.js';
import { formatAdxFooter, formatAdxHeader, formatAdxRecord } from '../../lib/adif/adx.js';
import type { AdifItemReader, AdifItemSink } from '../../lib/adif/itemReader.js';
import { AdifTokenizer } from '../../lib/adif/tokenizer.js';
import { AdxReader } from '../../lib/adif/adx.js';
import { RecordProcessor } from '../../lib/import/recordProcessor.js';
import { createItemReader, sniffAdifFormat } from '../../lib/import/rowStreams.js';
import { createRandom, generateAdif, generateQsos } from '../generate-adif.js';

/**
 * The ADIF/ADX fuzz harness (`benchmarks/fuzz-adif.ts` for long runs, `test/adif/fuzz.test.ts`
 * for a short one in the suite): mutates generated .adi and ADX documents (bit flips,
 * truncations, huge or garbage lengths, dropped tags, NUL and invalid UTF-8, long runs of one
 * byte, spliced pieces, stray markup) and feeds them in random chunks to both readers and to the
 * import's reader and normaliser. It fails a round when anything throws, when a large document
 * reads slower than a floor in bytes per second (linear time), or when the heap grows far beyond
 * the document (bounded memory). Every round derives from (seed, round), so one failing round
 * is reproduced alone.
 */

export interface FuzzOptions {
  seed: number;
  /** Stop after this long... */
  seconds: number;
  /** ...or this many rounds, whichever comes first. */
  rounds?: number;
  /** Start at this round (to replay one). */
  firstRound?: number;
  /** Documents of at least FLOOR_MIN_BYTES must read at least this fast, in bytes a second. */
  floorBytesPerSecond?: number;
  /** Longest run of one byte inserted. */
  maxRun?: number;
}

export interface FuzzFailure {
  seed: number;
  round: number;
  mutations: string[];
  reason: string;
  input: Buffer;
}

export interface FuzzOutcome {
  rounds: number;
  bytes: number;
  seconds: number;
  failure: FuzzFailure | null;
}

/** Below this size a document's time is mostly fixed costs; the floor is not checked. */
const FLOOR_MIN_BYTES = 128 * 1024;
const DEFAULT_FLOOR = 512 * 1024;
/** Heap growth allowed while reading a document: fixed room plus a multiple of its size. */
const HEAP_ROOM = 64 * 1024 * 1024;
const HEAP_PER_BYTE = 16;

type Random = () => number;
const below = (random: Random, n: number) => Math.floor(random() * n);
const pick = <T>(random: Random, list: readonly T[]): T => list[below(random, list.length)]!;

function baseDocument(random: Random, seed: number): Buffer {
  const count = random() < 0.1 ? 300 + below(random, 700) : 1 + below(random, 30);
  if (random() < 0.5) return Buffer.concat([...generateAdif(count, seed)]);
  const header = { programId: 'fuzz', programVersion: '1', createdAt: new Date(0), adifVersion: '3.1.6' };
  let text = formatAdxHeader(header);
  for (const fields of generateQsos(count, seed)) text += formatAdxRecord(fields);
  return Buffer.from(text + formatAdxFooter(), 'utf8');
}

const GARBAGE_LENGTHS = ['99999999999999999999', '1048577', '4294967296', '0', '-1', 'x', '', ' 5 ', '1e3', '٣'];
const BAD_BYTES = [[0x00], [0xff], [0xc3], [0xed, 0xa0, 0x80], [0xef, 0xbb, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]];
const RUN_BYTES = [0x3c, 0x3e, 0x26, 0x5d, 0x2d, 0x3a, 0x31, 0x00, 0xff, 0x20, 0x0a, 0x23, 0x41, 0xc3, 0x80];
const MARKUP = ['<', '</', '<!--', '-->', '<![CDATA[', ']]>', '<?', '?>', '<!DOCTYPE x [', '&', '&#x', '&#1114112;', '&amp', '<EOR>', '<EOH>', '<CALL:4>', '<RECORD>', '</RECORD>', '<ADX>', '"', "'", '=', '<APP PROGRAMID="a">', '<USERDEF>'];

type Mutation = (bytes: Buffer, random: Random, maxRun: number) => Buffer;

const at = (bytes: Buffer, random: Random) => below(random, bytes.length + 1);
const insert = (bytes: Buffer, position: number, piece: Buffer) => Buffer.concat([bytes.subarray(0, position), piece, bytes.subarray(position)]);

const MUTATIONS: Record<string, Mutation> = {
  flipBits(bytes, random) {
    const out = Buffer.from(bytes);
    for (let n = 1 + below(random, 20); n > 0 && out.length > 0; n--) out[below(random, out.length)]! ^= 1 << below(random, 8);
    return out;
  },
  truncate: (bytes, random) => bytes.subarray(0, at(bytes, random)),
  garbageLength(bytes, random) {
    const text = bytes.toString('latin1');
    const tags = [...text.matchAll(/<([A-Za-z_]+):(\d+)/g)];
    if (tags.length === 0) return bytes;
    const tag = pick(random, tags);
    const digitsAt = tag.index! + tag[1]!.length + 2;
    const length = random() < 0.3 ? String(below(random, 5000)) : pick(random, GARBAGE_LENGTHS);
    return Buffer.concat([bytes.subarray(0, digitsAt), Buffer.from(length, 'utf8'), bytes.subarray(digitsAt + tag[2]!.length)]);
  },
  dropTag(bytes, random) {
    const from = bytes.indexOf(0x3c, at(bytes, random));
    if (from < 0) return bytes;
    const to = bytes.indexOf(0x3e, from);
    return to < 0 ? bytes.subarray(0, from) : Buffer.concat([bytes.subarray(0, from), bytes.subarray(to + 1)]);
  },
  badBytes(bytes, random) {
    let out = bytes;
    for (let n = 1 + below(random, 10); n > 0; n--) out = insert(out, at(out, random), Buffer.from(pick(random, BAD_BYTES)));
    return out;
  },
  runOfOneByte: (bytes, random, maxRun) => insert(bytes, at(bytes, random), Buffer.alloc(1 + below(random, maxRun), pick(random, RUN_BYTES))),
  splice(bytes, random) {
    const from = at(bytes, random);
    const piece = bytes.subarray(from, from + below(random, 4096));
    return insert(bytes, at(bytes, random), Buffer.from(piece.length > 0 ? piece : [0x3c]));
  },
  longValue(bytes, random, maxRun) {
    // A long value of multi-byte characters, its length in bytes, code points or neither.
    const count = 1 + below(random, maxRun / 4);
    const text = pick(random, ['é', '😀', 'Ж', 'a']).repeat(count);
    const length = pick(random, [count, Buffer.byteLength(text), text.length, count * 2 + 7]);
    const field = random() < 0.5 ? `<COMMENT:${length}>${text}` : `<COMMENT>${text}</COMMENT>`;
    return insert(bytes, at(bytes, random), Buffer.from(field, 'utf8'));
  },
  strayMarkup(bytes, random) {
    let out = bytes;
    for (let n = 1 + below(random, 5); n > 0; n--) out = insert(out, at(out, random), Buffer.from(pick(random, MARKUP)));
    return out;
  },
};
const MUTATION_NAMES = Object.keys(MUTATIONS);

function chunks(bytes: Buffer, random: Random): Buffer[] {
  const style = below(random, 4);
  if (style === 0) return [bytes];
  const max = style === 1 ? 16 : style === 2 ? 4096 : 65536;
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; ) {
    const size = 1 + below(random, max);
    out.push(bytes.subarray(i, i + size));
    i += size;
  }
  return out;
}

const station = { id: 1, userId: 1, callsign: 'DL1FUZ', gridsquare: 'JO62' };

/** Feeds one reader; the sniffing import reader also normalises every record as an import does. */
function read(reader: AdifItemReader, pieces: Buffer[], processor: RecordProcessor | null): void {
  const rows = new CopyRows(station.id);
  const sink: AdifItemSink = processor === null ? () => undefined : (item) => {
    processor.processItem(item, rows);
    rows.take();
  };
  for (const piece of pieces) reader.push(piece, sink);
  reader.end(sink);
}

function readAll(bytes: Buffer, random: Random): void {
  read(new AdifTokenizer(), chunks(bytes, random), null);
  read(new AdxReader(), chunks(bytes, random), null);
  const processor = new RecordProcessor(station, { stationId: 1, frequencyUnit: 'MHz' }, null);
  read(createItemReader(sniffAdifFormat(bytes, true)!), chunks(bytes, random), processor);
}

/** The seed of one round: rounds are independent, so a failure replays with --seed and --round. */
const roundSeed = (seed: number, round: number) => (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + round * 0x27d4eb2f) >>> 0;

export function runFuzz(options: FuzzOptions): FuzzOutcome {
  const floor = options.floorBytesPerSecond ?? DEFAULT_FLOOR;
  const maxRun = options.maxRun ?? 256 * 1024;
  // Warm up first: loading the DXCC table and compiling the readers would count against round one.
  readAll(Buffer.concat([...generateAdif(200, 1)]), createRandom(1));
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  let bytesRead = 0;
  let rounds = 0;
  for (let round = options.firstRound ?? 0; performance.now() < deadline && rounds < (options.rounds ?? Infinity); round++, rounds++) {
    const random = createRandom(roundSeed(options.seed, round));
    let input = baseDocument(random, roundSeed(options.seed, round));
    const mutations: string[] = [];
    for (let n = 1 + below(random, 4); n > 0; n--) {
      const name = pick(random, MUTATION_NAMES);
      mutations.push(name);
      input = MUTATIONS[name]!(input, random, maxRun);
    }
    const fail = (reason: string): FuzzOutcome => ({
      rounds: rounds + 1, bytes: bytesRead, seconds: (performance.now() - started) / 1000,
      failure: { seed: options.seed, round, mutations, reason, input },
    });
    const heapBefore = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    try {
      readAll(input, random);
    } catch (error) {
      return fail(`threw ${(error as Error).stack ?? String(error)}`);
    }
    const elapsed = (performance.now() - t0) / 1000;
    // Three readers read the input: the floor applies to each of them.
    const rate = (3 * input.length) / elapsed;
    if (input.length >= FLOOR_MIN_BYTES && rate < floor) return fail(`read ${input.length} bytes at ${Math.round(rate)} bytes/s, below the floor of ${floor}`);
    const growth = process.memoryUsage().heapUsed - heapBefore;
    if (growth > HEAP_ROOM + HEAP_PER_BYTE * input.length) return fail(`heap grew by ${growth} bytes reading ${input.length}`);
    bytesRead += input.length;
  }
  return { rounds, bytes: bytesRead, seconds: (performance.now() - started) / 1000, failure: null };
}

/** One line naming a failure and how to replay it. */
export function describeFailure(failure: FuzzFailure): string {
  return `fuzz failure at seed ${failure.seed} round ${failure.round} (mutations ${failure.mutations.join(', ')}; ${failure.input.length} bytes): ${failure.reason}\n` +
    `replay: npx tsx benchmarks/fuzz-adif.ts --seed ${failure.seed} --round ${failure.round}`;
}
