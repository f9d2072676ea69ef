/**
 * Export throughput and memory of `logbook export` (a real process) against the ceiling
 * PostgreSQL sets: `COPY (SELECT * FROM qso) TO STDOUT` of the same rows, in the same run (the
 * export query itself, its rows naming their locations, is timed beside it).
 * Uses a database of its own, created and dropped here.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/export.ts [--qsos 1000000 --small 100000]
 *
 * Needs bin/logbook.js compiled (npm run build) and /usr/bin/time (GNU time) for the peak RSS.
 */
import { statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { EXPORT_SELECT_LIST } from '../lib/export/adifRecord.js';
import { dataDir, ensureFile, label, machine, newStation, report, runCli } from './import.js';
import { numberOption, scratchDatabase } from './lib/scratch.js';

/** Seconds and bytes of a COPY … TO STDOUT, its output counted and dropped. */
async function copyOut(pool: pg.Pool, sql: string): Promise<{ seconds: number; bytes: number }> {
  const client = await pool.connect();
  try {
    let bytes = 0;
    const started = process.hrtime.bigint();
    await pipeline(client.query(copyTo(sql)), new Writable({
      write(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        callback();
      },
    }));
    return { seconds: Number(process.hrtime.bigint() - started) / 1e9, bytes };
  } finally {
    client.release();
  }
}

async function main(): Promise<void> {
  console.log(machine());
  const bigCount = numberOption('qsos', 1_000_000);
  const smallCount = numberOption('small', 100_000);
  const db = await scratchDatabase('export');
  const pool = db.pool;
  try {
    const station = await newStation(db, 'DL0LOG');
    const smallStation = await newStation(db, 'DL0SML');
    await runCli(['import', await ensureFile(bigCount), '--station', String(station)], db.url);
    await runCli(['import', await ensureFile(smallCount), '--station', String(smallStation)], db.url);
    await pool.query('VACUUM ANALYZE qso');
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [station]);
    const count = rows[0]!.n;

    // The benchmark database holds these two locations only, so no WHERE (COPY takes no parameters).
    const all = count + smallCount;
    const raw = await copyOut(pool, 'COPY (SELECT * FROM qso ORDER BY id) TO STDOUT');
    const ceiling = report('ceiling: COPY (SELECT * FROM qso) TO STDOUT', all, raw.seconds, raw.bytes);
    const sameColumns = await copyOut(pool, `COPY (SELECT ${EXPORT_SELECT_LIST} FROM qso q ORDER BY q.id) TO STDOUT`);
    report('for reference: the export query alone', all, sameColumns.seconds, sameColumns.bytes);

    const out = join(dataDir, `export-${label(bigCount)}.adi`);
    const big = await runCli(['export', '--station', String(station), '-o', out], db.url);
    const rate = report(`logbook export, ${label(bigCount)} QSOs to a file`, count, big.seconds, statSync(out).size, `, peak RSS ${big.peakRssMb.toFixed(0)} MB`);
    console.log(`  ratio to the ceiling: ${((rate / ceiling) * 100).toFixed(0)} %`);
    unlinkSync(out);

    const smallOut = join(dataDir, `export-${label(smallCount)}.adi`);
    const small = await runCli(['export', '--station', String(smallStation), '-o', smallOut], db.url);
    report(`logbook export, ${label(smallCount)} QSOs to a file`, smallCount, small.seconds, statSync(smallOut).size, `, peak RSS ${small.peakRssMb.toFixed(0)} MB`);
    console.log(`  peak RSS ${label(bigCount)} against ${label(smallCount)}: ${((big.peakRssMb / small.peakRssMb - 1) * 100).toFixed(0)} %`);
    unlinkSync(smallOut);
    console.log(machine());
  } finally {
    await db.dispose();
  }
}

await main();
