/**
 * Import throughput and memory of `logbook import` (a real process, as operators run it) against
 * the ceiling PostgreSQL sets: raw COPY of the same rows into the qso table with all its indexes,
 * measured in the same run. Uses a database of its own, created and dropped here.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/import.ts [--qsos 1000000 --small 100000]
 *   … benchmarks/import.ts --feed-cost [--rounds 4]   (the change feed's column and index: with and without, alternating)
 *   … benchmarks/import.ts --index-cost [--qsos 200000]  (each index of qso: its cost to a COPY into a bare qso-shaped table)
 *
 * Needs bin/logbook.js compiled (npm run build) and /usr/bin/time (GNU time) for the peak RSS.
 * Data: benchmarks/data/qsos-1m.adi and qsos-100k.adi, generated when missing.
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { createStation } from '../lib/accounts/stations.js';
import { createUser } from '../lib/accounts/users.js';
import type { Database } from '../lib/db/database.js';
import { loadTargetStation } from '../lib/accounts/targetStations.js';
import { insertOneQso } from '../lib/import/insertOne.js';
import { InsertBatcher } from '../lib/import/insertBatcher.js';
import { RecordProcessor } from '../lib/import/recordProcessor.js';
import { AdifRowsTransform } from '../lib/import/rowStreams.js';
import type { RowChunk } from '../lib/import/copyRows.js';
import { INSERT_COLUMNS } from '../lib/import/rowValues.js';
import { beginQsoWriteForStations } from '../lib/qso/writeLock.js';
import { writeGeneratedAdif } from './generate-adif.js';
import { countingFunctionSql } from './lib/countingFunction.js';
import { countTriggerBody, countTriggerFunctionSql } from '../lib/db/countTables.js';
import { numberOption, scratchDatabase } from './lib/scratch.js';

const root = join(import.meta.dirname, '..');
export const dataDir = join(root, 'benchmarks', 'data');
const bin = join(root, 'bin', 'logbook.js');

/** A user with one station location in `db`; returns the location's id. */
export async function newStation(db: Database, callsign: string): Promise<number> {
  const userId = await createUser(db.pool, { username: `bench-${callsign.toLowerCase()}`, callsign });
  return createStation(db.pool, { userId, name: callsign, callsign, gridsquare: 'JO62QM' });
}

export interface CliRun {
  seconds: number;
  peakRssMb: number;
  /** User plus system CPU seconds of the command's process. */
  cpuSeconds: number;
  stdout: string;
}

/**
 * Runs `logbook <args>` under GNU time: wall time, CPU and the peak RSS the kernel recorded. With
 * CLI_PROF=<folder> in the environment the command writes a V8 CPU profile there.
 */
export function runCli(args: string[], databaseUrl: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-v', process.execPath, ...(process.env.CLI_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.CLI_PROF] : []), bin, ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOGBOOK_QUIET: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      const cpu = ['User', 'System'].map((kind) => Number(new RegExp(`${kind} time \\(seconds\\): ([\\d.]+)`).exec(stderr)?.[1] ?? NaN));
      if (code !== 0 || rss === null) reject(new Error(`logbook ${args.join(' ')} failed (${code}):\n${stderr}`));
      else resolve({ seconds, peakRssMb: Number(rss[1]) / 1024, cpuSeconds: cpu[0]! + cpu[1]!, stdout });
    });
  });
}

export function machine(): string {
  return `nproc ${cpus().length}, Node ${process.version}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;
}

export function report(label: string, rows: number, seconds: number, bytes: number | null, extra = ''): number {
  const rate = rows / seconds;
  const mb = bytes === null ? '' : `, ${(bytes / 1024 / 1024 / seconds).toFixed(1)} MB/s`;
  console.log(`${label.padEnd(44)} ${rows} rows in ${seconds.toFixed(2)} s: ${Math.round(rate)} rows/s${mb}${extra}`);
  return rate;
}

export function label(count: number): string {
  return count % 1_000_000 === 0 ? `${count / 1_000_000}m` : count % 1000 === 0 ? `${count / 1000}k` : String(count);
}

/** benchmarks/data/qsos-<count>.adi, generated when missing. */
export async function ensureFile(count: number): Promise<string> {
  const path = join(dataDir, `qsos-${label(count)}.adi`);
  if (!existsSync(path)) {
    console.log(`generating ${path}`);
    await writeGeneratedAdif(path, count);
  }
  return path;
}

/** The rows the import would store, as its COPY into qso takes them (the location first): the ceiling's input. */
export async function writeCopyRows(db: pg.Pool, adifPath: string, stationId: number, copyPath: string): Promise<number> {
  const options = { stationId, frequencyUnit: 'MHz' as const };
  const processor = new RecordProcessor(await loadTargetStation(db, stationId), options, null);
  const insertRows = new Transform({
    writableObjectMode: true,
    transform(chunk: RowChunk, _encoding, callback) {
      callback(null, chunk.kind === 'insert' ? chunk.text : '');
    },
  });
  await pipeline(createReadStream(adifPath, { highWaterMark: 256 * 1024 }), new AdifRowsTransform(processor, 'adi', undefined), insertRows, createWriteStream(copyPath));
  return processor.staged;
}

/**
 * Raw COPY of prepared rows into qso (all indexes, the foreign key), committed. Like every QSO
 * writer it declares itself to the change feed first (one statement, sql/007_change_feed.sql).
 */
export async function copyCeiling(db: pg.Pool, copyPath: string, stationId: number): Promise<number> {
  const client = await db.connect();
  try {
    const columns = ['station_id', ...INSERT_COLUMNS.map((column) => column.name)].join(', ');
    const started = process.hrtime.bigint();
    await client.query('BEGIN');
    await beginQsoWriteForStations(client, [stationId]);
    await pipeline(createReadStream(copyPath, { highWaterMark: 256 * 1024 }), client.query(copyFrom(`COPY qso (${columns}) FROM STDIN`)));
    await client.query('COMMIT');
    return Number(process.hrtime.bigint() - started) / 1e9;
  } finally {
    client.release();
  }
}

/** The qso table's own indexes (name, definition), primary key and the duplicate index first. */
async function qsoIndexes(db: pg.Pool): Promise<Array<{ name: string; definition: string }>> {
  const { rows } = await db.query<{ name: string; definition: string }>(
    `SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE tablename = 'qso'
      ORDER BY indexname = 'qso_pkey' DESC, indexname = 'qso_dupe_key' DESC, indexname`,
  );
  return rows;
}

/**
 * A table shaped like qso (columns, defaults, identity) with only the primary key and the
 * duplicate index, plus `extra` of qso's indexes: no foreign key, no triggers (counts, feed).
 */
async function createBareQso(db: pg.Pool, extra: ReadonlyArray<{ name: string; definition: string }> = []): Promise<void> {
  await db.query('DROP TABLE IF EXISTS qso_bare');
  await db.query('CREATE TABLE qso_bare (LIKE qso INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING GENERATED)');
  const indexes = await qsoIndexes(db);
  for (const { name, definition } of [...indexes.filter((i) => i.name === 'qso_pkey' || i.name === 'qso_dupe_key'), ...extra]) {
    await db.query(definition.replace(` ${name} ON public.qso `, ` bare_${name} ON public.qso_bare `));
  }
}

/** Raw COPY of the prepared rows into qso_bare, committed: seconds. */
async function copyBare(db: pg.Pool, copyPath: string): Promise<number> {
  const client = await db.connect();
  try {
    const columns = ['station_id', ...INSERT_COLUMNS.map((column) => column.name)].join(', ');
    const started = process.hrtime.bigint();
    await client.query('BEGIN');
    await pipeline(createReadStream(copyPath, { highWaterMark: 256 * 1024 }), client.query(copyFrom(`COPY qso_bare (${columns}) FROM STDIN`)));
    await client.query('COMMIT');
    return Number(process.hrtime.bigint() - started) / 1e9;
  } finally {
    client.release();
  }
}

/**
 * --index-cost: what each of qso's indexes costs a COPY. The bare table (primary key and the
 * duplicate index) once, then the bare table with each further index alone, then qso itself:
 * rows/s of each and the time each index adds to the bare COPY; then qso itself, without its
 * counting trigger, and with the counting of sql/009 alone (filter buckets, no id or month counts).
 */
async function indexCost(db: Database, big: string, bigCount: number): Promise<void> {
  const pool = db.pool;
  const station = await newStation(db, 'DL0IDX');
  const copyPath = join(dataDir, `qsos-${label(bigCount)}.copy`);
  const rows = await writeCopyRows(pool, big, station, copyPath);
  const timed = async (what: string, extra: Array<{ name: string; definition: string }>) => {
    await createBareQso(pool, extra);
    await pool.query('CHECKPOINT');
    const secondsTaken = await copyBare(pool, copyPath);
    report(`  ${what}`, rows, secondsTaken, statSync(copyPath).size);
    return secondsTaken;
  };
  console.log(machine());
  const others = (await qsoIndexes(pool)).filter((i) => i.name !== 'qso_pkey' && i.name !== 'qso_dupe_key');
  await timed('warm-up (bare)', []);
  // The bare COPY before and after the single indexes: their spread is this run's noise.
  const bareFirst = await timed('bare (primary key + duplicate index)', []);
  const single: Array<[string, number]> = [];
  for (const index of others) single.push([index.name, await timed(`bare + ${index.name}`, [index])]);
  const bareLast = await timed('bare again', []);
  const allIndexes = await timed('bare + every index of qso (no foreign key, no triggers)', others);
  await pool.query('DROP TABLE qso_bare');
  await pool.query('CHECKPOINT');
  const copyQso = async (what: string) => {
    await pool.query('TRUNCATE qso CASCADE');
    await pool.query('CHECKPOINT');
    const secondsTaken = await copyCeiling(pool, copyPath, station);
    report(`  ${what}`, rows, secondsTaken, statSync(copyPath).size);
    return secondsTaken;
  };
  const full = await copyQso('qso itself (every index, foreign key, triggers)');
  // The counting trigger's share: without it, and with the one table of counts sql/009 kept.
  await pool.query('ALTER TABLE qso DISABLE TRIGGER qso_counts_insert');
  const uncounted = await copyQso('qso without the counting trigger');
  await pool.query('ALTER TABLE qso ENABLE TRIGGER qso_counts_insert');
  await pool.query(countingFunctionSql('009_qso_counts.sql'));
  const bucketsOnly = await copyQso('qso counting per filter bucket only (the trigger of sql/009)');
  await pool.query(countTriggerFunctionSql(countTriggerBody()));
  const bare = (bareFirst + bareLast) / 2;
  const row = (what: string, secondsTaken: number) =>
    `| ${what} | ${Math.round(rows / secondsTaken)} | ${(secondsTaken - bare).toFixed(2)} | ${(((secondsTaken - bare) / bare) * 100).toFixed(0)} % |`;
  console.log(`\n| COPY of ${rows} rows into | rows/s | seconds over the bare COPY | % of the bare COPY |\n|---|---|---|---|`);
  console.log(`| bare: primary key + duplicate index (mean of ${bareFirst.toFixed(2)} and ${bareLast.toFixed(2)} s) | ${Math.round(rows / bare)} | | |`);
  for (const [name, secondsTaken] of single) console.log(row(`bare + ${name}`, secondsTaken));
  console.log(row(`bare + all ${others.length} other indexes`, allIndexes));
  console.log(row('qso (all indexes, the foreign key, the counting and feed triggers)', full));
  console.log(row('qso without the counting trigger', uncounted));
  console.log(row('qso counting per filter bucket only (sql/009, before the id and month counts)', bucketsOnly));
  console.log(machine());
}

interface Observation {
  locks: Set<string>;
  maxWriteMs: number;
  writes: number;
}

/**
 * While an import runs: which locks its connection holds (polled from pg_locks), and how long a
 * single QSO insert by another user into another location takes meanwhile.
 */
function observeImport(db: pg.Pool, otherStationId: number): { stop(): Promise<Observation> } {
  const observation: Observation = { locks: new Set(), maxWriteMs: 0, writes: 0 };
  let running = true;
  const loop = (async () => {
    const otherStation = await loadTargetStation(db, otherStationId);
    const inserts = new InsertBatcher(db);
    while (running) {
      const { rows } = await db.query<{ lock: string }>(
        `SELECT DISTINCT CASE WHEN l.locktype = 'advisory' THEN 'advisory lock'
                              WHEN l.locktype = 'transactionid' THEN 'its own transaction id'
                              WHEN c.relname IS NULL THEN 'relation created by the import (staging table, its TOAST)'
                              WHEN c.relname LIKE 'qso%' THEN 'qso and its indexes'
                              WHEN c.relname LIKE 'stations%' THEN 'stations and its indexes'
                              ELSE c.relname END || ': ' || l.mode AS lock
         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         LEFT JOIN pg_class c ON c.oid = l.relation
         WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND l.granted
           AND l.locktype IN ('relation', 'advisory', 'transactionid')
           AND (a.query LIKE 'COPY qso %' OR a.query LIKE 'COPY import_staging%' OR a.query LIKE '%INSERT INTO qso (station_id%import_staging%')`,
      );
      for (const row of rows) observation.locks.add(row.lock);
      const started = process.hrtime.bigint();
      const call = `DL${observation.writes}OBS`;
      await insertOneQso(inserts, { CALL: call, QSO_DATE: '20240101', TIME_ON: '1200', BAND: '20m', MODE: 'CW' }, otherStation, { frequencyUnit: 'MHz' });
      observation.maxWriteMs = Math.max(observation.maxWriteMs, Number(process.hrtime.bigint() - started) / 1e6);
      observation.writes++;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return observation;
    },
  };
}

/** The schema as before the change feed: no txid column (so no default stamping it) and no qso_station_txid index. */
async function setFeedColumn(pool: pg.Pool, present: boolean): Promise<void> {
  const { rows } = await pool.query('SELECT 1 FROM information_schema.columns WHERE table_name = $1 AND column_name = $2', ['qso', 'txid']);
  if (present && rows.length === 0) {
    await pool.query(`ALTER TABLE qso ADD COLUMN txid xid8 NOT NULL DEFAULT '0'`);
    await pool.query('ALTER TABLE qso ALTER COLUMN txid SET DEFAULT pg_current_xact_id()');
    await pool.query('CREATE INDEX qso_station_txid ON qso (station_id, txid, id)');
  } else if (!present && rows.length > 0) {
    await pool.query('ALTER TABLE qso DROP COLUMN txid');
  }
}

/**
 * --feed-cost: what the change feed's column and index cost an import. Pairs of (ceiling COPY,
 * then `logbook import` of the same file into an empty location), with the feed's `txid` column
 * and index and without them, in the order with, without, without, with (--rounds 2: with,
 * without), on the same scratch database: the ratio to the ceiling and the import's own rows/s
 * of each, so the difference shows beside the run-to-run spread.
 */
async function feedCost(db: Database, big: string, bigCount: number): Promise<void> {
  const pool = db.pool;
  const rounds = numberOption('rounds', 4);
  const ceilingStation = await newStation(db, 'DL0CEIL');
  const copyPath = join(dataDir, `qsos-${label(bigCount)}.copy`);
  const rows = await writeCopyRows(pool, big, ceilingStation, copyPath);
  const results: Array<{ feed: boolean; ceiling: number; imported: number; ratio: number }> = [];
  for (let round = 0; round < rounds; round++) {
    const feed = [true, false, false, true][round % 4]!;
    await pool.query('TRUNCATE qso CASCADE');
    await setFeedColumn(pool, feed);
    await pool.query('VACUUM ANALYZE qso');
    await pool.query('CHECKPOINT');
    const what = feed ? 'with the feed (txid column + index)' : 'without (no txid column, no index)';
    console.log(`\n${what}: ${machine()}`);
    const ceiling = report('  ceiling: raw COPY into qso', rows, await copyCeiling(pool, copyPath, ceilingStation), statSync(copyPath).size);
    await pool.query('TRUNCATE qso CASCADE');
    await pool.query('VACUUM ANALYZE qso');
    await pool.query('CHECKPOINT');
    const station = await newStation(db, `DL${round}FC`);
    const run = await runCli(['import', big, '--station', String(station), '--json'], db.url);
    const summary = JSON.parse(run.stdout) as { imported: number };
    const imported = report(`  logbook import, ${label(bigCount)} QSOs`, summary.imported, run.seconds, statSync(big).size, `, peak RSS ${run.peakRssMb.toFixed(0)} MB`);
    results.push({ feed, ceiling, imported, ratio: imported / ceiling });
    console.log(`  ratio to the ceiling: ${((imported / ceiling) * 100).toFixed(0)} %`);
  }
  await setFeedColumn(pool, true);
  const mean = (feed: boolean, key: 'ceiling' | 'imported' | 'ratio') => {
    const some = results.filter((r) => r.feed === feed);
    return some.reduce((sum, r) => sum + r[key], 0) / some.length;
  };
  console.log(`\n| | ceiling rows/s | import rows/s | ratio |\n|---|---|---|---|`);
  for (const r of results) console.log(`| ${r.feed ? 'with the feed' : 'without'} | ${Math.round(r.ceiling)} | ${Math.round(r.imported)} | ${(r.ratio * 100).toFixed(0)} % |`);
  console.log(
    `with the feed: ratio ${(mean(true, 'ratio') * 100).toFixed(1)} %, import ${Math.round(mean(true, 'imported'))} rows/s; ` +
      `without: ratio ${(mean(false, 'ratio') * 100).toFixed(1)} %, import ${Math.round(mean(false, 'imported'))} rows/s; ` +
      `import with the feed against the ceiling without it: ${((mean(true, 'imported') / mean(false, 'ceiling')) * 100).toFixed(1)} %`,
  );
  console.log(machine());
}

async function main(): Promise<void> {
  console.log(machine());
  const bigCount = numberOption('qsos', 1_000_000);
  const smallCount = numberOption('small', 100_000);
  const big = await ensureFile(bigCount);
  const only = process.argv.includes('--feed-cost') ? feedCost : process.argv.includes('--index-cost') ? indexCost : null;
  if (only !== null) {
    const db = await scratchDatabase('import');
    try {
      await only(db, big, bigCount);
    } finally {
      await db.dispose();
    }
    return;
  }
  const small = await ensureFile(smallCount);
  const bigBytes = statSync(big).size;
  const db = await scratchDatabase('import');
  const pool = db.pool;
  try {
    const ceilingStation = await newStation(db, 'DL0CEIL');
    const copyPath = join(dataDir, `qsos-${label(bigCount)}.copy`);
    const rows = await writeCopyRows(pool, big, ceilingStation, copyPath);
    await pool.query('CHECKPOINT');
    const ceiling = report('ceiling: raw COPY into qso (all indexes)', rows, await copyCeiling(pool, copyPath, ceilingStation), statSync(copyPath).size);
    await pool.query('TRUNCATE qso CASCADE');
    await pool.query('VACUUM ANALYZE qso');
    await createBareQso(pool);
    await pool.query('CHECKPOINT');
    const bare = report('bare: raw COPY, primary key + duplicate index only', rows, await copyBare(pool, copyPath), statSync(copyPath).size);
    await pool.query('DROP TABLE qso_bare');

    const dry = await runCli(['import', big, '--station', String(ceilingStation), '--dry-run', '--json'], db.url);
    report('logbook import --dry-run (JavaScript only)', rows, dry.seconds, bigBytes, `, peak RSS ${dry.peakRssMb.toFixed(0)} MB`);

    const station = await newStation(db, 'DL0LOG');
    const other = await newStation(db, 'DL0OTH');
    await pool.query('CHECKPOINT');
    const observer = observeImport(pool, other);
    const first = await runCli(['import', big, '--station', String(station), '--json'], db.url);
    const observed = await observer.stop();
    const firstSummary = JSON.parse(first.stdout) as { imported: number; skipped: number };
    const firstRate = report(`logbook import, ${label(bigCount)} QSOs into an empty location`, firstSummary.imported, first.seconds, bigBytes, `, peak RSS ${first.peakRssMb.toFixed(0)} MB`);
    console.log(`  ratio to the ceiling: ${((firstRate / ceiling) * 100).toFixed(0)} %; to the bare COPY: ${((firstRate / bare) * 100).toFixed(0)} % (the rest is qso's other indexes, foreign key and triggers: --index-cost itemises them)`);

    await pool.query('CHECKPOINT');
    const again = await runCli(['import', big, '--station', String(station), '--json'], db.url);
    const againSummary = JSON.parse(again.stdout) as { imported: number; skipped: number };
    const againRate = report(`logbook import, same ${label(bigCount)} again (all duplicates)`, againSummary.skipped, again.seconds, bigBytes, `, peak RSS ${again.peakRssMb.toFixed(0)} MB`);
    console.log(`  ratio to the ceiling: ${((againRate / ceiling) * 100).toFixed(0)} %; stored ${againSummary.imported}`);

    const smallStation = await newStation(db, 'DL0SML');
    const smallRun = await runCli(['import', small, '--station', String(smallStation), '--json'], db.url);
    const smallSummary = JSON.parse(smallRun.stdout) as { imported: number };
    report(`logbook import, ${label(smallCount)} QSOs into an empty location`, smallSummary.imported, smallRun.seconds, statSync(small).size, `, peak RSS ${smallRun.peakRssMb.toFixed(0)} MB`);
    console.log(`  peak RSS ${label(bigCount)} against ${label(smallCount)}: ${((first.peakRssMb / smallRun.peakRssMb - 1) * 100).toFixed(0)} %`);

    console.log('during the first import:');
    console.log(`  locks held by the import's connection: ${[...observed.locks].sort().join('; ')}`);
    console.log(`  another user's single inserts: ${observed.writes}, slowest ${observed.maxWriteMs.toFixed(0)} ms`);
    console.log(machine());
  } finally {
    await db.dispose();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
