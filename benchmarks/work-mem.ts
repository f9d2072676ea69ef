/**
 * What work_mem does to an import's COPYs into qso: the counting trigger sees each COPY's rows as
 * a transition table, kept in work_mem and spilled to a temporary file beyond it. The 200k rows
 * the import would store, COPYed into qso in 25,000-row statements (an import's batches) in one
 * transaction, at work_mem 4 MB (the default) and 64 MB (lib/import/pipeline.ts), each with the
 * counting trigger and without it, in two rounds of opposite order.
 *
 *   DATABASE_URL=… npx tsx benchmarks/work-mem.ts [--qsos 200000]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { INSERT_COLUMNS } from '../lib/import/rowValues.js';
import { dataDir, ensureFile, label, machine, newStation, writeCopyRows } from './import.js';
import { numberOption, scratchDatabase } from './lib/scratch.js';

const BATCH_ROWS = 25_000;
const count = numberOption('qsos', 200_000);
const adif = await ensureFile(count);
console.log(machine());
const db = await scratchDatabase('work_mem');
try {
  const station = await newStation(db, 'DL0WM');
  const copyPath = join(dataDir, `qsos-${label(count)}.copy`);
  await writeCopyRows(db.pool, adif, station, copyPath);
  const lines = readFileSync(copyPath, 'utf8').split('\n').filter((line) => line !== '');
  const columns = ['station_id', ...INSERT_COLUMNS.map((column) => column.name)].join(', ');
  for (const round of [0, 1]) {
    for (const workMem of round === 0 ? ['4MB', '64MB'] : ['64MB', '4MB']) {
      for (const counting of [true, false]) {
        await db.pool.query('TRUNCATE qso CASCADE');
        await db.pool.query(`ALTER TABLE qso ${counting ? 'ENABLE' : 'DISABLE'} TRIGGER qso_counts_insert`);
        await db.pool.query('CHECKPOINT');
        const client = await db.pool.connect();
        try {
          const started = process.hrtime.bigint();
          await client.query('BEGIN');
          await client.query(`SET LOCAL work_mem = '${workMem}'`);
          await client.query('SELECT qso_write_begin(ARRAY(SELECT user_id FROM stations WHERE id = $1))', [station]);
          for (let at = 0; at < lines.length; at += BATCH_ROWS) {
            await pipeline([Buffer.from(lines.slice(at, at + BATCH_ROWS).join('\n') + '\n')], client.query(copyFrom(`COPY qso (${columns}) FROM STDIN`)));
          }
          await client.query('COMMIT');
          console.log(`work_mem ${workMem}, counting ${counting ? 'on ' : 'off'}: ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(2)} s`);
        } finally {
          client.release();
        }
      }
    }
  }
  await db.pool.query('ALTER TABLE qso ENABLE TRIGGER qso_counts_insert');
  console.log(machine());
} finally {
  await db.dispose();
}
