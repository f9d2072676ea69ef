#!/usr/bin/env node
// npm run bench [-- name ...]: runs the benchmarks one after another (they measure throughput
// and peak RSS, so they must not share the machine with each other). Each one prints its own
// rows/s, MB/s, peak RSS and ratio against its baseline; benchmarks/RESULTS.md records them.
// The database benchmarks create and drop their own scratch database on DATABASE_URL.
import { spawnSync } from 'node:child_process';

const benchmarks = {
  tokenizer: ['benchmarks/tokenizer.ts'],
  dxcc: ['benchmarks/dxcc.ts'],
  import: ['benchmarks/import.ts'],
  'import-http': ['benchmarks/import-http.ts'],
  export: ['benchmarks/export.ts'],
  'qso-list': ['benchmarks/qso-list.ts'],
  abandon: ['benchmarks/abandon.ts'],
  confirmation: ['benchmarks/confirmation.ts'],
  workers: ['benchmarks/workers.ts'],
  'change-feed': ['benchmarks/change-feed.ts'],
  merge: ['benchmarks/merge.ts'],
  'count-trigger': ['benchmarks/count-trigger.ts'],
  worker: ['benchmarks/worker/run.ts'],
};
const needsDatabase = new Set(['import', 'import-http', 'merge', 'export', 'qso-list', 'abandon', 'confirmation', 'workers', 'change-feed', 'count-trigger']);

const chosen = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const extra = process.argv.slice(2).filter((a) => a.startsWith('--'));
const unknown = chosen.filter((name) => !(name in benchmarks));
if (unknown.length) {
  console.error(`bench: unknown benchmark(s) ${unknown.join(', ')}; known: ${Object.keys(benchmarks).join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of chosen.length ? chosen : Object.keys(benchmarks)) {
  if (needsDatabase.has(name) && !process.env.DATABASE_URL) {
    console.log(`\n== ${name}: skipped, set DATABASE_URL to a PostgreSQL server it may create a scratch database on`);
    continue;
  }
  console.log(`\n== ${name}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', ...benchmarks[name], ...extra], { stdio: 'inherit' });
  if (run.status !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);
