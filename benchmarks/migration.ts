/**
 * Upgrades on a populated database: QSOs of three locations seeded at an older schema (`--from`,
 * by default the version before sql/050, the lean storage of issue 51), every later migration
 * applied and timed on its own, then every table of counts recounted against qso.
 *
 *   DATABASE_URL=… npx tsx benchmarks/migration.ts [--qsos 1000000] [--from 046_public_log_search]
 */
import { cpus, loadavg } from 'node:os';
import { createStation } from '../lib/accounts/stations.js';
import { createUser } from '../lib/accounts/users.js';
import { migrate, migrationFiles } from '../lib/db/migrate.js';
import { inStationQsoTransaction } from '../lib/qso/writeLock.js';
import { countTableMismatches } from '../test/helpers/countRecount.js';
import { numberOption, scratchDatabase, secondsSince, stringOption } from './lib/scratch.js';

const qsos = numberOption('qsos', 1_000_000);
const from = stringOption('from') ?? '046_public_log_search';
const CHUNK = 100_000;
const machine = () => `nproc ${cpus().length}, Node ${process.version}, ${new Date().toISOString()}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;
console.log(machine());

const db = await scratchDatabase('migration', { migrated: false });
try {
  const versions = (await migrationFiles()).map((file) => file.replace(/\.sql$/, ''));
  if (!versions.includes(from)) throw new Error(`--from ${from}: no such migration`);
  await migrate(db.pool, from);
  const stations: number[] = [];
  for (const callsign of ['DL1MIG', 'DL2MIG', 'DL3MIG']) {
    const userId = await createUser(db.pool, { username: callsign.toLowerCase(), email: `${callsign}@example.org`, callsign });
    stations.push(await createStation(db.pool, { userId, name: 'Home', callsign, gridsquare: 'JO62QM' }));
  }
  // A log's variety: bands, modes, submodes, SAT, operators, entities, confirmations with dates.
  const seeding = process.hrtime.bigint();
  for (let start = 0; start < qsos; start += CHUNK) {
    const station = stations[(start / CHUNK) % stations.length]!;
    await inStationQsoTransaction(db.pool, [station], (client) => client.query(
      `INSERT INTO qso (station_id, call, time_on, band, mode, submode, prop_mode, operator, dxcc, qsl_rcvd, qslrdate, lotw_qsl_rcvd, lotw_qslrdate, eqsl_qsl_rcvd, eqsl_qslrdate)
       SELECT $1, 'K' || g, timestamp '2010-01-01' + g * interval '4 minutes', (ARRAY['20m', '40m', '15m', '2m', '80m'])[1 + g % 5],
              (ARRAY['CW', 'SSB', 'MFSK', 'FT8'])[1 + g % 4], CASE WHEN g % 4 = 2 THEN 'FT4' END, CASE WHEN g % 97 = 0 THEN 'SAT' END,
              (ARRAY['DL1A', NULL, NULL])[1 + g % 3], 1 + g % 340,
              CASE WHEN g % 9 = 0 THEN 'Y' END, CASE WHEN g % 9 = 0 THEN date '2012-01-01' + g % 4000 END,
              CASE WHEN g % 3 = 0 THEN 'Y' END, CASE WHEN g % 3 = 0 THEN date '2012-01-01' + g % 4000 END,
              CASE WHEN g % 7 = 0 THEN 'Y' END, CASE WHEN g % 7 = 0 THEN date '2012-01-01' + g % 4000 END
         FROM generate_series($2::int, $3::int) g`,
      [station, start + 1, Math.min(qsos, start + CHUNK)]));
  }
  await db.pool.query('VACUUM ANALYZE qso');
  console.log(`seeded ${qsos} QSOs at ${from} in ${secondsSince(seeding).toFixed(1)} s`);
  let total = 0;
  for (const version of versions.filter((v) => v > from)) {
    const began = process.hrtime.bigint();
    await migrate(db.pool, version);
    const seconds = secondsSince(began);
    total += seconds;
    console.log(`  ${version.padEnd(40)} ${seconds.toFixed(1)} s`);
  }
  console.log(`every migration after ${from}: ${total.toFixed(1)} s`);
  const checking = process.hrtime.bigint();
  const mismatches = await countTableMismatches(db.pool);
  console.log(`tables of counts against qso: ${mismatches.length === 0 ? 'exact' : `${mismatches.length} keys differ, e.g. ${mismatches[0]}`} (${secondsSince(checking).toFixed(1)} s)`);
  if (mismatches.length > 0) process.exitCode = 1;
  console.log(machine());
} finally {
  await db.dispose();
}
