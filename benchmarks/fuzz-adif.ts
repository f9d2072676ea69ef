// The ADIF/ADX fuzz harness for long runs (see benchmarks/lib/fuzzAdif.ts and docs/import-export.md):
//   npx tsx benchmarks/fuzz-adif.ts [--seconds 3600] [--seed N] [--round R | --from R] [--floor BYTES_PER_S] [--max-run BYTES]
// --round R replays that one round of the seed; --from R goes on from that round (past a fixed one). A failure prints the seed and round, writes the
// input to benchmarks/data/fuzz-failure-<seed>-<round>.bin and exits 1.
import { mkdirSync, writeFileSync } from 'node:fs';
import { numberOption } from './lib/scratch.js';
import { describeFailure, runFuzz } from './lib/fuzzAdif.js';

const seed = numberOption('seed', Math.floor(Math.random() * 2 ** 31));
const replay = process.argv.includes('--round');
const seconds = numberOption('seconds', 60);
const report = 60;
console.log(`fuzz-adif: seed ${seed}${replay ? `, round ${numberOption('round', 0)}` : `, from round ${numberOption('from', 0)}, ${seconds} s`}`);

let round = replay ? numberOption('round', 0) : numberOption('from', 0);
let rounds = 0;
let bytes = 0;
const until = Date.now() + seconds * 1000;
// Runs in slices of a minute, so that progress shows on a run of hours.
do {
  const outcome = runFuzz({
    seed,
    firstRound: round,
    seconds: replay ? Infinity : Math.min(report, Math.max(0, (until - Date.now()) / 1000)),
    rounds: replay ? 1 : undefined,
    floorBytesPerSecond: numberOption('floor', 512 * 1024),
    maxRun: numberOption('max-run', 1024 * 1024),
  });
  round += outcome.rounds;
  rounds += outcome.rounds;
  bytes += outcome.bytes;
  if (outcome.failure) {
    console.error(describeFailure(outcome.failure));
    mkdirSync('benchmarks/data', { recursive: true });
    const file = `benchmarks/data/fuzz-failure-${seed}-${outcome.failure.round}.bin`;
    writeFileSync(file, outcome.failure.input);
    console.error(`input written to ${file}`);
    process.exit(1);
  }
  console.log(`fuzz-adif: ${rounds} rounds (up to round ${round - 1}), ${(bytes / 1e6).toFixed(1)} MB, heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB, no failure`);
} while (!replay && Date.now() < until);
