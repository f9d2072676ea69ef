import t from 'tap';
import { testDatabaseAt } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { seedQsos } from '../helpers/qsoRows.js';
import { countTableMismatches } from '../helpers/countRecount.js';
import { COUNT_TABLES } from '../../lib/db/countTables.js';
import { migrate, migrationFiles } from '../../lib/db/migrate.js';
import { beginQsoWriteForStations } from '../../lib/qso/writeLock.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { projectRoot } from '../../lib/paths.js';

/** sql/050 drops indexes and tables of counts (docs/storage.md): on a populated database, every total stays exact. */

const LEAN = '050_lean_storage';
/** sql/050's ten; the public log search's of sql/046 folded into the duplicate key by sql/054 (docs/storage.md). */
const MAX_QSO_INDEXES = 10;

t.test('the lean-storage migration keeps every total exact on a populated database, a writer committing meanwhile', async (t) => {
  const before = (await migrationFiles()).map((file) => file.replace(/\.sql$/, '')).filter((version) => version < LEAN).at(-1)!;
  const db = await testDatabaseAt(t, before);
  const pool = db.pool;
  const owners = await Promise.all(['DL1LEA', 'DL2LEA', 'DL3LEA'].map((callsign) => createOperator(pool, { callsign })));
  for (const [i, owner] of owners.entries()) {
    await seedQsos(pool, [owner.stationId],
      `INSERT INTO qso (station_id, call, time_on, band, mode, submode, prop_mode, operator, dxcc, qsl_rcvd, lotw_qsl_rcvd, lotw_qslrdate, eqsl_qsl_rcvd)
       SELECT $1, 'K' || g, timestamp '2015-01-01' + g * interval '97 minutes', (ARRAY['20m', '40m', '2m'])[1 + g % 3],
              (ARRAY['CW', 'SSB', 'MFSK'])[1 + g % 3], CASE WHEN g % 3 = 2 THEN 'FT4' END, CASE WHEN g % 11 = 0 THEN 'SAT' END,
              (ARRAY['DL1A', NULL])[1 + g % 2], 200 + g % 13, CASE WHEN g % 5 = 0 THEN 'Y' END,
              CASE WHEN g % 4 = 0 THEN 'Y' END, date '2020-01-01' + g % 900, CASE WHEN g % 6 = 0 THEN 'Y' END
         FROM generate_series(1, ${1500 + i * 500}) g`, [owner.stationId]);
  }
  // Edits and deletions before the migration: moves between buckets, months and entities.
  await seedQsos(pool, [owners[0]!.stationId], `UPDATE qso SET band = '15m', lotw_qsl_rcvd = 'Y', dxcc = 230 WHERE station_id = $1 AND id % 7 = 0`, [owners[0]!.stationId]);
  await seedQsos(pool, [owners[1]!.stationId], 'DELETE FROM qso WHERE station_id = $1 AND id % 9 = 0', [owners[1]!.stationId]);

  // A writer in flight while the migration runs: it waits for the writer, and the writer's QSOs are counted.
  const writer = await pool.connect();
  t.teardown(() => writer.release());
  await writer.query('BEGIN');
  await beginQsoWriteForStations(writer, [owners[2]!.stationId]);
  await writer.query(`INSERT INTO qso (station_id, call, time_on, band, mode) SELECT $1, 'W' || g, timestamp '2024-06-01' + g * interval '1 hour', '40m', 'SSB'
    FROM generate_series(1, 200) g`, [owners[2]!.stationId]);
  let settled = false;
  const migrating = migrate(pool).finally(() => { settled = true; });
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(settled, false, 'the migration waits for the writer in flight');
  await writer.query('COMMIT');
  t.ok((await migrating).includes(LEAN), 'the migration applied');

  t.same(await countTableMismatches(pool), [], 'every row of every table of counts against a count of qso');
  await seedQsos(pool, [owners[0]!.stationId], `UPDATE qso SET mode = 'FT8', time_on = time_on + interval '40 days' WHERE station_id = $1 AND id % 5 = 1`, [owners[0]!.stationId]);
  await seedQsos(pool, [owners[2]!.stationId], 'DELETE FROM qso WHERE station_id = $1 AND id % 4 = 0', [owners[2]!.stationId]);
  t.same(await countTableMismatches(pool), [], 'and after writes under the trigger the migration left');

  const { rows: [shape] } = await pool.query<{ indexes: number; counts: string[] }>(
    `SELECT (SELECT count(*)::int FROM pg_index WHERE indrelid = 'qso'::regclass) AS indexes,
            array(SELECT relname::text FROM pg_class WHERE relkind = 'r' AND relname LIKE 'qso%counts' ORDER BY 1) AS counts`);
  t.ok(shape!.indexes <= MAX_QSO_INDEXES, `qso has ${shape!.indexes} indexes, at most ${MAX_QSO_INDEXES} (docs/storage.md names each)`);
  // docs/storage.md's table of the indexes on qso names each one in force.
  const docs = await readFile(join(projectRoot, 'docs', 'storage.md'), 'utf8');
  const table = docs.slice(docs.indexOf('## The indexes on `qso`'), docs.indexOf('Folded by sql/054'));
  const { rows: names } = await pool.query<{ name: string }>(`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'qso'::regclass ORDER BY 1`);
  t.same(names.map(({ name }) => name).filter((name) => !table.includes(`\`${name}\``)), [], 'docs/storage.md names every index on qso');
  t.same(shape!.counts, COUNT_TABLES.map(({ name }) => name).sort(), 'the tables of counts are the four declared');
});
