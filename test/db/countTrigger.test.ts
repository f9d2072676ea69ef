import t from 'tap';
import { testDatabase } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { seedQsos } from '../helpers/qsoRows.js';
import { COUNT_TABLES, countTriggerBody, ensureCountTrigger, ID_MONTH_TABLE } from '../../lib/db/countTables.js';
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
  const monthBlocks = async () => Number((await pool.query<{ n: string }>(`SELECT coalesce(sum(n), 0) AS n FROM ${ID_MONTH_TABLE.name} WHERE station_id = $1`, [op.stationId])).rows[0]!.n);

  // A database whose trigger predates the table (as sql/022 left it): the table misses writes.
  const older = COUNT_TABLES.filter(({ name }) => name !== ID_MONTH_TABLE.name);
  await pool.query(`CREATE OR REPLACE FUNCTION qso_counts_record() RETURNS trigger LANGUAGE plpgsql AS $body$${countTriggerBody(older)}$body$`);
  await insert('K1OLD');
  t.equal(await monthBlocks(), 0, 'the older trigger does not count into the new table');

  t.same(await migrate(pool), [], 'no migration was pending');
  t.equal(await installedBody(pool), countTriggerBody(), 'the migration run restored the generated body');
  await insert('K1NEW');
  t.equal(await monthBlocks(), 1, 'the restored trigger counts into every table');
  t.equal(await ensureCountTrigger(pool), false, 'nothing to do once installed');
});

t.test('the generated trigger waits for every table it fills', async (t) => {
  const db = await testDatabase(t);
  const client = await db.pool.connect();
  t.teardown(() => client.release());
  await client.query('BEGIN');
  // A schema part-way through the migrations: a table of counts not created yet.
  await client.query(`DROP TABLE ${ID_MONTH_TABLE.name}`);
  const older = countTriggerBody(COUNT_TABLES.filter(({ name }) => name !== ID_MONTH_TABLE.name));
  await client.query(`CREATE OR REPLACE FUNCTION qso_counts_record() RETURNS trigger LANGUAGE plpgsql AS $body$${older}$body$`);
  t.equal(await ensureCountTrigger(client), false, 'not installed while a table is missing');
  t.equal(await installedBody(client), older, 'the migration\'s own trigger is kept');
  await client.query('ROLLBACK');
});

t.test('a migration that creates and fills a table of counts loses no QSO a writer commits meanwhile', async (t) => {
  const db = await testDatabase(t);
  const pool = db.pool;
  const op = await createOperator(pool, { callsign: 'DL1MIG' });
  const seed = (count: number, tag: string) => seedQsos(pool, [op.stationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode) SELECT $1, $2 || g, timestamp '2024-01-01' + g * interval '1 hour', '20m', 'CW' FROM generate_series(1, ${count}) g`,
    [op.stationId, tag]);
  await seed(300, 'K');
  // The database as it was before sql/023: no table, the trigger without it, the migration pending.
  const older = countTriggerBody(COUNT_TABLES.filter(({ name }) => name !== ID_MONTH_TABLE.name));
  await pool.query(`DROP TABLE ${ID_MONTH_TABLE.name}`);
  await pool.query(`CREATE OR REPLACE FUNCTION qso_counts_record() RETURNS trigger LANGUAGE plpgsql AS $body$${older}$body$`);
  await pool.query("DELETE FROM schema_migrations WHERE version = '023_qso_id_month_counts'");

  // A writer of the older version has stored QSOs (its trigger counted them everywhere but in
  // the new table) and commits while the migration runs.
  const writer = await pool.connect();
  t.teardown(() => writer.release());
  await writer.query('BEGIN');
  await beginQsoWriteForStations(writer, [op.stationId]);
  await writer.query(`INSERT INTO qso (station_id, call, time_on, band, mode) SELECT $1, 'W' || g, timestamp '2024-06-01' + g * interval '1 hour', '40m', 'SSB' FROM generate_series(1, 200) g`, [op.stationId]);
  let settled = false;
  const migrating = migrate(pool).finally(() => { settled = true; });
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(settled, false, 'the migration waits for the writer in flight');
  await writer.query('COMMIT');
  t.same(await migrating, ['023_qso_id_month_counts'], 'sql/023 applied again');

  const { rows } = await pool.query<{ month: string; counted: number; summed: number }>(
    `SELECT q.month::text AS month, q.n::int AS counted, coalesce(c.n, 0)::int AS summed
       FROM (SELECT date_trunc('month', time_on) AS month, count(*) AS n FROM qso WHERE station_id = $1 GROUP BY 1) q
       LEFT JOIN (SELECT month, sum(n) AS n FROM ${ID_MONTH_TABLE.name} WHERE station_id = $1 GROUP BY 1) c USING (month)
      ORDER BY 1`,
    [op.stationId],
  );
  t.same(rows.filter((row) => row.counted !== row.summed), [], 'every QSO counted per block and month, the writer\'s too');
  t.equal(rows.reduce((sum, row) => sum + row.counted, 0), 500);
});
