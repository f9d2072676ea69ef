import t from 'tap';
import type pg from 'pg';
import { testDatabase, testDatabaseAt } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { seedQsos } from '../helpers/qsoRows.js';
import { COUNT_TABLES, countTablesAsBuilt, countTriggerBody, countTriggerFunctionSql, DXCC_TABLE, ensureCountTrigger, type CountTable } from '../../lib/db/countTables.js';
import { migrate } from '../../lib/db/migrate.js';
import { beginQsoWriteForStations } from '../../lib/qso/writeLock.js';

/** The counting trigger is generated from lib/db/countTables.ts and installed by the migration run. */

const installedBody = async (db: { query: (text: string) => Promise<{ rows: Array<{ body: string }> }> }) =>
  (await db.query("SELECT prosrc AS body FROM pg_proc WHERE proname = 'qso_counts_record'")).rows[0]!.body;

t.test('the migrated database counts with the trigger the code declares, restored when it differs', async (t) => {
  const db = await testDatabase(t);
  const pool = db.pool;
  t.equal(await installedBody(pool), countTriggerBody(), 'the migrations installed the generated body');
  const op = await createOperator(pool, { callsign: 'DL1TRG' });
  const insert = (call: string) => seedQsos(pool, [op.stationId], `INSERT INTO qso (station_id, call, time_on, band, mode) VALUES ($1, $2, '2024-03-05 10:00', '20m', 'CW')`, [op.stationId, call]);
  const monthBlocks = async () => Number((await pool.query<{ n: string }>(`SELECT coalesce(sum(n), 0) AS n FROM ${DXCC_TABLE.name} WHERE station_id = $1`, [op.stationId])).rows[0]!.n);

  // A database whose trigger predates the table: the table misses writes.
  const older = COUNT_TABLES.filter(({ name }) => name !== DXCC_TABLE.name);
  await pool.query(countTriggerFunctionSql(countTriggerBody(older)));
  await insert('K1OLD');
  t.equal(await monthBlocks(), 0, 'the older trigger does not count into the new table');

  t.same(await migrate(pool), [], 'no migration was pending');
  t.equal(await installedBody(pool), countTriggerBody(), 'the migration run restored the generated body');
  await insert('K1NEW');
  t.equal(await monthBlocks(), 1, 'the restored trigger counts into every table');
  t.equal(await ensureCountTrigger(pool), false, 'nothing to do once installed');

  // A newer version migrated the database and installed its own body (a table this version does
  // not know): starting this version keeps it.
  const newer = `${countTriggerBody()}\n-- a newer version's body\n`;
  await pool.query(countTriggerFunctionSql(newer));
  await pool.query("INSERT INTO schema_migrations (version) VALUES ('999_a_newer_table_of_counts')");
  t.same(await migrate(pool), [], 'no migration of this version was pending');
  t.equal(await installedBody(pool), newer, 'the newer version\'s trigger is kept');
});

t.test('the generated trigger waits for every table it fills, the migrations\' own bodies counting until then', async (t) => {
  const db = await testDatabaseAt(t, '024_qso_lookup_indexes');
  const pool = db.pool;
  const handWritten = await installedBody(pool);
  t.not(handWritten, countTriggerBody());
  t.equal(await ensureCountTrigger(pool), false, 'not installed while qso_dxcc_counts (sql/025) is missing');
  t.equal(await installedBody(pool), handWritten, 'the migrations\' own trigger is kept');
  t.same(await migrate(pool, '025_qso_dxcc_counts'), ['025_qso_dxcc_counts']);
  const asBuilt = (await countTablesAsBuilt(pool))!;
  t.equal(asBuilt.find(({ name }) => name === 'qso_month_counts')!.columns, 'station_id, operator, month', 'the month counts without statuses before sql/057');
  t.equal(await installedBody(pool), countTriggerBody(asBuilt), 'the generated body, for the tables as they are, once every table exists');
  await migrate(pool, '057_month_counts_hold_statuses');
  t.equal(await installedBody(pool), countTriggerBody(), 'and the statuses counted from sql/057 on');
});

/**
 * The QSOs of one station per key of `table`, summed from the table and counted from `qsoRows`
 * (its key columns per QSO): the keys where they differ.
 */
async function countMismatches(pool: pg.Pool, table: CountTable, qsoRows: string, stationId: number): Promise<string[]> {
  const { columns } = table;
  // EXCEPT compares NULLs (no operator, not confirmed) as equal.
  const counted = `SELECT ${columns}, count(*) AS n FROM (${qsoRows}) k WHERE station_id = $1 GROUP BY ${columns}`;
  const summed = `SELECT ${columns}, sum(n) AS n FROM ${table.name} WHERE station_id = $1 GROUP BY ${columns} HAVING sum(n) <> 0`;
  const { rows } = await pool.query<{ side: string; key: string }>(
    `SELECT 'counted' AS side, d::text AS key FROM (${counted} EXCEPT ALL ${summed}) d
     UNION ALL SELECT 'summed', d::text FROM (${summed} EXCEPT ALL ${counted}) d`,
    [stationId],
  );
  return rows.map((row) => `only ${row.side}: ${row.key}`);
}

/**
 * A migration that creates and fills a table of counts, applied while a writer of the older
 * version (its trigger blind to the table) holds QSOs not committed yet: it waits for them, and
 * counts them. `before` turns a migrated database into one where the migration is pending.
 */
const MIGRATIONS_OF_TABLES: Array<{ table: CountTable; qsoRows: string; before: string; createdBy: string }> = [
  {
    table: DXCC_TABLE,
    qsoRows: `SELECT station_id, operator, dxcc, CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END AS qsl_rcvd,
                     CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END AS lotw_qsl_rcvd FROM qso`,
    before: '024_qso_lookup_indexes',
    createdBy: '025_qso_dxcc_counts',
  },
];

for (const { table, qsoRows, before, createdBy } of MIGRATIONS_OF_TABLES) {
  t.test(`the migration that creates ${table.name} loses no QSO a writer commits meanwhile`, async (t) => {
    const db = await testDatabaseAt(t, before);
    const pool = db.pool;
    // Written as that schema takes them (the fixtures write today's columns).
    const { rows: [user] } = await pool.query<{ id: number }>("INSERT INTO users (username, callsign) VALUES ('mig', 'DL1MIG') RETURNING id");
    const { rows: [station] } = await pool.query<{ id: number }>("INSERT INTO stations (user_id, name, callsign) VALUES ($1, 'Home', 'DL1MIG') RETURNING id", [user!.id]);
    const op = { stationId: station!.id };
    const seed = (count: number, tag: string) => seedQsos(pool, [op.stationId],
      `INSERT INTO qso (station_id, call, time_on, band, mode, dxcc, qsl_rcvd, lotw_qsl_rcvd)
       SELECT $1, $2 || g, timestamp '2024-01-01' + g * interval '1 hour', '20m', 'CW', 200 + g % 7,
              CASE WHEN g % 3 = 0 THEN 'Y' END, CASE WHEN g % 4 = 0 THEN 'Y' END
         FROM generate_series(1, ${count}) g`,
      [op.stationId, tag]);
    await seed(300, 'K');

    // A writer of the older version has stored QSOs (its trigger counted them everywhere but in
    // the new table) and commits while the migration runs.
    const writer = await pool.connect();
    t.teardown(() => writer.release());
    await writer.query('BEGIN');
    await beginQsoWriteForStations(writer, [op.stationId]);
    await writer.query(`INSERT INTO qso (station_id, call, time_on, band, mode, dxcc, lotw_qsl_rcvd)
      SELECT $1, 'W' || g, timestamp '2024-06-01' + g * interval '1 hour', '40m', 'SSB', 300 + g % 5, CASE WHEN g % 2 = 0 THEN 'Y' END
        FROM generate_series(1, 200) g`, [op.stationId]);
    let settled = false;
    const migrating = migrate(pool, createdBy).finally(() => { settled = true; });
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.equal(settled, false, 'the migration waits for the writer in flight');
    await writer.query('COMMIT');
    t.same((await migrating).at(-1), createdBy, 'the migration applied');

    t.same(await countMismatches(pool, table, qsoRows, op.stationId), [], 'every QSO counted, the writer\'s too');
    // And the trigger the migration installed counts the next writes.
    await seed(50, 'N');
    t.same(await countMismatches(pool, table, qsoRows, op.stationId), [], 'writes after the migration counted');
    const { rows: [all] } = await pool.query<{ n: number }>(`SELECT sum(n)::int AS n FROM ${table.name} WHERE station_id = $1`, [op.stationId]);
    t.equal(all!.n, 550);
  });
}
