/**
 * Confirmations at engine speed: a LoTW-shaped report of N records applied to a location that
 * holds the same N QSOs (`logbook import`, a real process, default policy `confirm`), against
 * the plain import of those QSOs into the empty location in the same run. Target: the report at
 * ≥ 50 % of the plain import's rows/s, peak RSS under 200 MB. Uses a scratch database.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/merge.ts [--qsos 1000000]
 *
 * Needs bin/logbook.js compiled (npm run build) and /usr/bin/time. Data: benchmarks/data/
 * qsos-N.adi and lotw-N.adi (the report of the same QSOs, times shifted by up to 59 s as another
 * logger would have them), generated when missing.
 */
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { generateQsos, writeGeneratedAdif } from './generate-adif.js';
import { dataDir, machine, newStation, report, runCli } from './import.js';
import { numberOption, scratchDatabase } from './lib/scratch.js';

const OWNCALL = 'DL1MRG';

function field(name: string, value: string): string {
  return `<${name}:${value.length}>${value}`;
}

/** The LoTW report of the generated QSOs: LoTW's header and record fields, QSL_RCVD Y. */
function* lotwReport(count: number): Generator<Buffer> {
  yield Buffer.from(`ARRL Logbook of the World Status Report\nGenerated at 2024-04-01 09:30:00\nfor ${OWNCALL}\n\n` +
    `${field('PROGRAMID', 'LoTW')}\n${field('APP_LoTW_LASTQSL', '2024-03-30 18:00:00')}\n${field('APP_LoTW_NUMREC', String(count))}\n<eoh>\n`);
  let text = '';
  let n = 0;
  for (const fields of generateQsos(count)) {
    const get = (name: string) => fields.find(([key]) => key === name)?.[1] ?? '';
    const time = get('TIME_ON').padEnd(6, '0');
    // Another logger's clock: the report's time differs by some seconds within the minute.
    const shifted = `${time.slice(0, 4)}${String((Number(time.slice(4)) + 17) % 60).padStart(2, '0')}`;
    text += [
      field('APP_LoTW_OWNCALL', OWNCALL), field('STATION_CALLSIGN', OWNCALL), field('CALL', get('CALL')), field('BAND', get('BAND').toUpperCase()),
      field('MODE', get('MODE')), field('APP_LoTW_MODEGROUP', 'DATA'), field('QSO_DATE', get('QSO_DATE')), field('TIME_ON', shifted),
      field('QSL_RCVD', 'Y'), field('QSLRDATE', '20240315'), field('APP_LoTW_RXQSL', '2024-03-15 11:22:33'),
    ].join('\n') + '\n<eor>\n';
    if (++n % 500 === 0) {
      yield Buffer.from(text);
      text = '';
    }
  }
  if (text) yield Buffer.from(text);
}

const count = numberOption('qsos', 1_000_000);
const qsos = join(dataDir, `qsos-${count}.adi`);
const lotw = join(dataDir, `lotw-${count}.adi`);
if (!existsSync(qsos)) await writeGeneratedAdif(qsos, count);
if (!existsSync(lotw)) {
  mkdirSync(dirname(lotw), { recursive: true });
  await pipeline(Readable.from(lotwReport(count)), createWriteStream(lotw));
}

const db = await scratchDatabase('merge');
try {
  console.log(machine());
  const stationId = await newStation(db, OWNCALL);
  const plain = await runCli(['import', qsos, '--station', String(stationId), '--json'], db.url);
  const plainRate = report('plain import into the empty location', count, plain.seconds, null, `, peak RSS ${plain.peakRssMb.toFixed(0)} MB`);
  console.log(`  ${plain.stdout.trim().slice(0, 200)}`);
  const merge = await runCli(['import', lotw, '--station', String(stationId), '--json'], db.url);
  const mergeRate = report('LoTW report confirming them', count, merge.seconds, null, `, peak RSS ${merge.peakRssMb.toFixed(0)} MB`);
  const { messages: _messages, ...counts } = JSON.parse(merge.stdout) as Record<string, unknown>;
  console.log(`  ${JSON.stringify(counts)}`);
  console.log(`report / plain import: ${((100 * mergeRate) / plainRate).toFixed(0)} % (target ≥ 50 %), peak RSS ${merge.peakRssMb.toFixed(0)} MB (target < 200 MB)`);
  const again = await runCli(['import', lotw, '--station', String(stationId), '--json'], db.url);
  const againRate = report('the same report again (all unchanged)', count, again.seconds, null, `, peak RSS ${again.peakRssMb.toFixed(0)} MB`);
  console.log(`  again / plain import: ${((100 * againRate) / plainRate).toFixed(0)} %`);
} finally {
  await db.dispose();
}
