import t from 'tap';
import { describeFailure, runFuzz } from '../../benchmarks/lib/fuzzAdif.js';

// A short run of the ADIF/ADX fuzz harness (benchmarks/lib/fuzzAdif.ts); docs/import-export.md
// says how to run it for hours. FUZZ_SEED replays another seed; the default keeps the suite
// deterministic (FUZZ_ROUNDS, FUZZ_SECONDS widen it). The floor is lower than the long runs' because the suite shares the machine.
t.test('fuzzed ADIF and ADX documents: no crash, linear time, bounded memory', async (t) => {
  const seed = Number(process.env.FUZZ_SEED ?? 20261124);
  // Bounded by rounds as well as time, so that every run covers the same inputs whatever the load.
  const rounds = Number(process.env.FUZZ_ROUNDS ?? 800);
  const outcome = runFuzz({ seed, seconds: Number(process.env.FUZZ_SECONDS ?? 15), rounds, floorBytesPerSecond: 256 * 1024 });
  t.comment(`seed ${seed}: ${outcome.rounds} rounds, ${(outcome.bytes / 1e6).toFixed(1)} MB in ${outcome.seconds.toFixed(1)} s`);
  t.ok(outcome.failure === null, outcome.failure ? describeFailure(outcome.failure) : 'no failure');
  t.ok(outcome.rounds >= 20, `${outcome.rounds} rounds ran`);
});
