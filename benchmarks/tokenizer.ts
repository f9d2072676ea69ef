/**
 * ADIF tokenizer benchmark: the reader the import runs (AdifTokenizer fed 256 KiB file chunks,
 * items handed to a sink as AdifRowsTransform does) against adif-parser-ts and a bare byte scan,
 * each in its own child process so peak RSS is per parser.
 *
 *   npx tsx benchmarks/tokenizer.ts [--file benchmarks/data/qsos-1m.adi] [--count 1000000] [--runs 1]
 *
 * The file is generated (benchmarks/generate-adif.ts) when missing. With
 * --runs N each parser runs N times and the median rate is reported.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AdifParser } from 'adif-parser-ts';
import type { AdifItemSink } from '../lib/adif/itemReader.js';
import { AdifTokenizer } from '../lib/adif/tokenizer.js';
import { writeGeneratedAdif } from './generate-adif.js';

const PARSERS = ['tokenizer', 'adif-parser-ts', 'byte-scan'] as const;
type ParserName = (typeof PARSERS)[number];

interface Measurement {
  parser: ParserName;
  records: number;
  seconds: number;
  /** User + system CPU time: less disturbed than wall time when the machine is shared. */
  cpuSeconds: number;
  maxRssBytes: number;
}

/** The import's reader as the import runs it: the CLI's 256 KiB file chunks, each item to a sink. */
async function runTokenizer(file: string): Promise<number> {
  let records = 0;
  const reader = new AdifTokenizer();
  const sink: AdifItemSink = (item) => {
    if (item.kind === 'record') records++;
  };
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) reader.push(chunk as Buffer, sink);
  reader.end(sink);
  return records;
}

/** adif-parser-ts needs the whole document as one string. */
function runAdifParserTs(file: string): number {
  return AdifParser.parseAdi(readFileSync(file, 'utf8')).records?.length ?? 0;
}

/** The floor: count `<eor>` case-insensitively, touching every byte once. */
async function runByteScan(file: string): Promise<number> {
  const pattern = [0x3c, 0x65, 0x6f, 0x72, 0x3e]; // "<eor>"
  let matched = 0;
  let records = 0;
  for await (const chunk of createReadStream(file)) {
    const bytes = chunk as Buffer;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]! | (matched > 0 && matched < 4 ? 0x20 : 0); // letters compare lower-case
      if (byte === pattern[matched]) {
        if (++matched === pattern.length) {
          records++;
          matched = 0;
        }
      } else {
        matched = byte === 0x3c ? 1 : 0;
      }
    }
  }
  return records;
}

async function measure(parser: ParserName, file: string): Promise<Measurement> {
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const records =
    parser === 'tokenizer' ? await runTokenizer(file) : parser === 'adif-parser-ts' ? runAdifParserTs(file) : await runByteScan(file);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  return { parser, records, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, maxRssBytes: process.resourceUsage().maxRSS * 1024 };
}

function runChild(parser: ParserName, file: string): Measurement {
  const script = fileURLToPath(import.meta.url);
  const output = execFileSync(process.execPath, [...process.execArgv, script, '--child', parser, '--file', file], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(output.trim().split('\n').at(-1)!) as Measurement;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function argument(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

const args = process.argv.slice(2);
const child = argument(args, '--child');
const count = Number(argument(args, '--count') ?? '1000000');
const file = argument(args, '--file') ?? `benchmarks/data/qsos-${count === 1_000_000 ? '1m' : count}.adi`;

if (child !== undefined) {
  if (!(PARSERS as readonly string[]).includes(child)) throw new Error(`unknown parser ${child}`);
  console.log(JSON.stringify(await measure(child as ParserName, file)));
} else {
  const runs = Number(argument(args, '--runs') ?? '1');
  if (!existsSync(file)) {
    console.log(`generating ${count} QSOs into ${file} ...`);
    await writeGeneratedAdif(file, count);
  }
  const bytes = statSync(file).size;
  console.log(`file ${file}: ${(bytes / 1e6).toFixed(1)} MB; ${runs} run(s) per parser, median shown`);

  const results = new Map<ParserName, { records: number; recordsPerSecond: number; cpuSeconds: number; maxRssBytes: number }>();
  for (const parser of PARSERS) {
    const measurements: Measurement[] = [];
    for (let run = 0; run < runs; run++) measurements.push(runChild(parser, file));
    const rates = measurements.map((m) => m.records / m.seconds);
    results.set(parser, {
      records: measurements[0]!.records,
      recordsPerSecond: median(rates),
      cpuSeconds: median(measurements.map((m) => m.cpuSeconds)),
      maxRssBytes: Math.max(...measurements.map((m) => m.maxRssBytes)),
    });
  }

  const reference = results.get('adif-parser-ts')!.recordsPerSecond;
  const floor = results.get('byte-scan')!.recordsPerSecond;
  console.log('| parser | records | records/s | MB/s | CPU s | peak RSS | vs adif-parser-ts | vs byte scan |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [parser, result] of results) {
    const seconds = result.records / result.recordsPerSecond;
    console.log(
      `| ${parser} | ${result.records} | ${Math.round(result.recordsPerSecond).toLocaleString('en-US')} | ` +
        `${(bytes / 1e6 / seconds).toFixed(1)} | ${result.cpuSeconds.toFixed(1)} | ${Math.round(result.maxRssBytes / 2 ** 20)} MB | ` +
        `${(result.recordsPerSecond / reference).toFixed(2)}× | ${(result.recordsPerSecond / floor).toFixed(2)}× |`,
    );
  }
}
